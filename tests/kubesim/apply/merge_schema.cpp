// Builds structured-merge-diff types from OpenAPI schemas, as kube-openapi's
// schemaconv (openapi.go: parseSchema, parseObject, parseList, makeOpenAPIRef;
// smd.go: getListElementRelationship, getMapElementRelationship) does.
#include "kubesim/apply/merge_schema.h"

#include "kubesim/openapi/swagger_document.h"
#include "kubesim/resource_registry.h"

#include <deque>
#include <mutex>

namespace kubesim::apply {

using nlohmann::json;

namespace {

const char* const kQuantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const char* const kRawExtension = "io.k8s.apimachinery.pkg.runtime.RawExtension";
const char* const kObjectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

// Defaults of list-map keys that the Go types declare (`+default=` markers, served in the
// API server's own OpenAPI models) but the published v2 document leaves out: without them
// a container port applied without `protocol` could not be keyed, while the real server
// keys it as protocol "TCP".
struct KeyDefault {
  const char* definition;
  const char* field;
  const char* value;
};
const KeyDefault kKeyDefaultsMissingFromDocument[] = {
    {"io.k8s.api.core.v1.ContainerPort", "protocol", "TCP"},
    {"io.k8s.api.core.v1.ServicePort", "protocol", "TCP"},
    {"io.k8s.api.core.v1.LocalObjectReference", "name", ""},
};

std::string text(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_boolean() && it->get<bool>();
}

// __untyped_atomic_ and __untyped_deduced_ of schemaconv.
struct CommonAtoms {
  Atom untyped_atomic;
  Atom deduced;
  CommonAtoms() {
    untyped_atomic.name = "__untyped_atomic_";
    untyped_atomic.scalar = untyped_atomic.list = untyped_atomic.map = true;
    untyped_atomic.list_element.atom = &untyped_atomic;
    untyped_atomic.map_atomic = true;
    untyped_atomic.map_values = TypeRef{&untyped_atomic, {}, nullptr, "", ""};
    deduced.name = "__untyped_deduced_";
    deduced.scalar = deduced.list = deduced.map = true;
    deduced.list_element.atom = &untyped_atomic;
    deduced.map_values = TypeRef{&deduced, {}, nullptr, "", ""};
  }
};

const CommonAtoms& common() {
  static const CommonAtoms atoms;
  return atoms;
}

}  // namespace

class TypeGraph {
 public:
  // `definitions`: the named types this graph may build ("definitions" of a document), or
  // null; `base`: a graph whose named types are used when this one lacks them.
  TypeGraph(const json* definitions, std::shared_ptr<const TypeGraph> base)
      : definitions_(definitions), base_(std::move(base)) {}

  const Atom* named(const std::string& name) const {
    if (auto it = named_.find(name); it != named_.end()) return it->second;
    if (base_) return base_->named(name);
    return nullptr;
  }

  // Builds (once) every definition of the document.
  void build_all() {
    if (!definitions_ || !definitions_->is_object()) return;
    for (const auto& [name, def] : definitions_->items()) named_or_build(name);
  }

  Atom& inline_root(const json& schema) {
    Atom& a = atoms_.emplace_back();
    visit(schema, a, false);
    return a;
  }

  Atom& new_atom() { return atoms_.emplace_back(); }

 private:
  const Atom* named_or_build(const std::string& name) {
    if (const Atom* a = named(name)) return a;
    const json* def = nullptr;
    if (definitions_) {
      auto it = definitions_->find(name);
      if (it != definitions_->end()) def = &*it;
    }
    if (!def) return &common().deduced;  // a dangling $ref: nothing known about it
    Atom& a = atoms_.emplace_back();
    a.name = name;
    named_[name] = &a;  // registered before filling: recursive types refer to it
    if (name == kQuantity || name == kRawExtension) {
      a.scalar = true;  // schemaconv hard-codes both as untyped scalars
      a.quantity = name == kQuantity;
      return &a;
    }
    visit(*def, a, false);
    for (const KeyDefault& d : kKeyDefaultsMissingFromDocument) {
      if (name != d.definition) continue;
      if (auto f = a.fields.find(d.field); f != a.fields.end() && f->second.default_value.is_null())
        f->second.default_value = d.value;
    }
    return &a;
  }

  static std::string reference_of(const json& s) {
    std::string ref = text(s, "$ref");
    if (ref.empty()) {
      // A $ref inside a single-element allOf (OpenAPI v3 style).
      auto all = s.find("allOf");
      if (all != s.end() && all->is_array() && all->size() == 1 && (*all)[0].is_object()) ref = text((*all)[0], "$ref");
    }
    auto slash = ref.rfind('/');
    return slash == std::string::npos ? ref : ref.substr(slash + 1);
  }

  static std::optional<bool> map_type(const json& s) {
    std::string t = text(s, "x-kubernetes-map-type");
    if (t == "atomic") return true;
    if (t == "granular") return false;
    return std::nullopt;
  }

  // makeOpenAPIRef, plus the field's strategic-merge metadata and default.
  TypeRef make_ref(const json& s, bool preserve_unknown) {
    TypeRef r;
    if (!s.is_object()) {
      r.atom = &common().deduced;
      return r;
    }
    std::string ref = reference_of(s);
    if (!ref.empty()) {
      r.atom = named_or_build(ref);
      r.map_atomic_override = map_type(s);
    } else {
      Atom& a = atoms_.emplace_back();
      visit(s, a, preserve_unknown);
      r.atom = &a;
    }
    if (auto d = s.find("default"); d != s.end()) r.default_value = *d;
    r.patch_strategy = text(s, "x-kubernetes-patch-strategy");
    r.patch_merge_key = text(s, "x-kubernetes-patch-merge-key");
    return r;
  }

  // visitSpec + parseSchema.
  void visit(const json& s, Atom& a, bool preserve_unknown) {
    if (!s.is_object()) {
      a = common().deduced;
      return;
    }
    if (flag(s, "x-kubernetes-preserve-unknown-fields")) preserve_unknown = true;
    std::string type = text(s, "type");
    if (type.empty()) {
      a.scalar = true;
      parse_list(s, a, preserve_unknown);
      parse_object(s, a, preserve_unknown);
    } else if (type == "object") {
      parse_object(s, a, preserve_unknown);
    } else if (type == "array") {
      parse_list(s, a, preserve_unknown);
    } else {
      a.scalar = true;
    }
  }

  void parse_object(const json& s, Atom& a, bool preserve_unknown) {
    a.map = true;
    auto props = s.find("properties");
    const bool has_props = props != s.end() && props->is_object() && !props->empty();
    if (props != s.end() && props->is_object()) {
      for (const auto& [name, member] : props->items()) a.fields[name] = make_ref(member, preserve_unknown);
    }
    auto extra = s.find("additionalProperties");
    if (extra == s.end() || extra->is_null()) {
      // An object without properties is free-form.
      if (preserve_unknown || !has_props) a.map_values = TypeRef{&common().deduced, {}, nullptr, "", ""};
    } else if (extra->is_object()) {
      a.map_values = make_ref(*extra, preserve_unknown);
    } else if (extra->is_boolean() && extra->get<bool>()) {
      a.map_values = TypeRef{&common().deduced, {}, nullptr, "", ""};
    }
    a.map_atomic = map_type(s).value_or(false);
  }

  // getListElementRelationship.
  void parse_list(const json& s, Atom& a, bool preserve_unknown) {
    a.list = true;
    std::string list_type = text(s, "x-kubernetes-list-type");
    if (!list_type.empty()) {
      if (list_type == "set") {
        a.list_type = ListType::set;
      } else if (list_type == "map") {
        a.list_type = ListType::map;
        auto keys = s.find("x-kubernetes-list-map-keys");
        if (keys != s.end() && keys->is_array()) {
          for (const json& k : *keys)
            if (k.is_string()) a.list_keys.push_back(k.get<std::string>());
        }
        // "missing map keys" is a schema error upstream; without keys it is a set.
        if (a.list_keys.empty()) a.list_type = ListType::set;
      } else {
        a.list_type = ListType::atomic;
      }
    } else {
      std::string strategy = text(s, "x-kubernetes-patch-strategy");
      if (strategy == "merge" || strategy == "merge,retainKeys") {
        std::string key = text(s, "x-kubernetes-patch-merge-key");
        if (key.empty()) {
          a.list_type = ListType::set;
        } else {
          a.list_type = ListType::map;
          a.list_keys = {key};
        }
      }
    }
    auto items = s.find("items");
    if (items != s.end() && items->is_object()) {
      a.list_element = make_ref(*items, preserve_unknown);
    } else {
      a.list_element.atom = &common().untyped_atomic;
    }
  }

  const json* definitions_;
  std::shared_ptr<const TypeGraph> base_;
  std::deque<Atom> atoms_;
  std::map<std::string, const Atom*> named_;
};

namespace {

const std::shared_ptr<const TypeGraph>& document_graph() {
  static const std::shared_ptr<const TypeGraph> graph = [] {
    const json& doc = openapi::swagger();
    auto defs = doc.find("definitions");
    auto g = std::make_shared<TypeGraph>(defs != doc.end() ? &*defs : nullptr, nullptr);
    g->build_all();
    return std::shared_ptr<const TypeGraph>(std::move(g));
  }();
  return graph;
}

const TypeRef& deduced_ref() {
  static const TypeRef ref{&common().deduced, {}, nullptr, "", ""};
  return ref;
}

TypeRef named_ref(const Atom* a) {
  TypeRef r;
  r.atom = a ? a : &common().deduced;
  return r;
}

}  // namespace

bool TypeRef::allows_scalar() const { return atom && atom->scalar; }
bool TypeRef::allows_list() const { return atom && atom->list; }
bool TypeRef::allows_map() const { return atom && atom->map; }
ListType TypeRef::list_type() const { return atom ? atom->list_type : ListType::atomic; }

const std::vector<std::string>& TypeRef::list_keys() const {
  static const std::vector<std::string> kNone;
  return atom ? atom->list_keys : kNone;
}

bool TypeRef::map_atomic() const {
  if (map_atomic_override) return *map_atomic_override;
  return atom && atom->map_atomic;
}

bool TypeRef::quantity() const { return atom && atom->quantity; }

const TypeRef& TypeRef::field(const std::string& name) const {
  if (!atom) return deduced_ref();
  if (auto it = atom->fields.find(name); it != atom->fields.end()) return it->second;
  if (atom->map_values) return *atom->map_values;
  return deduced_ref();  // undeclared: the decoder drops it for built-ins; deduce for the rest
}

bool TypeRef::is_struct_field(const std::string& name) const { return atom && atom->fields.count(name) > 0; }

const TypeRef& TypeRef::item() const { return atom && atom->list_element.atom ? atom->list_element : deduced_ref(); }

std::optional<json> TypeRef::key_default(const std::string& key) const {
  const TypeRef& i = item();
  if (!i.atom) return std::nullopt;
  auto f = i.atom->fields.find(key);
  if (f == i.atom->fields.end() || f->second.default_value.is_null()) return std::nullopt;
  return f->second.default_value;
}

bool TypeRef::patch_merge() const { return patch_strategy == "merge" || patch_strategy == "merge,retainKeys"; }
bool TypeRef::patch_replace() const { return patch_strategy == "replace"; }

TypeRef deduced() { return deduced_ref(); }

std::optional<TypeRef> definition_type(const std::string& name) {
  const Atom* a = document_graph()->named(name);
  if (!a) return std::nullopt;
  return named_ref(a);
}

std::optional<TypeRef> builtin_type(const std::string& group, const std::string& version, const std::string& kind) {
  auto name = openapi::definition_name(group, version, kind);
  if (!name) return std::nullopt;
  return definition_type(*name);
}

RootType custom_resource_type(const json& openapi_v3) {
  auto g = std::make_shared<TypeGraph>(nullptr, document_graph());
  Atom* top = nullptr;
  if (openapi_v3.is_object()) {
    top = &g->inline_root(openapi_v3);
  } else {
    top = &g->new_atom();
    *top = *deduced().atom;
    top->name.clear();
  }
  // The apiextensions server publishes metadata as ObjectMeta and apiVersion/kind as strings.
  top->map = true;
  top->fields["metadata"] = named_ref(document_graph()->named(kObjectMeta));
  Atom& str = g->new_atom();
  str.scalar = true;
  top->fields["apiVersion"] = named_ref(&str);
  top->fields["kind"] = named_ref(&str);
  TypeRef root = named_ref(top);
  return {std::move(g), root};
}

RootType type_of(const ResourceType& t) {
  if (!t.custom) {
    if (auto r = builtin_type(t.group, t.version, t.kind)) return {document_graph(), *r};
    static const RootType kUndocumented = custom_resource_type(nullptr);
    return kUndocumented;
  }
  static std::mutex mu;
  static std::map<const void*, std::pair<json, RootType>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[&t];
  if (!slot.second.graph || slot.first != t.schema) slot = {t.schema, custom_resource_type(t.schema)};
  return slot.second;
}

}  // namespace kubesim::apply
