// kube-sim: sets of field paths, as structured-merge-diff's fieldpath.Set, and their
// FieldsV1 form in metadata.managedFields.
//
// A set is a trie of path elements: `f:<field>` (struct field or map key),
// `k:<json of the key fields>` (associative-list item), `v:<json value>` (set item),
// `i:<index>` (atomic-list position, only in stored sets). A node is a member when the
// path to it is in the set; FieldsV1 writes a member with children as a "." key.
// Pure values; thread-compatible.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace kubesim::apply {

struct FieldSet {
  bool member = false;
  std::map<std::string, FieldSet> children;

  bool empty() const;
  const FieldSet* child(const std::string& element) const;
  // Drops children that hold no member.
  void compact();
};

FieldSet unite(const FieldSet& a, const FieldSet& b);
FieldSet unite(FieldSet&& a, const FieldSet& b);
FieldSet difference(const FieldSet& a, const FieldSet& b);
FieldSet intersect(const FieldSet& a, const FieldSet& b);

nlohmann::json to_fields_v1(const FieldSet& s);
FieldSet from_fields_v1(const nlohmann::json& fields_v1);

// ".spec.containers[name=\"c\"].image" for a list of path elements, as
// structured-merge-diff prints paths in conflict messages.
std::string path_string(const std::vector<std::string>& elements);
// The printed paths of every member, in trie order.
std::vector<std::string> member_paths(const FieldSet& s);

}  // namespace kubesim::apply
