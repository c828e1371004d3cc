// The operator's hand-written field tables (dgd/object/field_schema.h, which its
// holds_desired and strategic merge use) against the merge types kube-sim reads from
// Kubernetes' OpenAPI document: every list and map the operator declares for the kinds it
// writes must merge the same way, or the operator's "already holds it" answers differ from
// what an apply does (a child rewritten at every pass, or a change never written).
#include "kubesim/apply/merge_schema.h"

#include "dgd/object/field_schema.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kubesim::apply {
namespace {

using dgd::object::FieldSchema;

std::string list_name(ListType t) {
  return t == ListType::map ? "map" : t == ListType::set ? "set" : "atomic";
}

std::string list_name(FieldSchema::ListType t) {
  return t == FieldSchema::ListType::kMap ? "map" : t == FieldSchema::ListType::kSet ? "set" : "atomic";
}

// Walks the operator's declared tree and reports every node whose semantics differ.
void compare(const FieldSchema& op, const TypeRef& doc, const std::string& path, std::vector<std::string>& out,
             int depth = 0) {
  if (depth > 20) return;
  if (!op.list_keys.empty() || op.list_type != FieldSchema::ListType::kAtomic || op.elements) {
    if (doc.allows_list()) {
      if (list_name(op.list_type) != list_name(doc.list_type()) || op.list_keys != doc.list_keys())
        out.push_back(path + ": operator " + list_name(op.list_type) + " list, document " +
                      list_name(doc.list_type()) + " list");
      if (op.patch_merge != doc.patch_merge() || op.patch_merge_key != doc.patch_merge_key)
        out.push_back(path + ": strategic merge key operator '" + op.patch_merge_key + "', document '" +
                      doc.patch_merge_key + "'");
      if (op.elements) compare(*op.elements, doc.item(), path + "[]", out, depth + 1);
      return;
    }
  }
  if (doc.allows_map()) {
    const bool op_atomic = op.map_type == FieldSchema::MapType::kAtomic;
    if (op_atomic != doc.map_atomic())
      out.push_back(path + ": operator " + (op_atomic ? "atomic" : "granular") + " map, document " +
                    (doc.map_atomic() ? "atomic" : "granular"));
  }
  if (op.quantity != doc.quantity()) out.push_back(path + ": quantity differs");
  for (const auto& [name, child] : op.fields)
    if (child) compare(*child, doc.field(name), path + "." + name, out, depth + 1);
  if (op.is_map && op.elements) compare(*op.elements, doc.field("some-key"), path + ".*", out, depth + 1);
}

TEST(OperatorFieldTables, AgreeWithTheDocumentForTheKindsTheOperatorWrites) {
  struct Kind {
    const char* group;
    const char* version;
    const char* kind;
  } kinds[] = {{"", "v1", "Pod"},       {"", "v1", "Service"},       {"", "v1", "ConfigMap"},
               {"", "v1", "Secret"},    {"", "v1", "ServiceAccount"}, {"", "v1", "PersistentVolumeClaim"},
               {"apps", "v1", "Deployment"}, {"apps", "v1", "StatefulSet"}, {"batch", "v1", "Job"},
               {"rbac.authorization.k8s.io", "v1", "Role"}, {"rbac.authorization.k8s.io", "v1", "RoleBinding"}};
  std::vector<std::string> differences;
  for (const Kind& k : kinds) {
    const FieldSchema* op = dgd::object::builtin_schema(k.group, k.kind);
    ASSERT_NE(op, nullptr) << k.kind;
    auto doc = builtin_type(k.group, k.version, k.kind);
    ASSERT_TRUE(doc.has_value()) << k.kind;
    compare(*op, *doc, k.kind, differences);
  }
  for (const std::string& d : differences) ADD_FAILURE() << d;
}

}  // namespace
}  // namespace kubesim::apply
