#include "dgd/runtime/store.h"

#include <nlohmann/json.hpp>

#include "dgd/kube/watch_scan.h"

namespace dgd::runtime {

using nlohmann::json;

FieldProjection::FieldProjection(const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    Node* n = &root_;
    size_t start = 0;
    while (!n->all) {
      const size_t dot = path.find('.', start);
      n = &n->children[path.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    // A shorter path keeps the whole value: what a longer one named below it is moot.
    n->all = true;
    n->children.clear();
  }
}

namespace {
void collect_paths(const FieldProjection::Node& n, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [k, c] : n.children) {
    const std::string p = prefix.empty() ? k : prefix + "." + k;
    if (c.all) out.push_back(p);
    else collect_paths(c, p, out);
  }
}

// Keeps the members of `v` that `n` names; arrays apply `n` to every element.
void project_value(json& v, const FieldProjection::Node& n) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      auto c = n.children.find(it.key());
      if (c == n.children.end()) {
        it = v.erase(it);
        continue;
      }
      if (!c->second.all) project_value(*it, c->second);
      ++it;
    }
  } else if (v.is_array()) {
    for (auto& e : v) {
      if (!e.is_array()) project_value(e, n);
    }
  }
}

bool always_kept(std::string_view key) { return key == "apiVersion" || key == "kind" || key == "metadata"; }
}  // namespace

std::vector<std::string> FieldProjection::paths() const {
  std::vector<std::string> out;
  collect_paths(root_, "", out);
  return out;
}

const FieldProjection::Node* FieldProjection::Node::child(std::string_view raw_key) const {
  auto it = raw_key.find('\\') == std::string_view::npos ? children.find(raw_key)
                                                         : children.find(kube::JsonScanner::unescape(raw_key));
  return it == children.end() ? nullptr : &it->second;
}

void project_for_cache(json& object, const FieldProjection& projection) {
  if (projection.empty() || !object.is_object()) return;
  for (auto it = object.begin(); it != object.end();) {
    if (always_kept(it.key())) {
      ++it;
      continue;
    }
    auto c = projection.root().children.find(it.key());
    if (c == projection.root().children.end()) {
      it = object.erase(it);
      continue;
    }
    if (!c->second.all) project_value(*it, c->second);
    ++it;
  }
}

std::shared_ptr<const CachedObject> CachedObject::make(json object, const FieldProjection& projection) {
  project_for_cache(object, projection);
  return make(std::move(object));
}

void strip_for_cache(json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return;
  m->erase("managedFields");
  if (auto a = m->find("annotations"); a != m->end() && a->is_object()) {
    a->erase("kubectl.kubernetes.io/last-applied-configuration");
    if (a->empty()) m->erase(a);
  }
}

std::shared_ptr<const CachedObject> CachedObject::make(json object) {
  strip_for_cache(object);
  auto o = create();
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
    o->ns_ = m->value("namespace", "");
    o->name_ = m->value("name", "");
    o->uid_ = m->value("uid", "");
    o->resource_version_ = m->value("resourceVersion", "");
    if (auto refs = m->find("ownerReferences"); refs != m->end() && refs->is_array()) {
      for (const auto& r : *refs) {
        if (!r.is_object()) continue;
        OwnerRef ref{r.value("apiVersion", ""), r.value("kind", ""), r.value("name", ""), r.value("uid", ""),
                     r.value("controller", false)};
        if (ref.uid.empty()) continue;
        if (ref.controller) o->owner_refs_.insert(o->owner_refs_.begin(), std::move(ref));
        else o->owner_refs_.push_back(std::move(ref));
      }
    }
  }
  o->owner_refs_.shrink_to_fit();
  std::string text = object.dump();
  text.shrink_to_fit();  // dump() grows geometrically: up to 2x the text otherwise
  o->text_ = SplicedText::whole(std::move(text));
  return o;
}

json CachedObject::object() const { return json::parse(text_.str()); }

namespace {
// The i-th character of "ns/name" ("name" when ns is empty).
struct JoinedKey {
  std::string_view ns, name;
  size_t size() const { return ns.empty() ? name.size() : ns.size() + 1 + name.size(); }
  char at(size_t i) const {
    if (ns.empty()) return name[i];
    if (i < ns.size()) return ns[i];
    return i == ns.size() ? '/' : name[i - ns.size() - 1];
  }
};
}  // namespace

bool Store::KeyOrder::operator()(const KeyRef& a, const KeyRef& b) const {
  if (a.ns == b.ns) return a.name < b.name;  // the common case: one namespace
  const JoinedKey x{a.ns, a.name}, y{b.ns, b.name};
  const size_t n = std::min(x.size(), y.size());
  for (size_t i = 0; i < n; ++i) {
    const auto cx = static_cast<unsigned char>(x.at(i)), cy = static_cast<unsigned char>(y.at(i));
    if (cx != cy) return cx < cy;
  }
  return x.size() < y.size();
}

Store::KeyRef Store::parse_key(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {{}, key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

ObjectPtr Store::get(std::string_view ns, std::string_view name) const {
  std::shared_lock l(mu_);
  auto it = by_key_.find(KeyRef{ns, name});
  return it == by_key_.end() ? nullptr : it->second;
}

ObjectPtr Store::get(std::string_view key) const {
  std::shared_lock l(mu_);
  auto it = by_key_.find(parse_key(key));
  return it == by_key_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Store::list() const {
  std::shared_lock l(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(by_key_.size());
  for (const auto& [k, v] : by_key_) out.push_back(v);
  return out;
}

std::vector<ObjectPtr> Store::list(std::string_view ns) const {
  std::shared_lock l(mu_);
  std::vector<ObjectPtr> out;
  // Keys sort as "ns/name": the namespace is one contiguous range, from "ns/".
  for (auto it = by_key_.lower_bound(KeyRef{ns, {}}); it != by_key_.end() && it->first.ns == ns; ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::vector<ObjectPtr> Store::by_owner(std::string_view owner_uid) const {
  std::shared_lock l(mu_);
  std::vector<ObjectPtr> out;
  auto it = by_owner_.find(owner_uid);
  if (it == by_owner_.end()) return out;
  for (const auto& key : it->second) {
    if (auto o = by_key_.find(key); o != by_key_.end()) out.push_back(o->second);
  }
  return out;
}

size_t Store::size() const {
  std::shared_lock l(mu_);
  return by_key_.size();
}

Store::TextBytes Store::text_bytes() const {
  std::shared_lock l(mu_);
  return bytes_;
}

bool Store::synced() const {
  std::lock_guard<std::mutex> l(sync_mu_);
  return synced_;
}

bool Store::wait_synced(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> l(sync_mu_);
  return sync_cv_.wait_for(l, timeout, [&] { return synced_; });
}

void Store::index_locked(const ObjectPtr& o) {
  bytes_.whole += o->json_size();
  bytes_.own += o->text().own_bytes();
  for (const auto& r : o->owner_refs()) by_owner_[r.uid].insert(key_of(*o));
}

void Store::unindex_locked(const ObjectPtr& o) {
  bytes_.whole -= o->json_size();
  bytes_.own -= o->text().own_bytes();
  for (const auto& r : o->owner_refs()) {
    auto it = by_owner_.find(r.uid);
    if (it == by_owner_.end()) continue;
    it->second.erase(key_of(*o));
    if (it->second.empty()) by_owner_.erase(it);
  }
}

ObjectPtr Store::upsert(ObjectPtr object) {
  std::unique_lock l(mu_);
  ObjectPtr old;
  // The map's key views the object it holds: the entry goes with the old object.
  if (auto it = by_key_.find(key_of(*object)); it != by_key_.end()) {
    old = std::move(it->second);
    by_key_.erase(it);
    unindex_locked(old);
  }
  index_locked(object);
  const KeyRef key = key_of(*object);
  by_key_.emplace(key, std::move(object));
  return old;
}

ObjectPtr Store::erase(const std::string& key) {
  std::unique_lock l(mu_);
  auto it = by_key_.find(parse_key(key));
  if (it == by_key_.end()) return nullptr;
  ObjectPtr old = std::move(it->second);
  by_key_.erase(it);
  unindex_locked(old);
  return old;
}

Store::Diff Store::replace(std::vector<ObjectPtr> objects) {
  // Build the new indexes outside the lock, then swap.
  KeyMap keys;
  OwnerMap owners;
  TextBytes bytes;
  for (auto& o : objects) {
    // A key listed twice: the later object wins (its entry, its owner refs).
    if (auto dup = keys.find(key_of(*o)); dup != keys.end()) {
      bytes.whole -= dup->second->json_size();
      bytes.own -= dup->second->text().own_bytes();
      for (const auto& r : dup->second->owner_refs()) {
        if (auto ow = owners.find(r.uid); ow != owners.end()) {
          ow->second.erase(key_of(*dup->second));
          if (ow->second.empty()) owners.erase(ow);
        }
      }
      keys.erase(dup);
    }
    bytes.whole += o->json_size();
    bytes.own += o->text().own_bytes();
    for (const auto& r : o->owner_refs()) owners[r.uid].insert(key_of(*o));
    const KeyRef key = key_of(*o);
    keys.emplace(key, std::move(o));
  }
  Diff diff;
  {
    std::unique_lock l(mu_);
    for (const auto& [k, o] : keys) {
      auto old = by_key_.find(k);
      if (old == by_key_.end()) diff.added.push_back(o);
      else if (old->second->resource_version() != o->resource_version() || old->second->uid() != o->uid())
        diff.updated.emplace_back(old->second, o);
    }
    for (const auto& [k, o] : by_key_) {
      if (!keys.count(k)) diff.deleted.push_back(o);
    }
    by_key_.swap(keys);
    by_owner_.swap(owners);
    bytes_ = bytes;
  }
  {
    std::lock_guard<std::mutex> l(sync_mu_);
    synced_ = true;
  }
  sync_cv_.notify_all();
  return diff;
}

}  // namespace dgd::runtime
