// Cases of the operator's "does the live object hold what we want" test on a Deployment
// (holds_desired / first_difference): shared by its own unit test (tests/unit/kube) and by
// kube-sim's cross-check, which applies each desired state with kube-sim's server-side
// apply and expects a change exactly when holds_desired says the object does not hold it.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

namespace dgd::object::desired_cases {

struct DesiredCase {
  const char* name;
  const char* live_spec;     // Deployment .spec of the live object
  const char* desired_spec;  // Deployment .spec the operator wants
  bool holds;
  const char* difference;  // first_difference when !holds
  bool check_against_apply = true;
};

inline void PrintTo(const DesiredCase& c, std::ostream* os) { *os << c.name; }

inline nlohmann::json deployment(const char* spec) {
  nlohmann::json d = nlohmann::json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w","namespace":"n"}})");
  d["spec"] = nlohmann::json::parse(spec);
  return d;
}

inline const char* const kLive = R"({"replicas":2,"revisionHistoryLimit":10,"progressDeadlineSeconds":600,
  "selector":{"matchLabels":{"app":"w"}},
  "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},
  "template":{"metadata":{"labels":{"app":"w"}},"spec":{
    "containers":[{"name":"main","image":"img:1","args":["--a","--b"],"imagePullPolicy":"IfNotPresent",
                   "terminationMessagePath":"/dev/termination-log",
                   "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
                   "ports":[{"containerPort":8000,"name":"http","protocol":"TCP"}],
                   "resources":{"limits":{"cpu":"4","memory":"1Gi","nvidia.com/gpu":"1"}}},
                  {"name":"sidecar","image":"s:1"}],
    "volumes":[{"name":"shm","emptyDir":{"medium":"Memory"}},{"name":"scratch","emptyDir":{}}],
    "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],
    "nodeSelector":{"gpu":"h100","zone":"a"},
    "dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler"}}})";

// The cases; check_against_apply is false where the case is about storage rules of typed
// kinds that a raw apply result does not show.
inline std::vector<DesiredCase> deployment_cases() {
  return {
        DesiredCase{"identical", kLive, kLive, true, ""},
        DesiredCase{"server_defaults_only_in_live", kLive,
                    R"({"replicas":2,"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},
                        "spec":{"containers":[{"name":"main","image":"img:1","args":["--a","--b"]}]}}})",
                    true, ""},
        DesiredCase{"replicas_differ", kLive, R"({"replicas":3})", false, ".spec.replicas"},
        DesiredCase{"float_equal_to_int", kLive, R"({"replicas":2.0})", true, ""},
        DesiredCase{"string_is_not_number", kLive, R"({"replicas":"2"})", false, ".spec.replicas", false},
        DesiredCase{"image_in_keyed_container", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"main","image":"img:2"}]}}})", false,
                    ".spec.template.spec.containers[name=\"main\"].image"},
        DesiredCase{"missing_container", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"extra","image":"x"}]}}})", false,
                    ".spec.template.spec.containers[name=\"extra\"]"},
        DesiredCase{"containers_subset_in_order", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"sidecar"}]}}})", true, ""},
        DesiredCase{"containers_in_other_order", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"sidecar"},{"name":"main"}]}}})", false,
                    ".spec.template.spec.containers[name=\"main\"]"},
        DesiredCase{"env_value_differs", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"main","env":[{"name":"B","value":"3"}]}]}}})",
                    false, ".spec.template.spec.containers[name=\"main\"].env[name=\"B\"].value"},
        DesiredCase{"port_without_defaulted_protocol", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"main","ports":[{"containerPort":8000,"name":"http"}]}]}}})",
                    true, ""},
        DesiredCase{"quantities_compare_canonically", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"main",
                        "resources":{"limits":{"cpu":4,"memory":"1024Mi","nvidia.com/gpu":"1000m"}}}]}}})",
                    true, ""},
        DesiredCase{"equal_value_other_canonical_string", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"main","resources":{"limits":{"memory":"1073741824"}}}]}}})",
                    false, ".spec.template.spec.containers[name=\"main\"].resources.limits.memory"},
        DesiredCase{"atomic_args_same", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"main","args":["--a","--b"]}]}}})", true, ""},
        DesiredCase{"atomic_args_subset_is_a_change", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"main","args":["--a"]}]}}})", false,
                    ".spec.template.spec.containers[name=\"main\"].args"},
        DesiredCase{"atomic_args_order_matters", kLive,
                    R"({"template":{"spec":{"containers":[{"name":"main","args":["--b","--a"]}]}}})", false,
                    ".spec.template.spec.containers[name=\"main\"].args"},
        DesiredCase{"atomic_tolerations_need_every_field", kLive,
                    R"({"template":{"spec":{"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists"}]}}})", false,
                    ".spec.template.spec.tolerations"},
        DesiredCase{"atomic_node_selector_subset_is_a_change", kLive,
                    R"({"template":{"spec":{"nodeSelector":{"gpu":"h100"}}}})", false,
                    ".spec.template.spec.nodeSelector"},
        DesiredCase{"granular_labels_subset", kLive, R"({"template":{"metadata":{"labels":{"app":"w"}}}})", true, ""},
        DesiredCase{"empty_dir_present", kLive,
                    R"({"template":{"spec":{"volumes":[{"name":"scratch","emptyDir":{}}]}}})", true, ""},
        DesiredCase{"empty_dir_subset_of_configured", kLive,
                    R"({"template":{"spec":{"volumes":[{"name":"shm","emptyDir":{}}]}}})", true, ""},
        DesiredCase{"empty_dir_missing_in_live",
                    R"({"template":{"spec":{"volumes":[{"name":"scratch"}]}}})",
                    R"({"template":{"spec":{"volumes":[{"name":"scratch","emptyDir":{}}]}}})", false,
                    ".spec.template.spec.volumes[name=\"scratch\"].emptyDir"},
        DesiredCase{"null_means_absent", kLive, R"({"paused":null})", true, ""},
        DesiredCase{"null_but_present", kLive, R"({"revisionHistoryLimit":null})", false, ".spec.revisionHistoryLimit"},
        DesiredCase{"type_mismatch", kLive, R"({"strategy":"Recreate"})", false, ".spec.strategy"},
        // Storage rules of typed kinds (not what a raw apply result shows).
        DesiredCase{"empty_map_absent_in_typed_kind", R"({"template":{"spec":{}}})",
                    R"({"template":{"spec":{"nodeSelector":{}}}})", true, "", false},
        DesiredCase{"empty_list_absent_in_typed_kind", R"({"template":{"spec":{}}})",
                    R"({"template":{"spec":{"tolerations":[]}}})", true, "", false},
        DesiredCase{"empty_struct_absent_is_a_change", R"({"template":{"spec":{}}})",
                    R"({"template":{"spec":{"securityContext":{}}}})", false, ".spec.template.spec.securityContext",
                    false}};
}

}  // namespace dgd::object::desired_cases
