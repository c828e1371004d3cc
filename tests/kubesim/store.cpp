#include "kubesim/store.h"

#include "kubesim/api_error.h"
#include "kubesim/crd/custom_resource_validation.h"
#include "dgd/kube/base64.h"
#include "kubesim/base64url.h"
#include "kubesim/object_rules.h"
#include "kubesim/validation/validate.h"
#include "kubesim/patch_adapter.h"

#include <algorithm>
#include <set>

namespace kubesim {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

const json& meta(const json& obj) {
  static const json empty = json::object();
  return obj.contains("metadata") && obj["metadata"].is_object() ? obj["metadata"] : empty;
}
std::string meta_str(const json& obj, const char* f) {
  const json& md = meta(obj);
  return md.contains(f) && md[f].is_string() ? md[f].get<std::string>() : "";
}

const json& owner_refs(const json& obj) {
  static const json empty = json::array();
  const json& md = meta(obj);
  return md.contains("ownerReferences") && md["ownerReferences"].is_array() ? md["ownerReferences"] : empty;
}

uint64_t parse_rv(const std::string& s, const char* what) {
  if (s.empty()) return 0;
  try {
    size_t pos = 0;
    uint64_t v = std::stoull(s, &pos);
    if (pos == s.size()) return v;
  } catch (...) {
  }
  throw ApiError::bad_request(std::string("invalid resource version \"") + s + "\" in " + what);
}

bool has_finalizer(const json& obj, const std::string& f) {
  const json& md = meta(obj);
  if (!md.contains("finalizers") || !md["finalizers"].is_array()) return false;
  for (const auto& x : md["finalizers"])
    if (x == f) return true;
  return false;
}

void remove_finalizer(json& obj, const std::string& f) {
  auto& fins = obj["metadata"]["finalizers"];
  fins.erase(std::remove(fins.begin(), fins.end(), json(f)), fins.end());
  if (fins.empty()) obj["metadata"].erase("finalizers");
}

void add_finalizer(json& obj, const std::string& f) {
  if (has_finalizer(obj, f)) return;
  if (!obj["metadata"].contains("finalizers") || !obj["metadata"]["finalizers"].is_array())
    obj["metadata"]["finalizers"] = json::array();
  obj["metadata"]["finalizers"].push_back(f);
}

bool finalizers_empty(const json& obj) {
  const json& md = meta(obj);
  return !md.contains("finalizers") || !md["finalizers"].is_array() || md["finalizers"].empty();
}

std::string unb64(const std::string& in) {
  auto out = dgd::kube::base64_decode(in);
  if (!out) throw ApiError::bad_request("invalid continue token");
  return *out;
}

DeleteOptions propagate(const char* policy) {
  DeleteOptions o;
  o.propagation = policy;
  return o;
}


// Equality of two objects where managedFields entries may differ in their `time` only.
bool same_but_managed_times(const json& a, const json& b) {
  if (!a.is_object() || !b.is_object() || a.size() != b.size()) return a == b;
  for (auto it = a.begin(); it != a.end(); ++it) {
    auto other = b.find(it.key());
    if (other == b.end()) return false;
    if (it.key() != "metadata" || !it->is_object() || !other->is_object() || it->size() != other->size()) {
      if (*it != *other) return false;
      continue;
    }
    for (auto m = it->begin(); m != it->end(); ++m) {
      auto om = other->find(m.key());
      if (om == other->end()) return false;
      if (m.key() != "managedFields" || !m->is_array() || !om->is_array() || m->size() != om->size()) {
        if (*m != *om) return false;
        continue;
      }
      for (size_t i = 0; i < m->size(); ++i) {
        const json& x = (*m)[i];
        const json& y = (*om)[i];
        if (!x.is_object() || !y.is_object()) {
          if (x != y) return false;
          continue;
        }
        const size_t xs = x.size() - x.count("time"), ys = y.size() - y.count("time");
        if (xs != ys) return false;
        for (auto f = x.begin(); f != x.end(); ++f) {
          if (f.key() == "time") continue;
          auto g = y.find(f.key());
          if (g == y.end() || *f != *g) return false;
        }
      }
    }
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------- Watcher

Watcher::Watcher(ResourceTypePtr type, WatchOptions opts, uint64_t start_rv)
    : type_(std::move(type)), opts_(std::move(opts)), progress_rv_(start_rv) {}

bool Watcher::passes(const json& obj) const {
  if (!opts_.ns.empty() && meta_str(obj, "namespace") != opts_.ns) return false;
  const json& md = meta(obj);
  if (!opts_.labels.empty() && !opts_.labels.matches(md.contains("labels") ? md["labels"] : json())) return false;
  if (!opts_.fields.empty() && !opts_.fields.matches(obj)) return false;
  return true;
}

void Watcher::push(WatchEventPtr ev) {
  std::lock_guard lock(mu_);
  if (closed_) return;
  queue_.push_back(std::move(ev));
  if (queue_.size() > 200000) {  // a client that stopped reading: drop it, as the real server does
    closed_ = true;
    queue_.clear();
  }
  cv_.notify_one();
}

void Watcher::push_initial(json obj) {
  auto ev = std::make_shared<WatchEvent>();
  ev->type = "ADDED";
  ev->rv = 0;
  ev->object = std::move(obj);
  std::lock_guard lock(mu_);
  queue_.push_back(std::move(ev));
  ++initial_left_;
}

size_t Watcher::initial_pending() const {
  std::lock_guard lock(mu_);
  return initial_left_;
}

Watcher::Status Watcher::next(Clock::time_point deadline, Delivered* out) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (closed_) return Status::Closed;
    if (opts_.cut_after && delivered_ >= opts_.cut_after) {
      closed_ = true;
      return Status::Closed;
    }
    while (!queue_.empty()) {
      WatchEventPtr ev = std::move(queue_.front());
      queue_.pop_front();
      if (ev->rv) progress_rv_ = std::max(progress_rv_, ev->rv);
      else if (initial_left_) --initial_left_;
      std::string type;
      const json* obj = &ev->object;
      if (ev->type == "MODIFIED") {
        bool now = passes(ev->object), before = passes(ev->old_object);
        if (now && before) type = "MODIFIED";
        else if (now) type = "ADDED";
        else if (before) {
          // Moved out of the selection: the old state, at the new version.
          type = "DELETED";
          out->object = ev->old_object;
          out->object["metadata"]["resourceVersion"] = std::to_string(ev->rv);
          out->type = type;
          out->rv = ev->rv;
          ++delivered_;
          return Status::Event;
        }
      } else if (passes(ev->object)) {
        type = ev->type;
      }
      if (type.empty()) continue;
      out->type = type;
      out->object = *obj;
      out->rv = ev->rv;
      ++delivered_;
      return Status::Event;
    }
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && queue_.empty() && !closed_)
      return Status::Timeout;
  }
}

void Watcher::close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

bool Watcher::closed() const {
  std::lock_guard lock(mu_);
  return closed_;
}

uint64_t Watcher::progress_rv() const {
  std::lock_guard lock(mu_);
  return progress_rv_;
}

// ---------------------------------------------------------------- Store

Store::Store(ResourceRegistry& registry, StoreOptions opts) : registry_(registry), opts_(opts) {
  // The namespaces every cluster has.
  auto ns_type = registry_.find("", "v1", "namespaces");
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
    create(*ns_type, "", json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  // The PriorityClasses the apiserver creates at start (pkg/apis/scheduling SystemPriorityClasses).
  if (auto pc = registry_.find("scheduling.k8s.io", "v1", "priorityclasses")) {
    const std::pair<const char*, std::pair<int64_t, const char*>> system_classes[] = {
        {"system-node-critical", {2000001000, "Used for system critical pods that must not be moved from their current node."}},
        {"system-cluster-critical",
         {2000000000, "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."}}};
    for (const auto& [name, v] : system_classes)
      create(*pc, "", json{{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", name}}},
                           {"value", v.first}, {"description", v.second}});
  }
}

Store::~Store() { shutdown(); }

void Store::set_graceful_pod_deletion(bool on) {
  std::lock_guard lock(mu_);
  opts_.graceful_pod_deletion = on;
}

const json* Store::find(const ResourceType& t, const std::string& ns, const std::string& name) const {
  auto b = data_.find(t.storage_key());
  if (b == data_.end()) return nullptr;
  auto it = b->second.find(key(t.namespaced ? ns : "", name));
  return it == b->second.end() ? nullptr : &it->second;
}

void Store::check_namespace(const ResourceType& t, const std::string& ns) const {
  if (!t.namespaced) return;
  auto ns_type = registry_.find("", "v1", "namespaces");
  const json* n = find(*ns_type, "", ns);
  if (!n) throw ApiError::not_found("", "namespaces", ns);
  if (meta(*n).contains("deletionTimestamp"))
    throw ApiError(403, "Forbidden",
                   t.qualified() + " is forbidden: unable to create new content in namespace " + ns +
                       " because it is being terminated",
                   {{"group", t.group}, {"kind", t.plural},
                    {"causes", {{{"reason", "NamespaceTerminating"}, {"message", "namespace " + ns + " is being terminated"},
                                 {"field", "metadata.namespace"}}}}});
}

bool Store::gc_relevant(const std::string& type, const ResourceType& t, const json& obj, const json& old) const {
  // The namespace controller and CRD deletion: always a pass.
  if ((t.group.empty() && t.kind == "Namespace") ||
      (t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions"))
    return true;
  const json& md = meta(obj);
  const std::string ns = md.value("namespace", "");
  if (!ns.empty()) {  // an object of a namespace being emptied
    auto ns_type = registry_.find("", "v1", "namespaces");
    const json* n = ns_type ? find(*ns_type, "", ns) : nullptr;
    if (n && meta(*n).contains("deletionTimestamp")) return true;
  }
  const bool gone = type == "DELETED";
  const bool deleting = gone || md.contains("deletionTimestamp");
  // Its dependents lose an owner.
  if (gone && referenced_.count(md.value("uid", ""))) return true;
  // An orphan or foreground deletion to advance.
  if (!gone && md.contains("deletionTimestamp") && (has_finalizer(obj, "orphan") || has_finalizer(obj, "foregroundDeletion")))
    return true;
  // Owners: one being deleted may wait for this object (foreground) or have work on it;
  // a live object whose owner is gone or in another namespace is collected. A deleting
  // object is never collected, so its missing owners give no work.
  auto owners_relevant = [&](const json& of, bool live) {
    for (const auto& r : owner_refs(of)) {
      if (!r.is_object()) {
        if (live) return true;
        continue;
      }
      auto it = by_uid_.find(r.value("uid", ""));
      const json* owner = nullptr;
      if (it != by_uid_.end()) {
        auto b = data_.find(it->second.first);
        if (b != data_.end()) {
          auto o = b->second.find(it->second.second);
          if (o != b->second.end()) owner = &o->second;
        }
      }
      if (!owner) {
        if (live) return true;
        continue;
      }
      const json& owner_md = meta(*owner);
      if (owner_md.contains("deletionTimestamp")) return true;
      const std::string owner_ns = owner_md.value("namespace", "");
      if (live && !ns.empty() && !owner_ns.empty() && owner_ns != ns) return true;
    }
    return false;
  };
  if (owners_relevant(obj, !deleting)) return true;
  // A reference dropped from a dependent may unblock its owner's foreground deletion.
  return old.is_object() && owners_relevant(old, false);
}

void Store::track_owner_refs(const json& obj, int delta) {
  for (const auto& r : owner_refs(obj)) {
    if (!r.is_object()) continue;
    const std::string uid = r.value("uid", "");
    if (delta > 0) {
      ++referenced_[uid];
    } else if (auto it = referenced_.find(uid); it != referenced_.end() && --it->second == 0) {
      referenced_.erase(it);
    }
  }
}

void Store::emit(const std::string& type, const ResourceType& t, const json& obj, const json& old) {
  if (type == "ADDED") {
    track_owner_refs(obj, +1);
  } else if (type == "MODIFIED") {
    track_owner_refs(old, -1);
    track_owner_refs(obj, +1);
  } else {
    track_owner_refs(old.is_object() ? old : obj, -1);
  }
  if (!gc_dirty_ && gc_relevant(type, t, obj, old)) gc_dirty_ = true;
  resource_rv_[t.storage_key()] = rv_;
  auto ev = std::make_shared<WatchEvent>();
  ev->type = type;
  ev->resource = t.storage_key();
  ev->rv = rv_;
  ev->object = obj;
  ev->old_object = old;
  history_.push_back(ev);
  while (history_.size() > opts_.history_window) {
    floor_rv_ = history_.front()->rv;
    history_.pop_front();
  }
  auto it = watchers_.begin();
  while (it != watchers_.end()) {
    auto w = it->lock();
    if (!w || w->closed()) {
      it = watchers_.erase(it);
      continue;
    }
    if (w->type_->storage_key() == ev->resource) w->push(ev);
    ++it;
  }
  for (const auto& l : listeners_) l(*ev);
  change_cv_.notify_all();
}

void Store::notify_change() { change_cv_.notify_all(); }

json Store::create(const ResourceType& t, const std::string& ns, json obj, const WriteOptions& o) {
  std::lock_guard lock(mu_);
  return do_create(t, ns, std::move(obj), o);
}

json Store::do_create(const ResourceType& t, const std::string& ns, json obj, const WriteOptions& o) {
  if (!obj.is_object()) throw ApiError::bad_request("the body of the request was in an unknown format");
  if (!obj.contains("kind") || !obj["kind"].is_string() || obj["kind"] == "") {
    if (t.custom) throw ApiError::bad_request("Object 'Kind' is missing in '" + obj.dump() + "'");
    obj["kind"] = t.kind;
  }
  if (!obj.contains("apiVersion") || obj["apiVersion"] == "") obj["apiVersion"] = t.api_version();
  const std::string body_av = obj["apiVersion"].is_string() ? obj["apiVersion"].get<std::string>() : obj["apiVersion"].dump();
  const std::string body_group = body_av.find('/') == std::string::npos ? "" : body_av.substr(0, body_av.find('/'));
  if (obj["kind"] != t.kind || body_group != t.group)  // e.g. apps/v1 ConfigMap posted to /api/v1
    throw ApiError::bad_request("the API version in the data (" + body_av +
                                ") does not match the expected API version (" + t.api_version() + ")");
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) obj["metadata"] = json::object();
  json& md = obj["metadata"];
  if (t.namespaced) {
    std::string body_ns = md.value("namespace", "");
    if (!body_ns.empty() && body_ns != ns)
      throw ApiError::bad_request("the namespace of the provided object does not match the namespace sent on the request");
    md["namespace"] = ns;
  } else {
    md.erase("namespace");
  }
  if (md.value("name", "").empty()) {
    if (!md.value("generateName", "").empty()) {
      md["name"] = md["generateName"].get<std::string>() + rules::random_suffix(5);
    } else {
      throw ApiError::invalid(t.group, t.kind, "",
                              json::array({{{"reason", "FieldValueRequired"}, {"field", "metadata.name"},
                                            {"message", "Required value: name or generateName is required"}}}));
    }
  }
  const std::string name = md["name"];
  if (!md.value("resourceVersion", "").empty())
    throw ApiError(500, "InternalError", "Internal error occurred: resourceVersion should not be set on objects to be created");
  if (find(t, ns, name)) throw ApiError::already_exists(t.group, t.plural, name);
  if (t.namespaced) check_namespace(t, ns);

  rules::check_unknown_fields(t, obj, o.strict_fields);  // may replace `obj`
  {
  json& m = obj["metadata"];
  m.erase("selfLink");
  m.erase("deletionTimestamp");
  m.erase("deletionGracePeriodSeconds");
  m["uid"] = rules::new_uid();
  m["creationTimestamp"] = rules::now_rfc3339();
  if (t.has_generation) m["generation"] = 1;
  else m.erase("generation");
  if (m.contains("labels") && m["labels"].empty()) m.erase("labels");
  if (m.contains("annotations") && m["annotations"].empty()) m.erase("annotations");
  }
  rules::reset_status_on_create(t, obj);
  rules::apply_defaults(t, obj, true);
  rules::validate(t, obj);
  if (t.custom) crd::validate_custom_resource(t, obj, nullptr);
  if (!o.apply) {
    obj["metadata"].erase("managedFields");
    if (!o.field_manager.empty()) patch::record_update(t, nullptr, obj, o.field_manager, o.subresource);
  }

  if (t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions") {
    // Validate (throws 422) before anything is stored; register only on a real write.
    crd::check_definition(obj);
    if (o.dry_run) {
      ResourceRegistry scratch;
      scratch.register_crd(obj);
    } else {
      registry_.register_crd(obj);
    }
  }
  if (o.dry_run) {
    obj["metadata"].erase("resourceVersion");
    return obj;
  }
  ++rv_;
  obj["metadata"]["resourceVersion"] = std::to_string(rv_);
  bucket(t)[key(t.namespaced ? ns : "", name)] = obj;
  by_uid_[obj["metadata"]["uid"]] = {t.storage_key(), key(t.namespaced ? ns : "", name)};
  emit("ADDED", t, obj, nullptr);
  return obj;
}

namespace {
// A custom resource read from storage is defaulted by its schema, as the apiserver's decoder does.
json read_view(const ResourceType& t, const json& stored) {
  json o = stored;
  crd::apply_schema_defaults(t, o);
  return o;
}
}  // namespace

json Store::get(const ResourceType& t, const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mu_);
  const json* o = find(t, ns, name);
  if (!o) throw ApiError::not_found(t.group, t.plural, name);
  return crd::defaults_on_read(t) ? read_view(t, *o) : *o;
}

std::optional<json> Store::try_get(const ResourceType& t, const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mu_);
  const json* o = find(t, ns, name);
  if (!o) return std::nullopt;
  return crd::defaults_on_read(t) ? read_view(t, *o) : *o;
}

void Store::expired(uint64_t rv) const {
  throw ApiError(410, "Expired",
                 "too old resource version: " + std::to_string(rv) + " (" + std::to_string(floor_rv_) + ")");
}

Store::Bucket Store::state_at(const ResourceType& t, uint64_t rv) const {
  Bucket state;
  auto b = data_.find(t.storage_key());
  if (b != data_.end()) state = b->second;
  for (auto it = history_.rbegin(); it != history_.rend() && (*it)->rv > rv; ++it) {
    const WatchEvent& ev = **it;
    if (ev.resource != t.storage_key()) continue;
    const json& obj = ev.type == "ADDED" ? ev.object : ev.old_object;
    std::string k = key(meta_str(obj, "namespace"), meta_str(obj, "name"));
    if (ev.type == "ADDED") state.erase(k);
    else state[k] = ev.old_object;
  }
  return state;
}

std::shared_ptr<const std::string> Store::text_of(const ResourceType& t, const std::string& k, const json& obj,
                                                  bool cacheable) const {
  auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  const std::string av = t.api_version();
  const auto stored_av = obj.find("apiVersion");
  if (stored_av == obj.end() || *stored_av != av || !cacheable) {
    json copy = obj;
    copy["apiVersion"] = av;
    return std::make_shared<const std::string>(dump(copy));
  }
  const std::string rv = meta_str(obj, "resourceVersion");
  CachedText& c = text_cache_[t.storage_key() + '\n' + k];
  if (!c.text || c.rv != rv) {
    c.rv = rv;
    c.text = std::make_shared<const std::string>(dump(obj));
  }
  return c.text;
}

ListResult Store::list(const ResourceType& t, const ListOptions& o) const {
  std::unique_lock lock(mu_);
  ListResult out;
  uint64_t at = 0;  // 0 = current state
  std::string start_after;
  bool have_start = false;
  if (!o.continue_token.empty()) {
    if (!o.resource_version.empty() && o.resource_version != "0")
      throw ApiError::bad_request("specifying resource version is not allowed when using continue");
    json tok;
    try {
      tok = json::parse(unb64(o.continue_token));
      at = tok.at("rv").get<uint64_t>();
      start_after = tok.at("start").get<std::string>();
      have_start = true;
    } catch (const ApiError&) {
      throw;
    } catch (...) {
      throw ApiError::bad_request("continue key is not valid: invalid continue token");
    }
    if (at < floor_rv_) {
      json details = nullptr;
      ApiError e(410, "Expired",
                 "The provided continue parameter is too old to display a consistent list result. You can start a "
                 "new list without the continue parameter, or use the continue token in this response to retrieve "
                 "the remainder of the results. Continuing with the provided token results in an inconsistent list "
                 "- objects that were created, modified, or deleted between the time the first chunk was returned "
                 "and now may show up in the list.");
      throw e;
    }
  } else if (!o.resource_version.empty() && o.resource_version != "0") {
    uint64_t want = parse_rv(o.resource_version, "list");
    bool exact = o.resource_version_match == "Exact" || (o.resource_version_match.empty() && o.limit > 0);
    if (want > rv_) {
      // "Too large resource version": wait briefly for it, as the real server does.
      auto deadline = Clock::now() + std::chrono::seconds(3);
      change_cv_.wait_until(lock, deadline, [&] { return rv_ >= want || stopping_; });
      if (rv_ < want)
        throw ApiError(504, "Timeout",
                       "Timeout: Too large resource version: " + std::to_string(want) + ", current: " + std::to_string(rv_),
                       {{"causes", {{{"reason", "ResourceVersionTooLarge"}, {"message", "Too large resource version"}}}},
                        {"retryAfterSeconds", 1}});
    }
    if (exact && want < rv_) {
      if (want < floor_rv_) expired(want);
      at = want;
    }
  }
  Bucket snapshot_storage;
  const Bucket* src;
  if (at && at < rv_) {
    snapshot_storage = state_at(t, at);
    src = &snapshot_storage;
    out.rv = at;
  } else {
    auto b = data_.find(t.storage_key());
    static const Bucket empty;
    src = b == data_.end() ? &empty : &b->second;
    out.rv = at ? at : rv_;
  }
  auto it = have_start ? src->upper_bound(start_after) : src->begin();
  const bool defaulted = crd::defaults_on_read(t);
  int64_t count = 0;
  std::string last_key;
  for (; it != src->end(); ++it) {
    const json& obj = it->second;
    if (!o.ns.empty() && meta_str(obj, "namespace") != o.ns) continue;
    const json& md = meta(obj);
    if (!o.labels.empty() && !o.labels.matches(md.contains("labels") ? md["labels"] : json())) continue;
    if (!o.fields.empty() && !o.fields.matches(obj)) continue;
    if (o.limit > 0 && count == o.limit) {
      out.continue_token = kubesim::base64url_encode(json{{"rv", out.rv}, {"start", last_key}}.dump());
      int64_t rest = 0;
      for (auto r = it; r != src->end(); ++r) {
        const json& ro = r->second;
        if (!o.ns.empty() && meta_str(ro, "namespace") != o.ns) continue;
        ++rest;
      }
      if (o.labels.empty() && o.fields.empty()) out.remaining = rest;
      break;
    }
    if (defaulted) {
      json view = read_view(t, obj);
      if (o.as_text) out.texts.push_back(text_of(t, it->first, view, false));
      else out.items.push_back(std::move(view));
    } else if (o.as_text) {
      out.texts.push_back(text_of(t, it->first, obj, src != &snapshot_storage));
    } else {
      out.items.push_back(obj);
    }
    last_key = it->first;
    ++count;
  }
  return out;
}

namespace {
// The apiserver's checkName: the object's name must be the one on the URL.
void check_url_name(const json& obj, const std::string& name) {
  if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].is_object()) return;
  const auto n = obj["metadata"].find("name");
  if (n == obj["metadata"].end() || !n->is_string()) return;
  const std::string body_name = n->get<std::string>();
  if (!body_name.empty() && body_name != name)
    throw ApiError::bad_request("the name of the object (" + body_name + ") does not match the name on the URL (" +
                                name + ")");
}
}  // namespace

json Store::update(const ResourceType& t, const std::string& ns, const std::string& name, json obj,
                   const WriteOptions& o) {
  std::lock_guard lock(mu_);
  const json* cur = find(t, ns, name);
  if (!cur) throw ApiError::not_found(t.group, t.plural, name);
  check_url_name(obj, name);
  return do_update(t, *cur, std::move(obj), o, t.custom);
}

json Store::mutate(const ResourceType& t, const std::string& ns, const std::string& name,
                   const std::function<json(const json*)>& fn, const WriteOptions& o, bool allow_create) {
  std::lock_guard lock(mu_);
  const json* cur = find(t, ns, name);
  if (!cur && !allow_create) throw ApiError::not_found(t.group, t.plural, name);
  json desired = fn(cur);
  if (!cur) {
    if (desired.is_object() && desired.contains("metadata") && desired["metadata"].is_object())
      desired["metadata"]["name"] = name;
    return do_create(t, ns, std::move(desired), o);
  }
  check_url_name(desired, name);  // a patch may not rename (patch.go checkName)
  return do_update(t, *cur, std::move(desired), o, false);
}

json Store::do_update(const ResourceType& t, const json& current_in, json obj, const WriteOptions& o,
                      bool precondition_required) {
  const json current = current_in;  // may alias the stored object, which this overwrites
  const std::string name = meta_str(current, "name");
  if (!obj.is_object()) throw ApiError::bad_request("the body of the request was in an unknown format");
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) obj["metadata"] = json::object();
  if (obj.contains("kind") && obj["kind"].is_string() && obj["kind"] != t.kind)
    throw ApiError::bad_request("the kind in the data (" + obj["kind"].get<std::string>() +
                                ") does not match the expected kind (" + t.kind + ")");
  obj["kind"] = t.kind;
  obj["apiVersion"] = current.value("apiVersion", t.api_version());
  const std::string body_ns = obj["metadata"].value("namespace", "");
  if (t.namespaced && !body_ns.empty() && body_ns != meta_str(current, "namespace"))
    throw ApiError::bad_request("the namespace of the provided object does not match the namespace sent on the request");

  const std::string cur_rv = meta_str(current, "resourceVersion");
  const std::string want_rv = obj["metadata"].value("resourceVersion", "");
  if (want_rv.empty() && precondition_required && o.subresource.empty())
    throw ApiError::invalid(t.group, t.kind, name,
                            json::array({{{"reason", "FieldValueInvalid"}, {"field", "metadata.resourceVersion"},
                                          {"message", "Invalid value: 0x0: must be specified for an update"}}}));
  if (!want_rv.empty() && want_rv != cur_rv)
    throw ApiError::conflict(t.group, t.plural, name,
                             "the object has been modified; please apply your changes to the latest version and try again");

  if (o.subresource == "status") {
    if (t.custom) rules::check_unknown_fields(t, obj, o.strict_fields);  // the body is decoded (pruned) whole
    json next = current;
    if (obj.contains("status")) next["status"] = obj["status"];
    else next.erase("status");
    if (obj["metadata"].contains("managedFields")) next["metadata"]["managedFields"] = obj["metadata"]["managedFields"];
    obj = std::move(next);
    if (t.custom) {
      crd::apply_schema_defaults(t, obj);
      crd::validate_custom_resource_status(t, obj, current);
    }
  } else {
    rules::check_unknown_fields(t, obj, o.strict_fields);
    if (t.has_status) {
      if (current.contains("status")) obj["status"] = current["status"];
      else obj.erase("status");
    }
    json& md = obj["metadata"];
    const json& cmd = meta(current);
    for (const char* f : {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "namespace", "name"}) {
      if (cmd.contains(f)) md[f] = cmd[f];
      else md.erase(f);
    }
    md.erase("selfLink");
    md.erase("generateName");
    if (cmd.contains("generateName")) md["generateName"] = cmd["generateName"];
    // An update that omits managedFields keeps them; an apply that leaves none has none.
    if (!o.apply && !md.contains("managedFields") && cmd.contains("managedFields")) md["managedFields"] = cmd["managedFields"];
    if (md.contains("labels") && md["labels"].is_object() && md["labels"].empty()) md.erase("labels");
    if (md.contains("annotations") && md["annotations"].is_object() && md["annotations"].empty()) md.erase("annotations");
    if (md.contains("finalizers") && md["finalizers"].is_array() && md["finalizers"].empty()) md.erase("finalizers");
    if (cmd.contains("deletionTimestamp")) {
      // New finalizers cannot be added to an object being deleted.
      std::set<std::string> before;
      if (cmd.contains("finalizers"))
        for (const auto& f : cmd["finalizers"]) before.insert(f.get<std::string>());
      if (md.contains("finalizers"))
        for (const auto& f : md["finalizers"])
          if (f.is_string() && !before.count(f.get<std::string>()))
            throw ApiError::invalid(t.group, t.kind, name,
                                    json::array({{{"reason", "FieldValueForbidden"}, {"field", "metadata.finalizers"},
                                                  {"message", "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"" +
                                                                  f.get<std::string>() + "\"}"}}}));
    }
    rules::apply_defaults(t, obj, false);
    // Immutable bits the defaults would otherwise re-derive.
    if (t.group.empty() && t.kind == "Service") validation::prepare_service_update(current, obj);
    if (t.group == "batch" && t.kind == "Job" && current.contains("spec") && obj.contains("spec") &&
        current["spec"].contains("selector") && !obj["spec"].contains("selector"))
      obj["spec"]["selector"] = current["spec"]["selector"];
    // pods/binding sets spec.nodeName, which a pod update may not change.
    if (o.binding) rules::validate(t, obj);
    else rules::validate_update(t, current, obj);
    if (t.custom) crd::validate_custom_resource(t, obj, &current);
  }

  json& md = obj["metadata"];
  if (t.has_generation) {
    int64_t gen = meta(current).value("generation", 1);
    if (o.subresource.empty() && rules::spec_changed(t, current, obj)) ++gen;
    md["generation"] = gen;
  }
  md["resourceVersion"] = cur_rv;
  if (!o.apply && !o.field_manager.empty()) patch::record_update(t, &current, obj, o.field_manager, o.subresource);

  // A no-op write changes nothing, not even the resourceVersion (managedFields
  // timestamps aside).
  if (same_but_managed_times(obj, current)) return current;

  const bool finishing = meta(obj).contains("deletionTimestamp") && finalizers_empty(obj);
  if (t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions" && !finishing) {
    crd::check_definition(obj);
    if (o.dry_run) {
      ResourceRegistry scratch;
      scratch.register_crd(obj);
    } else {
      registry_.register_crd(obj);
    }
  }
  if (o.dry_run) return obj;
  // The update that empties the finalizers of a deleting object is not stored: the
  // apiserver deletes at once (errEmptiedFinalizers), so watchers see no MODIFIED, only
  // DELETED carrying the last stored state.
  if (finishing) return erase_now(t, current, false);
  ++rv_;
  obj["metadata"]["resourceVersion"] = std::to_string(rv_);  // record_update replaced `obj`: no `md` here
  const std::string k = key(meta_str(obj, "namespace"), name);
  bucket(t)[k] = obj;
  emit("MODIFIED", t, obj, current);
  return obj;
}

json Store::erase_now(const ResourceType& t, const json& current, bool dry_run) {
  if (dry_run) return current;
  const json old = current;  // `current` may point into the bucket
  ++rv_;
  json final_state = old;
  final_state["metadata"]["resourceVersion"] = std::to_string(rv_);
  bucket(t).erase(key(meta_str(old, "namespace"), meta_str(old, "name")));
  text_cache_.erase(t.storage_key() + '\n' + key(meta_str(old, "namespace"), meta_str(old, "name")));
  by_uid_.erase(meta_str(old, "uid"));
  emit("DELETED", t, final_state, old);
  if (t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions") {
    // The CRD's objects go with it.
    const std::string crd_name = meta_str(old, "name");
    for (const auto& rt : registry_.all()) {
      if (rt->crd_name != crd_name || !rt->storage_version) continue;
      Bucket objs = bucket(*rt);
      for (const auto& [k, obj] : objs) {
        (void)k;
        erase_now(*rt, obj, false);
      }
      data_.erase(rt->storage_key());
    }
    registry_.unregister_crd(crd_name);
  }
  return final_state;
}

DeleteResult Store::remove(const ResourceType& t, const std::string& ns, const std::string& name,
                           const DeleteOptions& o) {
  std::lock_guard lock(mu_);
  const json* cur = find(t, ns, name);
  if (!cur) throw ApiError::not_found(t.group, t.plural, name);
  return do_remove(t, *cur, o);
}

DeleteResult Store::do_remove(const ResourceType& t, const json& cur_ref, const DeleteOptions& o) {
  const json current = cur_ref;
  const std::string name = meta_str(current, "name");
  if (!o.precondition_uid.empty() && o.precondition_uid != meta_str(current, "uid"))
    throw ApiError::conflict(t.group, t.plural, name,
                             "Precondition failed: UID in precondition: " + o.precondition_uid +
                                 ", UID in object meta: " + meta_str(current, "uid"));
  if (!o.precondition_rv.empty() && o.precondition_rv != meta_str(current, "resourceVersion"))
    throw ApiError::conflict(t.group, t.plural, name,
                             "Precondition failed: ResourceVersion in precondition: " + o.precondition_rv +
                                 ", ResourceVersion in object meta: " + meta_str(current, "resourceVersion"));
  std::string policy = o.propagation;
  if (policy.empty() && o.orphan_dependents.has_value()) policy = *o.orphan_dependents ? "Orphan" : "Background";
  if (!policy.empty() && policy != "Background" && policy != "Foreground" && policy != "Orphan")
    throw ApiError::invalid(t.group, t.kind, name,
                            json::array({{{"reason", "FieldValueNotSupported"}, {"field", "propagationPolicy"},
                                          {"message", "Unsupported value: \"" + policy + "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""}}}));
  json next = current;
  bool changed = false;
  if (policy == "Foreground") {
    changed |= !has_finalizer(next, "foregroundDeletion");
    add_finalizer(next, "foregroundDeletion");
    if (has_finalizer(next, "orphan")) {
      remove_finalizer(next, "orphan");
      changed = true;
    }
  } else if (policy == "Orphan") {
    changed |= !has_finalizer(next, "orphan");
    add_finalizer(next, "orphan");
  }
  const bool is_namespace = t.group.empty() && t.kind == "Namespace";
  const bool ns_pending = is_namespace && next.contains("spec") && next["spec"].contains("finalizers") &&
                          !next["spec"]["finalizers"].empty();
  int64_t grace = 0;
  if (t.group.empty() && t.kind == "Pod" && opts_.graceful_pod_deletion) {
    const json spec = next.value("spec", json::object());
    const json status = next.value("status", json::object());
    const std::string phase = status.is_object() ? status.value("phase", "") : "";
    if (spec.is_object() && !spec.value("nodeName", "").empty() && phase != "Succeeded" && phase != "Failed") {
      int64_t dflt = spec.contains("terminationGracePeriodSeconds") && spec["terminationGracePeriodSeconds"].is_number_integer()
                         ? spec["terminationGracePeriodSeconds"].get<int64_t>()
                         : 30;
      grace = std::max<int64_t>(0, o.grace_period_seconds.value_or(dflt));
      if (meta(next).contains("deletionGracePeriodSeconds") && meta(next)["deletionGracePeriodSeconds"].is_number_integer())
        grace = std::min(grace, meta(next)["deletionGracePeriodSeconds"].get<int64_t>());  // only shortened
    }
  }
  if (finalizers_empty(next) && !ns_pending && grace == 0) {
    return {erase_now(t, current, o.dry_run), !o.dry_run};
  }
  if (!meta(next).contains("deletionTimestamp") ||
      (grace > 0 && meta(next).value("deletionGracePeriodSeconds", int64_t{0}) != grace)) {
    next["metadata"]["deletionTimestamp"] = rules::rfc3339_after(grace);
    next["metadata"]["deletionGracePeriodSeconds"] = grace;
    if (is_namespace) next["status"]["phase"] = "Terminating";
    changed = true;
  }
  if (!changed || o.dry_run) return {next, false};
  ++rv_;
  next["metadata"]["resourceVersion"] = std::to_string(rv_);
  bucket(t)[key(meta_str(next, "namespace"), name)] = next;
  emit("MODIFIED", t, next, current);
  return {next, false};
}

std::shared_ptr<Watcher> Store::watch(ResourceTypePtr t, const WatchOptions& o) {
  std::lock_guard lock(mu_);
  const bool initial = o.resource_version.empty() || o.resource_version == "0";
  uint64_t from = initial ? rv_ : parse_rv(o.resource_version, "watch");
  if (!initial && from < floor_rv_) expired(from);
  auto w = std::make_shared<Watcher>(t, o, std::min(from, rv_));
  if (initial) {
    auto b = data_.find(t->storage_key());
    if (b != data_.end())
      for (const auto& [k, obj] : b->second) {
        (void)k;
        if (w->passes(obj)) w->push_initial(obj);
      }
  } else {
    for (const auto& ev : history_)
      if (ev->rv > from && ev->resource == t->storage_key()) w->push(ev);
  }
  watchers_.push_back(w);
  return w;
}

uint64_t Store::current_rv() const {
  std::lock_guard lock(mu_);
  return rv_;
}

uint64_t Store::bookmark_rv(const Watcher& w) const {
  std::lock_guard lock(mu_);
  std::lock_guard wlock(w.mu_);
  if (w.queue_.empty()) return std::max(w.progress_rv_, rv_);
  return w.progress_rv_;
}

uint64_t Store::oldest_resumable_rv() const {
  std::lock_guard lock(mu_);
  return floor_rv_;
}

void Store::compact_history() {
  std::lock_guard lock(mu_);
  history_.clear();
  floor_rv_ = rv_;
}

size_t Store::close_watches() {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (auto& weak : watchers_)
    if (auto w = weak.lock(); w && !w->closed()) {
      w->close();
      ++n;
    }
  watchers_.clear();
  return n;
}

size_t Store::open_watches() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& weak : watchers_)
    if (auto w = weak.lock(); w && !w->closed()) ++n;
  return n;
}

void Store::add_listener(std::function<void(const WatchEvent&)> fn) {
  std::lock_guard lock(mu_);
  listeners_.push_back(std::move(fn));
}

void Store::shutdown() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  close_watches();
  change_cv_.notify_all();
}

uint64_t Store::resource_rv(const ResourceType& t) const {
  std::lock_guard lock(mu_);
  auto it = resource_rv_.find(t.storage_key());
  return std::max(restored_rv_, it == resource_rv_.end() ? uint64_t{0} : it->second);
}

uint64_t Store::wait_for_change(uint64_t seen_rv, Clock::time_point deadline) const {
  std::unique_lock lock(mu_);
  change_cv_.wait_until(lock, deadline, [&] { return rv_ != seen_rv || stopping_; });
  return rv_;
}

size_t Store::collect_garbage() {
  std::lock_guard lock(mu_);
  if (!gc_dirty_) return 0;
  gc_dirty_ = false;  // the pass's own writes set it again
  size_t writes = 0;
  // Owner lookup by uid; an owner is "gone" when no object with that uid exists.
  auto alive = [&](const std::string& uid) -> const json* {
    auto it = by_uid_.find(uid);
    if (it == by_uid_.end()) return nullptr;
    auto b = data_.find(it->second.first);
    if (b == data_.end()) return nullptr;
    auto o = b->second.find(it->second.second);
    return o == b->second.end() ? nullptr : &o->second;
  };
  struct Ref {
    ResourceTypePtr type;
    std::string ns, name;
  };
  // Only objects with owners or a pending deletion need work; nothing is copied.
  std::unordered_map<std::string, std::vector<Ref>> dependents;  // owner uid -> dependents
  std::vector<Ref> all;
  auto types = registry_.all();
  for (const auto& t : types) {
    if (!t->storage_version) continue;  // one pass per storage
    auto b = data_.find(t->storage_key());
    if (b == data_.end()) continue;
    for (const auto& [k, obj] : b->second) {
      (void)k;
      const json& md = meta(obj);
      const bool owned = md.contains("ownerReferences") && md["ownerReferences"].is_array() &&
                         !md["ownerReferences"].empty();
      if (!owned && !md.contains("deletionTimestamp")) continue;
      Ref ref{t, md.value("namespace", ""), md.value("name", "")};
      all.push_back(ref);
      if (owned)
        for (const auto& r : md["ownerReferences"])
          if (r.is_object()) dependents[r.value("uid", "")].push_back(ref);
    }
  }
  auto current = [&](const Ref& r) { return find(*r.type, r.ns, r.name); };
  for (const auto& ref : all) {
    const json* obj = current(ref);
    if (!obj) continue;
    const json& md = meta(*obj);
    const std::string uid = md.value("uid", "");
    const bool deleting = md.contains("deletionTimestamp");
    // 1. Orphan: strip our ownerReferences from dependents, then drop the finalizer.
    if (deleting && has_finalizer(*obj, "orphan")) {
      for (const auto& dep : dependents[uid]) {
        const json* d = current(dep);
        if (!d) continue;
        json next = *d;
        auto& refs = next["metadata"]["ownerReferences"];
        refs.erase(std::remove_if(refs.begin(), refs.end(), [&](const json& r) { return r.value("uid", "") == uid; }),
                   refs.end());
        if (refs.empty()) next["metadata"].erase("ownerReferences");
        do_update(*dep.type, *d, next, WriteOptions{}, false);
        ++writes;
      }
      json next = *current(ref);
      remove_finalizer(next, "orphan");
      do_update(*ref.type, *current(ref), next, {}, false);
      ++writes;
      continue;
    }
    // 2. Foreground: delete dependents; drop the finalizer once no blocking dependent remains.
    if (deleting && has_finalizer(*obj, "foregroundDeletion")) {
      bool blocked = false;
      for (const auto& dep : dependents[uid]) {
        const json* d = current(dep);
        if (!d) continue;
        bool blocks = false;
        for (const auto& r : owner_refs(*d))
          if (r.value("uid", "") == uid && r.value("blockOwnerDeletion", false)) blocks = true;
        blocked |= blocks;
        if (!meta(*d).contains("deletionTimestamp")) {
          do_remove(*dep.type, *d, propagate("Foreground"));
          ++writes;
        } else if (!has_finalizer(*d, "foregroundDeletion") && !has_finalizer(*d, "orphan") && finalizers_empty(*d)) {
          // nothing: it will be gone
        }
      }
      // Dependents removed just now no longer block.
      blocked = false;
      for (const auto& dep : dependents[uid]) {
        const json* d = current(dep);
        if (!d) continue;
        for (const auto& r : owner_refs(*d))
          if (r.value("uid", "") == uid && r.value("blockOwnerDeletion", false)) blocked = true;
      }
      if (!blocked) {
        json next = *current(ref);
        remove_finalizer(next, "foregroundDeletion");
        do_update(*ref.type, *current(ref), next, {}, false);
        ++writes;
      }
      continue;
    }
    // 3. Namespace controller: empty a terminating namespace, then release it.
    if (deleting && ref.type->group.empty() && ref.type->kind == "Namespace") {
      const std::string ns = md.value("name", "");
      bool remaining = false;
      for (const auto& t : types) {
        if (!t->namespaced || !t->storage_version) continue;
        auto b = data_.find(t->storage_key());
        if (b == data_.end()) continue;
        std::vector<json> victims;
        for (auto it = b->second.lower_bound(ns + "/"); it != b->second.end() && it->first.rfind(ns + "/", 0) == 0; ++it)
          victims.push_back(it->second);
        for (const auto& v : victims) {
          remaining = true;
          if (!meta(v).contains("deletionTimestamp")) {
            do_remove(*t, v, propagate("Background"));
            ++writes;
          }
        }
      }
      if (!remaining && obj->contains("spec") && (*obj)["spec"].contains("finalizers") &&
          !(*obj)["spec"]["finalizers"].empty()) {
        json next = *obj;
        next["spec"]["finalizers"] = json::array();
        ++rv_;
        next["metadata"]["resourceVersion"] = std::to_string(rv_);
        json old = *obj;
        bucket(*ref.type)[key("", ns)] = next;
        emit("MODIFIED", *ref.type, next, old);
        ++writes;
        if (finalizers_empty(next)) erase_now(*ref.type, next, false);
      }
      continue;
    }
    // 4. Dependents whose owners are all gone (or being deleted in the foreground).
    if (md.contains("ownerReferences") && md["ownerReferences"].is_array() && !md["ownerReferences"].empty() &&
        !deleting) {
      bool any_alive = false, foreground_owner = false;
      for (const auto& r : md["ownerReferences"]) {
        const json* owner = alive(r.value("uid", ""));
        if (owner && ref.type->namespaced && !meta(*owner).value("namespace", "").empty() &&
            meta(*owner).value("namespace", "") != md.value("namespace", ""))
          owner = nullptr;  // cross-namespace references count as absent
        if (owner) {
          any_alive = true;
          if (has_finalizer(*owner, "foregroundDeletion")) foreground_owner = true;
        }
      }
      if (!any_alive) {
        do_remove(*ref.type, *obj, propagate("Background"));
        ++writes;
      } else if (foreground_owner) {
        // Handled by the owner's foreground step.
      }
    }
  }
  return writes;
}

json Store::snapshot() const {
  std::lock_guard lock(mu_);
  json objects = json::object();
  for (const auto& [k, b] : data_) {
    json arr = json::array();
    for (const auto& [ok, obj] : b) {
      (void)ok;
      arr.push_back(obj);
    }
    if (!arr.empty()) objects[k] = arr;
  }
  return {{"resourceVersion", rv_}, {"objects", objects}};
}

void Store::restore(const json& snap) {
  std::lock_guard lock(mu_);
  data_.clear();
  by_uid_.clear();
  referenced_.clear();
  history_.clear();
  text_cache_.clear();
  gc_dirty_ = true;
  rv_ = snap.value("resourceVersion", uint64_t{1});
  restored_rv_ = rv_;
  floor_rv_ = rv_;
  const json objects = snap.value("objects", json::object());
  // CRDs first, so their kinds exist.
  if (objects.contains("apiextensions.k8s.io/customresourcedefinitions"))
    for (const auto& crd : objects["apiextensions.k8s.io/customresourcedefinitions"]) {
      try {
        registry_.register_crd(crd);
      } catch (...) {
      }
    }
  for (const auto& [k, arr] : objects.items()) {
    for (const auto& obj : arr) {
      data_[k][key(meta_str(obj, "namespace"), meta_str(obj, "name"))] = obj;
      by_uid_[meta_str(obj, "uid")] = {k, key(meta_str(obj, "namespace"), meta_str(obj, "name"))};
      track_owner_refs(obj, +1);
    }
  }
}

}  // namespace kubesim
