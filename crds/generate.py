#!/usr/bin/python3
"""Writes crds/nvidia.com_dynamographdeployments.yaml: the DynamoGraphDeployment CRD, and
crds/nvidia.com_dynamographdeploymentscalingadapters.yaml: the DynamoGraphDeploymentScalingAdapter
CRD (upstream's, with the scale subresource an autoscaler drives).

The schema keeps upstream Dynamo's v1beta1 DGD shape (podTemplate as a preserved
PodTemplateSpec) and adds the typed blocks of include/dgd/api/dgd.h. Keep the two in
step: tests/unit/api/crd_test.cpp fails when a model field is missing here.
Run: /usr/bin/python3 crds/generate.py
"""
import os
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def s(desc, max_len=253, enum=None, pattern=None, min_len=None):
    out = {"type": "string", "description": desc}
    if enum:
        out["enum"] = enum
        max_len = max(len(e) for e in enum)
    out["maxLength"] = max_len  # bounded strings keep the CEL cost estimate low
    if min_len is not None:
        out["minLength"] = min_len
    if pattern:
        out["pattern"] = pattern
    return out


def i(desc, lo=None, hi=None, fmt="int64"):
    out = {"type": "integer", "format": fmt, "description": desc}
    if lo is not None:
        out["minimum"] = lo
    if hi is not None:
        out["maximum"] = hi
    return out


def n(desc, lo=None, hi=None, exclusive_lo=False, exclusive_hi=False):
    out = {"type": "number", "description": desc}
    if lo is not None:
        out["minimum"] = lo
        if exclusive_lo:
            out["exclusiveMinimum"] = True
    if hi is not None:
        out["maximum"] = hi
        if exclusive_hi:
            out["exclusiveMaximum"] = True
    return out


def b(desc):
    return {"type": "boolean", "description": desc}


def o(desc, props, required=None, rules=None):
    out = {"type": "object", "description": desc, "properties": props}
    if required:
        out["required"] = required
    if rules:
        out["x-kubernetes-validations"] = [rule(*r) for r in rules]
    return out


def rule(text, message, field_path=None, reason=None):
    """A CEL rule; `field_path` (relative to the rule's object, e.g. ".type") is where the API server
    reports it, so `kubectl apply` names the same field as `dgdctl validate`; `reason` the cause's
    type (FieldValueForbidden, ...; default FieldValueInvalid)."""
    out = {"rule": text, "message": message}
    if field_path:
        out["fieldPath"] = field_path
    if reason:
        out["reason"] = reason
    return out


def lst(desc, items, max_items=None, list_type=None):
    out = {"type": "array", "description": desc, "items": items}
    if max_items is not None:
        out["maxItems"] = max_items
    if list_type:
        out["x-kubernetes-list-type"] = list_type
    return out


def quantity(desc):
    return {"description": desc, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": QUANTITY,
            "x-kubernetes-int-or-string": True}


def smap(desc):
    return {"type": "object", "description": desc, "additionalProperties": {"type": "string"}}


def raw(desc, kind="object"):
    return {"type": kind, "description": desc, "x-kubernetes-preserve-unknown-fields": True}


QUANTITY = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
LOWER_ID = r"^[a-z0-9][a-z0-9_]*$"
PCI = r"^([0-9A-Fa-f]{4}([0-9A-Fa-f]{4})?:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]$"

ENV = o("An environment variable (corev1.EnvVar).", {
    "name": s("Variable name.", 1024, min_len=1),
    "value": s("Literal value.", 1048576),
    "valueFrom": raw("Source of the value (corev1.EnvVarSource)."),
}, required=["name"], rules=[("!(has(self.value) && has(self.valueFrom))", "set either value or valueFrom, not both")])
ENV_LIST = lst("Environment variables, keyed by name.", ENV, 256, "map")
ENV_LIST["x-kubernetes-list-map-keys"] = ["name"]

MODEL = o("The served model, its pinned revision, its cache volume and the download Job.", {
    "id": s("Hugging Face model id; becomes vLLM --model / SGLang model-path.", 256,
            pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$"),
    "servedName": s("Name clients request; --served-model-name / served-model-name. Default: id.", 256),
    "revision": s("Pinned revision (commit) the download Job fetches.", 255,
                  pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]*$"),
    "cache": o("Model cache PersistentVolumeClaim, mounted in the serving pods.", {
        "claimName": s("PVC name, e.g. shared-model-cache.", 253),
        "mountPath": s("Mount path in pods; HF_HOME points here. Default: /<claimName>.", 4096, pattern=r"^/"),
        "readOnly": b("Mount read-only in serving pods. Default: false."),
        "create": o("Create the PVC (owned by the DGD unless keepOnDelete).", {
            "size": quantity("Requested size, e.g. 1000Gi."),
            "storageClassName": s("Storage class; cluster default when unset.", 253),
            "accessMode": s("Access mode. Default: ReadWriteMany.",
                            enum=["ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany", "ReadWriteOncePod"]),
        }),
        "keepOnDelete": b("Keep a created PVC when the DGD is deleted. Default: true."),
    }),
    "download": o("One-shot Job that fills the cache with the model at the pinned revision.", {
        "enabled": b("Run the Job. Default: true when this block is present."),
        "tokenSecretRef": o("Hugging Face token, by Secret reference only.", {
            "name": s("Secret name.", 253),
            "key": s("Key in the Secret. Default: HF_TOKEN.", 253),
        }),
        "image": s("Job image. Default: python:3.10-slim.", 4096),
        "highPerformance": b("HF_XET_HIGH_PERFORMANCE for the download (faster, needs memory). Default: true."),
        "packages": lst("pip packages installed in the Job before hf download, each pinned exactly (name==version). "
                        "Default: [huggingface_hub==1.16.4].",
                        s("A pinned package, e.g. huggingface_hub==1.11.0.", 128,
                          pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9][A-Za-z0-9.+_-]*$"), 16),
        "resources": raw("Resource requests / limits of the Job container (corev1.ResourceRequirements)."),
    }),
})

PLACEMENT = o("Where the pods run: GPU product, RDMA, NVLink, prefill/decode separation.", {
    "gpu": s("GPU product; drives the nvidia.com/gpu.product node selector, CPU architecture and tolerations.",
             enum=["B200", "GB200", "H200"]),
    "rdma": o("RDMA devices for KV transfer.", {
        "resource": s("Extended resource name, e.g. rdma/ib or rdma/shared_ib.", 253,
                      pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"),
        "perWorker": i("Devices requested per worker pod (requests = limits).", 1, 64),
        "nicSelection": s("How each pod picks its NICs: sriov (UCX_NET_DEVICES built at start from the SR-IOV "
                          "device plugin's PCIDEVICE_* variables), pcieMap (VLLM_GPU_NIC_PCIE_MAPPING), or none.",
                          enum=["sriov", "pcieMap", "none"]),
        "pcieMap": lst("GPU to NIC pairs, in GPU order (nicSelection pcieMap).", o("One GPU and its NIC.", {
            "gpu": s("GPU PCI address, e.g. 00000000:18:00.0.", 32, pattern=PCI),
            "nic": s("NIC PCI address, e.g. 0000:19:00.0.", 32, pattern=PCI),
        }, required=["gpu", "nic"]), 64),
    }, rules=[
        ("!has(self.nicSelection) || self.nicSelection != 'sriov' || has(self.resource)",
         "nicSelection sriov needs rdma.resource (e.g. rdma/ib)", ".nicSelection"),
        ("!has(self.nicSelection) || self.nicSelection != 'pcieMap' || (has(self.pcieMap) && size(self.pcieMap) > 0)",
         "nicSelection pcieMap needs rdma.pcieMap", ".pcieMap"),
    ]),
    "nvlink": o("NVLink placement (GB200).", {
        "computeDomain": b("Create one ComputeDomain for the DGD and give worker pods its resource claim."),
        "sameClique": b("Keep all workers in one nvidia.com/gpu.clique."),
    }),
    "separatePrefillDecode": b("Prefill and decode pods never share a node (required anti-affinity)."),
    "nodeSelector": smap("Extra node selector for every pod (cluster-specific)."),
    "tolerations": lst("Extra tolerations for every pod (corev1.Toleration).", raw("A toleration."), 64),
}, rules=[
    ("!has(self.gpu) || self.gpu == 'GB200' || !has(self.nvlink) || "
     "!(has(self.nvlink.%s) && self.nvlink.%s)" % (f, f), "NVLink ComputeDomains and cliques need GB200", ".nvlink." + f)
    for f in ("computeDomain", "sameClique")
])

SPECULATIVE = o("Speculative decoding: vLLM --speculative-config; SGLang speculative-* keys.", {
    "enabled": b("false switches off a block inherited from the recipe. Default: true."),
    "method": s("Method: dspark, mtp, eagle, eagle3, nextn, ngram, medusa, draft_model.",
                enum=["dspark", "mtp", "eagle", "eagle3", "nextn", "ngram", "medusa", "draft_model"]),
    "numSpeculativeTokens": i("num_speculative_tokens.", 1, 8),
    "draftSampleMethod": s("draft_sample_method.", enum=["probabilistic", "greedy"]),
    "rejectionSampleMethod": s("rejection_sample_method, e.g. block.", 64, pattern=LOWER_ID),
    "adaptiveVerification": b("enable_adaptive_verification; must stay false with dspark."),
    "draftModel": s("Draft model id or path (vLLM model / SGLang speculative-draft-model-path).", 4096),
    "numSteps": i("SGLang speculative-num-steps.", 1, 16),
    "eagleTopk": i("SGLang speculative-eagle-topk.", 1, 16),
    "numDraftTokens": i("SGLang speculative-num-draft-tokens.", 1, 64),
    "dsparkBlockSize": i("SGLang speculative-dspark-block-size.", 1, 64),
}, rules=[("!(has(self.method) && self.method == 'dspark' && has(self.adaptiveVerification) && self.adaptiveVerification)",
           "adaptiveVerification must stay false with dspark (illegal memory accesses)", ".adaptiveVerification")])

ENGINE = o("Typed engine settings of a worker; rendered as vLLM flags or an SGLang config file.", {
    "tensorParallelSize": i("--tensor-parallel-size / tp-size.", 1, 64),
    "dataParallelSize": i("--data-parallel-size / dp-size.", 1, 1024),
    "pipelineParallelSize": i("--pipeline-parallel-size / pp-size.", 1, 64),
    "expertParallel": b("vLLM --enable-expert-parallel."),
    "expertParallelSize": i("SGLang ep-size (vLLM derives it from TP x DP).", 1, 1024),
    "eplb": o("Expert-parallel load balancing.", {
        "enabled": b("--enable-eplb. Default: true when the block is present."),
        "communicator": s("--eplb-config communicator, e.g. torch_gloo.", 64, pattern=LOWER_ID),
    }),
    "epWeightFilter": b("vLLM --enable-ep-weight-filter."),
    "moeBackend": s("vLLM --moe-backend / SGLang moe-runner-backend.",
                    enum=["auto", "triton", "triton_kernel", "deep_gemm", "deep_gemm_mega_moe", "cutlass",
                          "flashinfer_cutlass", "flashinfer_trtllm", "flashinfer_cutedsl", "flashinfer_mxfp4",
                          "marlin", "aiter"]),
    "kvCacheDtype": s("--kv-cache-dtype.", enum=["auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc",
                                                 "fp8_ds_mla", "nvfp4_ds_mla", "nvfp4"]),
    "attention": o("vLLM --attention-config (or --attention-backend when only backend is set).", {
        "backend": s("Attention backend, e.g. FLASHMLA_MEGA_ATTN_DSV41 (Blackwell) or FLASHINFER_MLA.", 128,
                     pattern=r"^[A-Z0-9][A-Z0-9_]*$"),
        "indexerKvDtype": s("indexer_kv_dtype (mxfp4 needs Blackwell).", enum=["auto", "bfloat16", "fp8", "mxfp4"]),
        "indexerSparseLogits": b("indexer_sparse_logits."),
        "useFp4IndexerCache": b("use_fp4_indexer_cache (Blackwell)."),
    }),
    "compilation": o("vLLM --compilation-config.", {
        "cudagraphMode": s("cudagraph_mode.", enum=["NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY",
                                                    "FULL_AND_PIECEWISE"]),
        "customOps": lst("custom_ops, e.g. [all].", s("A custom op (all, none, +op, -op).", 128), 64),
    }),
    "speculative": SPECULATIVE,
    "maxModelLen": i("--max-model-len / context-length.", 1, 16777216),
    "maxNumSeqs": i("--max-num-seqs / max-running-requests.", 1, 65536),
    "maxNumBatchedTokens": i("vLLM --max-num-batched-tokens.", 1, 16777216),
    "gpuMemoryUtilization": n("vLLM --gpu-memory-utilization, (0, 1].", 0, 1, exclusive_lo=True),
    "blockSize": i("--block-size / page-size (power of two).", 1, 1024),
    "maxCudagraphCaptureSize": i("vLLM --max-cudagraph-capture-size.", 1, 8192),
    "longPrefillTokenThreshold": i("vLLM --long-prefill-token-threshold.", 1, 16777216),
    "prefixCacheRetentionInterval": i("vLLM --prefix-cache-retention-interval.", 1, 1073741824),
    "prefixCaching": b("vLLM --enable-prefix-caching / --no-enable-prefix-caching."),
    "asyncScheduling": b("false renders vLLM --no-async-scheduling."),
    "schedulerReserveFullIsl": b("false renders vLLM --no-scheduler-reserve-full-isl."),
    "flashinferAutotune": b("false renders --no-enable-flashinfer-autotune / disable-flashinfer-autotune."),
    "trustRemoteCode": b("--trust-remote-code / trust-remote-code."),
    "numaBind": b("vLLM --numa-bind."),
    "languageModelOnly": b("vLLM --language-model-only."),
    "parsers": o("Tokenizer mode and reasoning / tool-call parsers.", {
        "tokenizerMode": s("vLLM --tokenizer-mode, e.g. deepseek_v41.", 64, pattern=LOWER_ID),
        "reasoningParser": s("Engine --reasoning-parser / SGLang reasoning-parser.", 64, pattern=LOWER_ID),
        "toolCallParser": s("Engine --tool-call-parser (never with dynToolCallParser).", 64, pattern=LOWER_ID),
        "dynReasoningParser": s("Dynamo --dyn-reasoning-parser.", 64, pattern=LOWER_ID),
        "dynToolCallParser": s("Dynamo --dyn-tool-call-parser.", 64, pattern=LOWER_ID),
        "dynEnableStructuralTag": b("Dynamo --dyn-enable-structural-tag."),
    }, rules=[("!(has(self.toolCallParser) && has(self.dynToolCallParser))",
               "do not combine the engine toolCallParser with dynToolCallParser", ".toolCallParser")]),
    "kvEvents": o("--kv-events-config: KV-cache events for KV-aware routing.", {
        "enabled": b("false switches off a block inherited from the recipe. Default: true."),
        "publisher": s("publisher. Default: zmq.", enum=["zmq"]),
        "topic": s("topic. Default: kv-events.", 253),
        "port": i("endpoint tcp://*:<port> and container port kv-events. Default: 5557.", 1024, 65535),
        "enableKvCacheEvents": b("enable_kv_cache_events (omitted when unset)."),
    }),
    "kvTransfer": o("KV transfer between prefill and decode.", {
        "connector": s("vLLM kv_connector.", enum=["NixlConnector", "LMCacheConnectorV1", "MooncakeConnector",
                                                   "P2pNcclConnector", "MultiConnector", "OffloadingConnector"]),
        "role": s("vLLM kv_role. Default: kv_both.", enum=["kv_both", "kv_producer", "kv_consumer"]),
        "bufferDevice": s("vLLM kv_buffer_device. Default: cuda.", enum=["cuda", "cpu"]),
        "backends": lst("NIXL backends (kv_connector_extra_config.backends).",
                        s("A NIXL backend.", enum=["UCX", "UCX_MO", "LIBFABRIC", "GDS", "GDS_MT", "POSIX", "OBJ",
                                                   "MOONCAKE", "GPUNETIO", "HF3FS"]), 10),
        "numThreads": i("NIXL kv_connector_extra_config.num_threads.", 1, 64),
        "transferBackend": s("SGLang disaggregation-transfer-backend.",
                             enum=["mooncake", "nixl", "ascend", "mori", "fake"]),
        "bootstrapPort": i("SGLang disaggregation-bootstrap-port (container port bootstrap).", 1024, 65535),
    }),
    "sglang": o("SGLang-only settings (config file keys unless noted).", {
        "memFractionStatic": n("mem-fraction-static, (0, 1).", 0, 1, exclusive_lo=True, exclusive_hi=True),
        "chunkedPrefillSize": i("chunked-prefill-size (-1 disables).", -1, 16777216),
        "maxPrefillTokens": i("max-prefill-tokens.", 1, 16777216),
        "loadBalanceMethod": s("load-balance-method.", enum=["round_robin", "shortest_queue", "minimum_tokens",
                                                             "follow_bootstrap_room", "total_requests",
                                                             "total_tokens"]),
        "prefillRoundRobinBalance": b("CLI --prefill-round-robin-balance (decode)."),
        "watchdogTimeout": i("watchdog-timeout, seconds.", 1, 604800),
        "enableMetrics": b("enable-metrics."),
        "host": s("host (engine HTTP bind address).", 253),
        "port": i("port (engine HTTP port).", 1024, 65535),
        "cudaGraphMaxBsDecode": i("CLI --cuda-graph-max-bs-decode.", 1, 4096),
        "cudaGraphBs": lst("CLI --cuda-graph-bs values.", i("A batch size.", 1, 4096), 64),
        "extraConfig": raw("More SGLang config-file keys (escape hatch)."),
    }),
    "extraArgs": lst("Escape hatch: arguments appended verbatim after the rendered flags.",
                     s("An argument.", 4096), 128),
}, rules=[
    ("!(has(self.eplb) && (!has(self.eplb.enabled) || self.eplb.enabled) && has(self.expertParallel) && !self.expertParallel)",
     "EPLB needs expertParallel: true", ".eplb.enabled"),
])

ROUTER = o("Typed frontend router settings; rendered as DYN_ROUTER_* env / dynamo.frontend flags.", {
    "mode": s("DYN_ROUTER_MODE / --router-mode.", enum=["kv", "round-robin", "random"]),
    "kvEvents": b("--router-kv-events."),
    "blockSize": i("--kv-cache-block-size (must match the workers' blockSize).", 1, 1024),
    "resetStates": b("--router-reset-states."),
    "decodeActiveRequestWeight": i("DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT.", 0, 10000),
    "temperature": n("--router-temperature.", 0, 100),
    "conditionalDisaggregation": o("DYN_ROUTER_CONDITIONAL_DISAGG and its config.", {
        "enabled": b("DYN_ROUTER_CONDITIONAL_DISAGG=true. Default: true when the block is present."),
        "policy": s("policy (unset: the runtime's default policy).", enum=["isl_bounding"]),
        "effIslThreshold": i("eff_isl_threshold, tokens.", 0, 16777216),
        "effIslRatioThreshold": n("eff_isl_ratio_threshold.", 0, 1),
        "decodeBusyThreshold": n("decode_busy_threshold.", 0, 1),
    }),
    "trustRemoteCode": b("Frontend --trust-remote-code."),
    "httpHost": s("Frontend --http-host.", 253),
    "httpPort": i("Frontend --http-port and Service port http. Default: 8000.", 1024, 65535),
    "extraArgs": lst("Escape hatch: arguments appended to the frontend command.", s("An argument.", 4096), 128),
})

# Upstream v1beta1 component fields dgd-operator refuses, with upstream's types (so a value
# of the right type reaches the rule that says what is not supported) and the refusal.
UPSTREAM_REFUSED = {
    "minAvailable": (i("Upstream: Grove's gang-scheduling minimum. Refused: dgd-operator renders Deployments.",
                       1, None, "int32"),
                     "minAvailable is Grove's gang-scheduling minimum; dgd-operator renders Deployments: remove it"),
    "modelRef": (o("Upstream: base model of a headless discovery Service. Refused.", {
        "name": s("Model name.", 253, min_len=1), "revision": s("Model revision.", 253)}, required=["name"]),
                 "modelRef (a headless Service per base model) is not supported by dgd-operator: remove it"),
    "runtimeVersionOverride": (s("Upstream: runtime version selecting injected defaults. Refused.", 16,
                                 pattern=r"^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$"),
                               "runtimeVersionOverride is not supported: dgd-operator injects one set of defaults "
                               "for every runtime version; remove it"),
    "multinode": (o("Upstream: one replica across several nodes. Refused.", {
        "nodeCount": i("Nodes per replica.", 2, None, "int32")}),
                  "multinode components are not supported by dgd-operator (one pod per replica): remove multinode"),
    "roles": (lst("Upstream: leader / worker roles of a multinode component. Refused.",
                  raw("A role ({name, replicas, podTemplate})."), 8),
              "roles (multinode leader / worker pods) are not supported by dgd-operator: remove them"),
    "eppConfig": (raw("Upstream: endpoint picker configuration (type epp only). Refused."),
                  "eppConfig (the Gateway API endpoint picker) is not supported by dgd-operator: remove it"),
    "frontendSidecar": (s("Upstream: name of the podTemplate container that runs a frontend. Refused.", 63),
                        "frontendSidecar (a frontend in a sidecar container) is not supported by dgd-operator: "
                        "add a component of type frontend instead"),
    "dynamoSidecar": (s("Upstream: name of the init container that runs the Dynamo runtime. Refused.", 63),
                      "dynamoSidecar (the runtime in an init container) is not supported by dgd-operator: run it "
                      "in container main"),
    "topologyConstraint": (raw("Upstream (Grove only). Refused."),
                           "topologyConstraint applies to Grove only; not supported by dgd-operator"),
    "providerOverride": (raw("Upstream (Grove only). Refused."),
                         "providerOverride applies to Grove only; not supported by dgd-operator"),
}

EXPERIMENTAL_FEATURES = {
    "gpuMemoryService": "the GPU Memory Service",
    "failover": "active / standby engine failover",
    "checkpoint": "engine checkpoint / restore",
    "grove": "Grove-specific rendering",
    "kvTransferPolicy": "topology-aware KV-transfer routing",
    "componentGroups": "components scaled as one Grove group",
}


def experimental(desc, keys):
    """Upstream's experimental block: its features declared (so a rule can name each) and refused."""
    out = o(desc, {k: lst("Upstream: %s. Refused." % EXPERIMENTAL_FEATURES[k], raw("A group."), 16)
                   if k == "componentGroups" else raw("Upstream: %s. Refused." % EXPERIMENTAL_FEATURES[k])
                   for k in keys})
    out["x-kubernetes-preserve-unknown-fields"] = True
    return out


def experimental_rules(keys):
    rules = [("!has(self.experimental) || !has(self.experimental.%s)" % k,
              "experimental.%s (%s) is not supported by dgd-operator: remove it" % (k, EXPERIMENTAL_FEATURES[k]),
              ".experimental.%s" % k) for k in keys]
    rules.append(("!has(self.experimental) || " + " || ".join("has(self.experimental.%s)" % k for k in keys),
                  "experimental upstream features are not supported by dgd-operator: remove experimental",
                  ".experimental"))
    return rules


COMPONENT_EXPERIMENTAL = ["gpuMemoryService", "failover", "checkpoint", "grove"]

COMPONENT = o("One component of the graph.", {
    "name": s("Logical name; children are <dgd>-<lowercase name>.", 63, min_len=1,
              pattern=r"^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$"),
    "type": s("Component type (immutable). epp is not supported.",
              enum=["frontend", "worker", "prefill", "decode", "planner", "epp"]),
    "replicas": i("Pods. Default: 1.", 0, 1000, "int32"),
    "sharedMemorySize": quantity("/dev/shm size. Default: 8Gi; \"0\" disables."),
    "podTemplate": raw("corev1.PodTemplateSpec; its container main receives the operator's defaults."),
    "env": ENV_LIST,
    "engine": ENGINE,
    "router": ROUTER,
    # Upstream v1beta1 fields dgd-operator implements.
    "compilationCache": o("Upstream: a PVC mounted writable at the engine's compilation cache (vLLM: "
                          "VLLM_CACHE_ROOT, default /root/.cache/vllm).", {
                              "pvcName": s("PersistentVolumeClaim name.", 253, min_len=1),
                              "mountPath": s("Mount path (required unless vLLM).", 4096),
                          }, required=["pvcName"]),
    "globalDynamoNamespace": b("Upstream: run in the Dynamo namespace \"dynamo\" instead of <namespace>-<dgd>."),
    "scalingAdapter": {"type": "object", "description": "Upstream: present (even as {}), the operator creates the "
                       "DynamoGraphDeploymentScalingAdapter <dgd>-<lowercase name>, which then owns the "
                       "component's replicas (kubectl scale, HPA, KEDA, the planner)."},
    # Upstream v1beta1 fields with upstream's types, refused with a message.
    **{f: schema for f, (schema, _) in UPSTREAM_REFUSED.items()},
    "experimental": experimental("Upstream experimental features. Refused.", COMPONENT_EXPERIMENTAL),
}, required=["name"], rules=[
    ("!has(self.type) || self.type != 'epp'",
     "epp components are not supported by dgd-operator (supported: frontend, worker, prefill, decode, planner): "
     "remove the component (clients reach the frontend Service)",
     ".type"),
    ("!has(oldSelf.type) || (has(self.type) && self.type == oldSelf.type)", "type is immutable", ".type"),
    # Upstream's rule: the adapter owns the replicas of a component that sets scalingAdapter.
    ("!has(self.scalingAdapter) || (has(self.replicas) ? self.replicas : 1) == "
     "(has(oldSelf.replicas) ? oldSelf.replicas : 1)",
     "cannot be modified directly when scaling adapter is enabled; scale or update the related "
     "DynamoGraphDeploymentScalingAdapter instead", ".replicas", "FieldValueForbidden"),
    ("!has(self.engine) || !has(self.type) || self.type != 'frontend'",
     "engine settings apply to worker, prefill and decode components; use router on a frontend", ".engine"),
    ("!has(self.router) || !has(self.type) || self.type == 'frontend'",
     "router settings apply to the frontend component only", ".router"),
    ("!has(self.compilationCache) || !has(self.type) || self.type in ['worker', 'prefill', 'decode']",
     "a compilation cache serves an engine: set it on a worker, prefill or decode component", ".compilationCache"),
    # Upstream's own rules.
    ("!has(self.eppConfig) || (has(self.type) && self.type == 'epp')", "eppConfig may only be set when type is epp"),
    ("!has(self.minAvailable) || (has(self.replicas) && self.replicas == 0) || "
     "self.minAvailable <= (has(self.replicas) ? self.replicas : 1)",
     "minAvailable must be less than or equal to replicas unless replicas is 0"),
    ("!has(oldSelf.minAvailable) || (has(self.minAvailable) && self.minAvailable == oldSelf.minAvailable)",
     "minAvailable is immutable after creation"),
] + [("!has(self.%s)" % f, msg, "." + f) for f, (_, msg) in UPSTREAM_REFUSED.items()]
  + experimental_rules(COMPONENT_EXPERIMENTAL))

COMPONENTS = lst("The graph: components keyed by name.", COMPONENT, 25, "map")
COMPONENTS["x-kubernetes-list-map-keys"] = ["name"]
COMPONENTS["x-kubernetes-validations"] = [rule(
    "self.all(c, self.filter(d, d.name.lowerAscii() == c.name.lowerAscii()).size() == 1)",
    "component names must be unique case-insensitively"),
    rule("self.filter(c, has(c.type) && c.type == 'epp').size() <= 1", "at most one component may have type epp")]

SPEC_EXPERIMENTAL = ["kvTransferPolicy", "componentGroups"]

BLACKWELL_RULES = [
    ("moeBackend", "c.engine.moeBackend in ['deep_gemm_mega_moe', 'flashinfer_trtllm', 'flashinfer_mxfp4']",
     "this MoE backend needs Blackwell (B200/GB200), not H200"),
    ("kvCacheDtype", "c.engine.kvCacheDtype in ['nvfp4_ds_mla', 'nvfp4']",
     "this KV-cache dtype needs Blackwell (B200/GB200), not H200"),
]
ON_H200 = "has(self.placement) && has(self.placement.gpu) && self.placement.gpu == 'H200'"
# A rule reports at a fixed path: the components list, not the item, for the per-component ones.
SPEC_RULES = [
    ("!(%s) || !has(self.components) || self.components.all(c, !has(c.engine) || !has(c.engine.%s) || !(%s))"
     % (ON_H200, field, cond), msg, ".components")
    for field, cond, msg in BLACKWELL_RULES
] + [
    ("!(%s) || !has(self.components) || self.components.all(c, !has(c.engine) || !has(c.engine.attention) || "
     "((!has(c.engine.attention.backend) || !(c.engine.attention.backend in ['FLASHMLA_MEGA_ATTN_DSV41', 'CUTLASS_MLA'])) && "
     "(!has(c.engine.attention.indexerKvDtype) || c.engine.attention.indexerKvDtype != 'mxfp4')))" % ON_H200,
     "FLASHMLA mega attention, CUTLASS MLA and the MXFP4 sparse indexer need Blackwell (B200/GB200), not H200",
     ".components"),
    ("!(has(self.backendFramework) && self.backendFramework == 'sglang' && has(self.placement) && "
     "has(self.placement.gpu) && self.placement.gpu != 'GB200' && "
     "(has(self.recipe) || (has(self.components) && self.components.exists(c, has(c.engine)))))",
     "there is no SGLang recipe for B200 or H200: SGLang is available on GB200 only", ".placement.gpu"),
    ("!(has(self.placement) && has(self.placement.rdma) && has(self.placement.rdma.nicSelection) && "
     "self.placement.rdma.nicSelection in ['sriov', 'pcieMap']) || "
     "((!has(self.env) || !self.env.exists(e, e.name == 'UCX_NET_DEVICES')) && (!has(self.components) || "
     "self.components.all(c, !has(c.env) || !c.env.exists(e, e.name == 'UCX_NET_DEVICES'))))",
     "a static UCX_NET_DEVICES overrides the NIC each pod selects (placement.rdma.nicSelection): remove it"),
    ("!has(self.priorityClassName)", "priorityClassName applies to Grove only; not supported by dgd-operator",
     ".priorityClassName"),
    ("!has(self.topologyConstraint)", "topologyConstraint applies to Grove only; not supported by dgd-operator",
     ".topologyConstraint"),
    ("!has(self.providerOverride)", "providerOverride applies to Grove only; not supported by dgd-operator",
     ".providerOverride"),
] + experimental_rules(SPEC_EXPERIMENTAL)

# Upstream's rule: a restart is requested by changing spec.restart.id on a live graph.
SPEC_RESTART_ON_CREATE = {
    "rule": "oldSelf.hasValue() || !has(self.restart)", "optionalOldSelf": True,
    "message": "spec.restart must be unset on create; set spec.restart.id after creation to request a restart"}

# Upstream's Restart: a new id rolls the components' pods (docs/operations.md "Restarts").
RESTART_STRATEGY = o("How the components restart.", {
    "type": s("Sequential (one component after the other, in order) or Parallel (all at once).",
              enum=["Sequential", "Parallel"]),
    "order": lst("Sequential only: every component name, in the order they restart (default: alphabetical).",
                 s("A component name.", 253), 25),
})
RESTART_STRATEGY["properties"]["type"]["default"] = "Sequential"
RESTART = o("Restart request: setting or changing id restarts the graph's pods.", {
    "id": s("Restart id; a new value requests a restart.", 253, min_len=1),
    "strategy": RESTART_STRATEGY,
}, required=["id"])

SMOKE_TEST = o("Serving check: once the graph is Ready the operator sends one chat completion to the frontend "
               "and reports the Serving condition (docs/troubleshooting.md). Not part of upstream's API.", {
    "enabled": b("Run the check. The catalog recipes set true; unset: true when spec.recipe is set, else false."),
    "maxTokens": i("max_tokens of the request (default 512). Flash models reason first: too small a budget "
                   "ends with content null and finish_reason length.", 1, 1048576),
    "timeoutSeconds": i("Deadline for the answer (default 60).", 1, 3600),
    "prompt": s("User message (default 'Reply with exactly: READY').", 4096, min_len=1),
})

SPEC = o("Desired state of the graph.", {
    "recipe": s("Catalog recipe used as the base, e.g. deepseek-v4.1-flash/vllm/disagg-h200-agentic.", 253,
                pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-a-z0-9]*[a-z0-9])?$"),
    "backendFramework": s("Inference engine.", enum=["vllm", "sglang", "trtllm"]),
    "env": ENV_LIST,
    "annotations": smap("Annotations propagated to every child."),
    "labels": smap("Labels propagated to every child."),
    "model": MODEL,
    "placement": PLACEMENT,
    "smokeTest": SMOKE_TEST,
    "components": COMPONENTS,
    "restart": RESTART,
    "priorityClassName": s("Upstream (Grove only): rejected.", 253),
    "topologyConstraint": raw("Upstream (Grove only): rejected."),
    "providerOverride": raw("Upstream (Grove only): rejected."),
    "experimental": experimental("Upstream experimental features. Refused.", SPEC_EXPERIMENTAL),
}, rules=SPEC_RULES)
SPEC["x-kubernetes-validations"].append(SPEC_RESTART_ON_CREATE)

# metadata.name is only reachable from the root. Children are <dgd>-<lowercase component>,
# Service names are DNS-1035 labels: both limits are checked at admission.
ROOT_RULES = [
    ("!has(self.metadata.name) || self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
     "metadata.name must be a DNS-1035 label (lower-case letters, digits, '-', starting with a letter): "
     "it prefixes the children's Service names"),
    ("!has(self.metadata.name) || self.metadata.name.size() <= 63", "metadata.name must be at most 63 characters"),
    ("!has(self.metadata.name) || !has(self.spec.components) || self.spec.components.all(c, self.metadata.name.size() + 1 + c.name.size() <= 63)",
     "<metadata.name>-<component name> must fit 63 characters (the children's names): shorten the DGD or "
     "component name", ".spec.components"),
]

CONDITION = o("A status condition (metav1.Condition).", {
    "type": s("Condition type, e.g. Ready, SpecValid.", 316),
    "status": s("True, False or Unknown.", enum=["True", "False", "Unknown"]),
    "reason": s("Machine-readable reason (CamelCase).", 1024),
    "message": s("Human-readable message.", 32768),
    "lastTransitionTime": {"type": "string", "format": "date-time", "description": "When the status last changed."},
    "observedGeneration": i("Generation the condition was computed for.", 0),
}, required=["type", "status"])
CONDITIONS = lst("Conditions: Ready, SpecValid, and others.", CONDITION, 32, "map")
CONDITIONS["x-kubernetes-list-map-keys"] = ["type"]

STATUS = o("Observed state, written by the operator.", {
    "observedGeneration": i("metadata.generation the status describes.", 0),
    "state": s("Summary state.", enum=["initializing", "pending", "successful", "failed"]),
    "backendFramework": s("Inference engine the graph runs: spec.backendFramework, or the recipe's.",
                          enum=["vllm", "sglang", "trtllm"]),
    "conditions": CONDITIONS,
    "restart": o("Progress of the latest spec.restart.", {
        "observedID": s("The spec.restart.id this describes.", 253),
        "phase": s("Pending, Restarting, Completed, Failed or Superseded (a rollout of the workers took its place).",
                   64),
        "inProgress": lst("Components restarting now.", s("A component name.", 253), 25),
    }),
    "components": {"type": "object", "description": "Per component replica counts.",
                   "additionalProperties": o("One component's rollout.", {
                       "componentKind": s("Kind of the workload, Deployment.", 64),
                       "componentNames": lst("Workload names.", s("A name.", 253), 16),
                       "replicas": i("Replicas.", 0, None, "int32"),
                       "updatedReplicas": i("Replicas on the current template.", 0, None, "int32"),
                       "readyReplicas": i("Ready replicas.", 0, None, "int32"),
                       "availableReplicas": i("Available replicas.", 0, None, "int32"),
                   })},
})
STATUS["x-kubernetes-preserve-unknown-fields"] = True

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "dynamographdeployments.nvidia.com",
                 "annotations": {"helm.sh/resource-policy": "keep"}},
    "spec": {
        "group": "nvidia.com",
        "names": {"kind": "DynamoGraphDeployment", "listKind": "DynamoGraphDeploymentList",
                  "plural": "dynamographdeployments", "singular": "dynamographdeployment",
                  "shortNames": ["dgd"], "categories": ["all", "dynamo"]},
        "scope": "Namespaced",
        "versions": [{
            "name": "v1beta1",
            "served": True,
            "storage": True,
            "subresources": {"status": {}},
            # `kubectl get dgd` as cert-manager's READY / STATUS: the Ready condition, why, whether
            # the model answers, the engine (from status: a recipe DGD names none in its spec);
            # `-o wide` adds the recipe and the Ready message.
            "additionalPrinterColumns": [
                {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status',
                 "description": "Every component rolled out and ready"},
                {"name": "Reason", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].reason',
                 "description": "Why Ready has its status, e.g. AllComponentsReady, RolloutInProgress, InvalidSpec"},
                {"name": "Serving", "type": "string",
                 "jsonPath": '.status.conditions[?(@.type=="Serving")].status',
                 "description": "The frontend answered the smoke request"},
                {"name": "Backend", "type": "string", "jsonPath": ".status.backendFramework",
                 "description": "Inference engine, from spec.backendFramework or the recipe"},
                {"name": "Recipe", "type": "string", "jsonPath": ".spec.recipe", "priority": 1,
                 "description": "Catalog recipe the graph is based on"},
                {"name": "Status", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].message',
                 "priority": 1, "description": "The Ready condition's message"},
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
            ],
            "schema": {"openAPIV3Schema": o(
                "DynamoGraphDeployment: a Dynamo serving graph (frontend, workers) with typed engine, router, "
                "model and placement settings.", {
                    "apiVersion": s("API version: nvidia.com/v1beta1.", 253),
                    "kind": s("Kind: DynamoGraphDeployment.", 253),
                    "metadata": {"type": "object"},
                    "spec": SPEC,
                    "status": STATUS,
                }, required=["spec"], rules=ROOT_RULES)},
        }],
    },
}

# Upstream's nvidia.com/v1alpha1 is served only to refuse it with the command that converts
# it (docs/architecture.md, "Upstream's v1alpha1"): no object is ever stored in it.
V1ALPHA1 = {
    "name": "v1alpha1",
    "served": True,
    "storage": False,
    "deprecated": True,
    "deprecationWarning": "nvidia.com/v1alpha1 DynamoGraphDeployment is not served by dgd-operator; convert it "
                          "with `kubectl dgd convert -f FILE`",
    "schema": {"openAPIV3Schema": {
        "type": "object", "description": "Upstream's v1alpha1 DynamoGraphDeployment: refused at admission.",
        "properties": {"apiVersion": s("API version.", 253), "kind": s("Kind.", 253), "metadata": {"type": "object"}},
        "x-kubernetes-preserve-unknown-fields": True,
        "x-kubernetes-validations": [rule(
            "self.apiVersion != 'nvidia.com/v1alpha1'",
            "nvidia.com/v1alpha1 is not served by dgd-operator: convert the file to nvidia.com/v1beta1 with "
            "`kubectl dgd convert -f FILE` (or `dgdctl convert -f FILE`) and apply the output")]}},
}
CRD["spec"]["versions"].append(V1ALPHA1)

# DynamoGraphDeploymentScalingAdapter: upstream's v1beta1 type (api/v1beta1/
# dynamographdeploymentscalingadapter_types.go). The operator creates one per component that sets
# scalingAdapter and seeds spec.replicas once; autoscalers write spec.replicas through /scale.
ADAPTER_NAME_RULE = {
    # An adapter's name is its component's: one adapter per component, and the name an HPA or
    # the planner targets (<dgd>-<lowercase component>) is the one that scales it.
    "rule": "self.metadata.name == self.spec.dgdRef.name + '-' + self.spec.dgdRef.componentName.lowerAscii()",
    "messageExpression": "'must be named ' + self.spec.dgdRef.name + '-' + "
                         "self.spec.dgdRef.componentName.lowerAscii() + ' (<dgdRef.name>-<lowercase "
                         "dgdRef.componentName>): a component has one adapter, named after it'",
    "message": "the adapter must be named <dgdRef.name>-<lowercase dgdRef.componentName>: a component has one "
               "adapter, named after it",
    "fieldPath": ".spec.dgdRef",
}

ADAPTER_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "dynamographdeploymentscalingadapters.nvidia.com",
                 "annotations": {"helm.sh/resource-policy": "keep"}},
    "spec": {
        "group": "nvidia.com",
        "names": {"kind": "DynamoGraphDeploymentScalingAdapter", "listKind": "DynamoGraphDeploymentScalingAdapterList",
                  "plural": "dynamographdeploymentscalingadapters", "singular": "dynamographdeploymentscalingadapter",
                  "shortNames": ["dgdsa"], "categories": ["dynamo"]},
        "scope": "Namespaced",
        "versions": [{
            "name": "v1beta1",
            "served": True,
            "storage": True,
            "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                     "statusReplicasPath": ".status.replicas",
                                                     "labelSelectorPath": ".status.selector"}},
            "additionalPrinterColumns": [
                {"name": "DGD", "type": "string", "jsonPath": ".spec.dgdRef.name",
                 "description": "DynamoGraphDeployment name"},
                {"name": "COMPONENT", "type": "string", "jsonPath": ".spec.dgdRef.componentName",
                 "description": "Component name"},
                {"name": "REPLICAS", "type": "integer", "jsonPath": ".status.replicas",
                 "description": "Current replicas"},
                {"name": "AGE", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
            ],
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "description": "DynamoGraphDeploymentScalingAdapter: the scale subresource of one component of a "
                               "DynamoGraphDeployment, for kubectl scale, HorizontalPodAutoscalers, KEDA and the "
                               "planner.",
                "properties": {
                    "apiVersion": s("API version: nvidia.com/v1beta1.", 253),
                    "kind": s("Kind: DynamoGraphDeploymentScalingAdapter.", 253),
                    "metadata": {"type": "object"},
                    "spec": o("Desired replicas of the component.", {
                        "replicas": i("Desired replicas of the component (the operator seeds it from the DGD once; "
                                      "the scale subresource writes it).", 0, None, "int32"),
                        "dgdRef": o("The component this adapter scales.", {
                            "name": s("Name of the DynamoGraphDeployment (same namespace).", 253, min_len=1),
                            "componentName": s("spec.components[].name, as written.", 63, min_len=1),
                        }, required=["name", "componentName"]),
                    }, required=["replicas", "dgdRef"]),
                    "status": o("Written by the operator.", {
                        "replicas": i("Replicas the component's Deployment runs at (the scale subresource's "
                                      "status.replicas).", 0, None, "int32"),
                        "selector": s("Label selector of the component's pods (the scale subresource's "
                                      "status.selector, for HPA utilisation).", 1024),
                        "lastScaleTime": {"type": "string", "format": "date-time",
                                          "description": "When the operator last applied a changed replica count."},
                    }),
                },
                "required": ["spec"],
                "x-kubernetes-validations": [ADAPTER_NAME_RULE],
            }},
        }],
    },
}


def write(name, crd, header):
    path = os.path.join(HERE, name)
    with open(path, "w", encoding="utf-8") as out:
        out.write(header)
        yaml.safe_dump(crd, out, sort_keys=False, width=120, allow_unicode=True)
    print("wrote", path)


def main():
    write("nvidia.com_dynamographdeployments.yaml", CRD,
          "# Generated by crds/generate.py from the model in include/dgd/api/dgd.h: edit the generator.\n")
    write("nvidia.com_dynamographdeploymentscalingadapters.yaml", ADAPTER_CRD,
          "# Generated by crds/generate.py (upstream's v1beta1 DynamoGraphDeploymentScalingAdapter): edit the "
          "generator.\n")


if __name__ == "__main__":
    main()
