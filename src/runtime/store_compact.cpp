// CachedObject::from_text: the watch path's one-pass compaction (store.h). It must give
// the same cached object as CachedObject::make(json::parse(text)): same key fields, same
// owner references, managedFields and the last-applied annotation dropped, an
// annotations map left empty by that dropped too (store_test checks both paths agree).
#include <functional>

#include "dgd/kube/watch_scan.h"
#include "dgd/runtime/store.h"

namespace dgd::runtime {

namespace {

using kube::JsonScanner;

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

// Compares a raw (still escaped) key with a plain one.
bool key_is(std::string_view raw, std::string_view want) { return JsonScanner::raw_equals(raw, want); }

// Writes `"key":` (with the ',' before it unless it is the first member).
void open_member(std::string& out, bool& first, std::string_view raw_key) {
  if (!first) out += ',';
  first = false;
  out += '"';
  out.append(raw_key);
  out += "\":";
}

// Reads a string value, copies its JSON text to `out` and decodes it into `value`;
// a value of another type is copied and leaves `value` empty.
void copy_string_field(JsonScanner& s, std::string_view text, std::string& out, std::string& value) {
  value.clear();
  if (s.peek() != '"') {
    s.value(&out);
    return;
  }
  size_t start = s.pos();
  if (!s.string_value(value)) return;
  out.append(text.substr(start, s.pos() - start));
}

void copy_owner_ref(JsonScanner& s, std::string_view text, std::string& out, std::vector<OwnerRef>& refs) {
  if (s.peek() != '{') {
    s.value(&out);
    return;
  }
  OwnerRef ref;
  std::string_view key;
  bool first = true;
  out += '{';
  s.begin_object();
  while (s.next_member(key)) {
    open_member(out, first, key);
    if (key_is(key, "apiVersion")) copy_string_field(s, text, out, ref.api_version);
    else if (key_is(key, "kind")) copy_string_field(s, text, out, ref.kind);
    else if (key_is(key, "name")) copy_string_field(s, text, out, ref.name);
    else if (key_is(key, "uid")) copy_string_field(s, text, out, ref.uid);
    else if (key_is(key, "controller") && (s.peek() == 't' || s.peek() == 'f')) {
      s.boolean(ref.controller);
      out += ref.controller ? "true" : "false";
    } else {
      s.value(&out);
    }
  }
  out += '}';
  if (ref.uid.empty() || !s.ok()) return;
  if (ref.controller) refs.insert(refs.begin(), std::move(ref));
  else refs.push_back(std::move(ref));
}

// Copies the parts of the next value that `n` keeps (project_value in store.cpp, on text);
// what it keeps whole may be shared (shared_text.h). Recursion follows the projection's
// depth only: an array inside an array is copied whole.
void copy_projected(JsonScanner& s, SplicedText::Builder& b, const FieldProjection::Node& n, int depth) {
  std::string& out = b.out();
  const char c = s.peek();
  if (c == '{') {
    out += '{';
    bool first = true;
    std::string_view key;
    s.begin_object();
    while (s.next_member(key)) {
      const FieldProjection::Node* child = n.child(key);
      if (child == nullptr) {
        s.value();
        continue;
      }
      open_member(out, first, key);
      if (child->all) detail::copy_sharing(s, b, depth + 1);
      else copy_projected(s, b, *child, depth + 1);
    }
    out += '}';
  } else if (c == '[') {
    out += '[';
    bool first = true;
    s.begin_array();
    while (s.next_element()) {
      if (!first) out += ',';
      first = false;
      if (s.peek() == '[') detail::copy_sharing(s, b, depth + 1);
      else copy_projected(s, b, n, depth + 1);
    }
    out += ']';
  } else {
    s.value(&out);
  }
}

}  // namespace

std::shared_ptr<const CachedObject> CachedObject::from_text(std::string_view text, std::string* error) {
  return from_text(text, FieldProjection(), error);
}

std::shared_ptr<const CachedObject> CachedObject::from_text(std::string_view text, const FieldProjection& projection,
                                                            std::string* error) {
  return from_text(text, projection, nullptr, error);
}

std::shared_ptr<const CachedObject> CachedObject::from_text(std::string_view text, const FieldProjection& projection,
                                                            SharedTextPool* shared, std::string* error) {
  JsonScanner s(text);
  auto o = create();
  SplicedText::Builder b(shared);
  std::string& out = b.out();
  out.reserve(text.size());
  auto invalid = [&]() -> std::shared_ptr<const CachedObject> {
    if (error) *error = s.ok() ? "not a JSON object" : s.error();
    return nullptr;
  };
  if (s.peek() != '{') return invalid();
  s.begin_object();
  out += '{';
  bool first = true;
  std::string_view key;
  while (s.next_member(key)) {
    const bool metadata = key_is(key, "metadata");
    if (!projection.empty() && !metadata && !key_is(key, "apiVersion") && !key_is(key, "kind")) {
      const FieldProjection::Node* kept = projection.root().child(key);
      if (kept == nullptr) {
        s.value();
      } else {
        open_member(out, first, key);
        if (kept->all) detail::copy_sharing(s, b);
        else copy_projected(s, b, *kept, 1);
      }
      continue;
    }
    open_member(out, first, key);
    if (!metadata || s.peek() != '{') {
      // apiVersion, kind and a metadata of another shape are small: copied as they are.
      if (metadata || key_is(key, "apiVersion") || key_is(key, "kind")) s.value(&out);
      else detail::copy_sharing(s, b);
      continue;
    }
    // metadata: the key fields are picked out, managedFields and last-applied dropped.
    // A repeated "metadata" key overrides the earlier one, as in a DOM parse.
    o->ns_.clear(), o->name_.clear(), o->uid_.clear(), o->resource_version_.clear(), o->owner_refs_.clear();
    bool mfirst = true;
    out += '{';
    s.begin_object();
    while (s.next_member(key)) {
      if (key_is(key, "managedFields")) {
        s.value();
        continue;
      }
      if (key_is(key, "annotations") && s.peek() == '{') {
        std::string annotations = "{";
        bool afirst = true;
        std::string_view akey;
        s.begin_object();
        while (s.next_member(akey)) {
          if (key_is(akey, kLastApplied)) {
            s.value();
            continue;
          }
          open_member(annotations, afirst, akey);
          s.value(&annotations);
        }
        if (!afirst) {  // an empty map is dropped, as strip_for_cache does
          open_member(out, mfirst, key);
          out += annotations;
          out += '}';
        }
        continue;
      }
      open_member(out, mfirst, key);
      if (key_is(key, "namespace")) copy_string_field(s, text, out, o->ns_);
      else if (key_is(key, "name")) copy_string_field(s, text, out, o->name_);
      else if (key_is(key, "uid")) copy_string_field(s, text, out, o->uid_);
      else if (key_is(key, "resourceVersion")) copy_string_field(s, text, out, o->resource_version_);
      else if (key_is(key, "ownerReferences") && s.peek() == '[') {
        out += '[';
        bool efirst = true;
        s.begin_array();
        while (s.next_element()) {
          if (!efirst) out += ',';
          efirst = false;
          copy_owner_ref(s, text, out, o->owner_refs_);
        }
        out += ']';
      } else {
        s.value(&out);
      }
    }
    out += '}';
  }
  out += '}';
  if (!s.ok() || !s.at_end()) return invalid();
  o->owner_refs_.shrink_to_fit();
  // Tags the object by its key: its next version (a watch event) does not make its own
  // values shared (SharedTextPool::share).
  const uint32_t owner =
      static_cast<uint32_t>(std::hash<std::string_view>{}(o->ns_) * 31 + std::hash<std::string_view>{}(o->name_)) | 1;
  o->text_ = b.finish(owner);
  return o;
}

}  // namespace dgd::runtime
