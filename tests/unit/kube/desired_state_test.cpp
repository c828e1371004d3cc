// holds_desired: the operator's "skip the write" test. Each case is also
// checked against server_side_apply: when the live object holds the desired
// state, a forced apply of it must not change the object, and vice versa.
#include "dgd/kube/desired_state.h"

#include <gtest/gtest.h>

#include "dgd/kube/server_side_apply.h"

namespace dgd::kube {
namespace {

using nlohmann::json;

struct DesiredCase {
  const char* name;
  const char* live_spec;     // Deployment .spec of the live object
  const char* desired_spec;  // Deployment .spec the operator wants
  bool holds;
  const char* difference;  // first_difference when !holds
  bool check_against_apply = true;
};

void PrintTo(const DesiredCase& c, std::ostream* os) { *os << c.name; }

json deployment(const char* spec) {
  json d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w","namespace":"n"}})");
  d["spec"] = json::parse(spec);
  return d;
}

const char* kLive = R"({"replicas":2,"revisionHistoryLimit":10,"progressDeadlineSeconds":600,
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

class HoldsDesired : public ::testing::TestWithParam<DesiredCase> {};

TEST_P(HoldsDesired, MatchesWhatAnApplyWouldDo) {
  const DesiredCase& c = GetParam();
  const FieldSchema& schema = *builtin_schema("apps", "Deployment");
  json live = deployment(c.live_spec);
  json desired = deployment(c.desired_spec);
  EXPECT_EQ(holds_desired(live, desired, schema), c.holds);
  auto diff = first_difference(live, desired, schema);
  if (c.holds) {
    EXPECT_FALSE(diff.has_value()) << *diff;
  } else {
    ASSERT_TRUE(diff.has_value());
    EXPECT_EQ(*diff, c.difference);
  }
  if (!c.check_against_apply) return;
  ApplyOptions o;
  o.manager = "dgd-operator";
  o.force = true;
  o.time = "t";
  ApplyResult r = server_side_apply(live, desired, schema, o);
  ASSERT_TRUE(r.ok());
  r.object["metadata"].erase("managedFields");
  EXPECT_EQ(r.object == live, c.holds) << "apply result: " << r.object["spec"].dump();
}

INSTANTIATE_TEST_SUITE_P(
    Deployment, HoldsDesired,
    ::testing::Values(
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
                    false}));

TEST(HoldsDesiredMetadata, ServerManagedFieldsAreIgnoredButLabelsAreNot) {
  const FieldSchema& schema = *builtin_schema("apps", "Deployment");
  json live = deployment("{}");
  live["metadata"]["uid"] = "u";
  live["metadata"]["resourceVersion"] = "12";
  live["metadata"]["generation"] = 3;
  live["metadata"]["labels"] = {{"a", "1"}};
  json desired = deployment("{}");
  desired["metadata"]["resourceVersion"] = "1";
  desired["metadata"]["generation"] = 1;
  desired["metadata"]["managedFields"] = json::array({json::object()});
  EXPECT_TRUE(holds_desired(live, desired, schema));
  desired["metadata"]["labels"] = {{"a", "2"}};
  EXPECT_EQ(first_difference(live, desired, schema), ".metadata.labels.a");
  desired["metadata"]["labels"] = json::object();
  EXPECT_TRUE(holds_desired(live, desired, schema));
}

TEST(HoldsDesiredMetadata, OwnerReferencesAndFinalizers) {
  const FieldSchema& schema = *builtin_schema("", "Service");
  json live = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s",
      "finalizers":["a","b"],
      "ownerReferences":[{"apiVersion":"nvidia.com/v1alpha1","kind":"DynamoGraphDeployment","name":"g","uid":"u1",
                          "controller":true,"blockOwnerDeletion":true}]},
      "spec":{"ports":[{"port":8000,"protocol":"TCP","targetPort":8000,"name":"http"}],"clusterIP":"10.0.0.1"}})");
  json desired = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s","finalizers":["b"],
      "ownerReferences":[{"apiVersion":"nvidia.com/v1alpha1","kind":"DynamoGraphDeployment","name":"g","uid":"u1",
                          "controller":true,"blockOwnerDeletion":true}]},
      "spec":{"ports":[{"port":8000,"targetPort":8000,"name":"http"}]}})");
  EXPECT_TRUE(holds_desired(live, desired, schema));
  desired["metadata"]["ownerReferences"][0]["uid"] = "u2";  // the DGD was re-created
  EXPECT_EQ(first_difference(live, desired, schema), ".metadata.ownerReferences[uid=\"u2\"]");
}

TEST(HoldsDesiredCustomResource, EmptyObjectsAndListsAreStored) {
  FieldSchema cr = FieldSchema::custom_resource(nullptr);
  json live = json::parse(R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"ComputeDomain",
      "metadata":{"name":"cd"},"spec":{"numNodes":2}})");
  json desired = live;
  EXPECT_TRUE(holds_desired(live, desired, cr));
  desired["spec"]["channel"] = json::object();
  EXPECT_EQ(first_difference(live, desired, cr), ".spec.channel");
  desired = live;
  desired["spec"]["items"] = json::array();
  EXPECT_FALSE(holds_desired(live, desired, cr));
  desired = live;
  desired["spec"]["numNodes"] = 2.0;
  EXPECT_TRUE(holds_desired(live, desired, cr));
  desired["spec"]["numNodes"] = "2";
  EXPECT_FALSE(holds_desired(live, desired, cr));
}

TEST(HoldsDesiredCustomResource, SchemaListTypesApply) {
  FieldSchema cr = FieldSchema::custom_resource(json::parse(R"({"type":"object","properties":{"spec":{"type":"object",
      "properties":{"services":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                                "items":{"type":"object"}},
                    "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}}})"));
  json live = json::parse(R"({"spec":{"services":[{"name":"a","replicas":1,"defaulted":true},{"name":"b"}],
                             "tags":["x","y","z"]}})");
  EXPECT_TRUE(holds_desired(live, json::parse(R"({"spec":{"services":[{"name":"b"}],"tags":["x","z"]}})"), cr));
  EXPECT_FALSE(holds_desired(live, json::parse(R"({"spec":{"tags":["z","x"]}})"), cr));
  EXPECT_FALSE(holds_desired(live, json::parse(R"({"spec":{"services":[{"name":"a","replicas":2}]}})"), cr));
}

}  // namespace
}  // namespace dgd::kube
