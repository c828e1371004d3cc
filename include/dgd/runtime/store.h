// Store: the informer's cache of one kind. It keeps a compact, immutable form of each
// object (CachedObject: the JSON without metadata.managedFields and without the
// kubectl last-applied annotation, plus the few metadata fields the indexes need),
// indexed by namespace/name and by owner UID.
// One writer (the informer), many readers. Readers get shared_ptr<const CachedObject>
// snapshots under a short shared lock; a relist is swapped in whole, so readers never
// see half of one. Thread-safe.
#pragma once
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dgd/runtime/shared_text.h"

namespace dgd::runtime {

// FieldProjection: the fields a cache keeps of each object beyond apiVersion, kind and
// metadata (always kept, minus what the cache strips). For kinds whose readers need a
// few fields of big objects (pods and nodes for placement): a real node's status carries
// images, conditions, addresses; a pod's spec carries env, args, volumes.
// Paths are dotted keys ("spec.nodeName", "status.allocatable"); a path through an array
// applies to every element ("spec.containers.resources" keeps each container's
// resources only; an array directly inside an array is kept whole). A kept path keeps its
// whole value; a value of another shape than the path expects (a scalar where an object
// was expected) is kept as it is. Keys containing '.' cannot be named. Empty = keep all.
class FieldProjection {
 public:
  FieldProjection() = default;
  explicit FieldProjection(const std::vector<std::string>& paths);
  bool empty() const { return root_.children.empty(); }
  // The paths, sorted (for logs and tests).
  std::vector<std::string> paths() const;

  struct Node {
    bool all = false;  // keep this value whole
    std::map<std::string, Node, std::less<>> children;
    // The child named by the raw (still escaped) JSON key, or null.
    const Node* child(std::string_view raw_key) const;
  };
  const Node& root() const { return root_; }

 private:
  Node root_;
};

struct OwnerRef {
  std::string api_version, kind, name, uid;
  bool controller = false;
};

class CachedObject {
  struct Private {};

 public:
  explicit CachedObject(Private) {}  // only through make / from_text

  // Compacts `object` (strips managedFields and last-applied-configuration).
  static std::shared_ptr<const CachedObject> make(nlohmann::json object);
  // The same, keeping only the projected fields beyond apiVersion/kind/metadata.
  static std::shared_ptr<const CachedObject> make(nlohmann::json object, const FieldProjection& projection);
  // The same from the object's JSON text (a watch event's object), in one pass and
  // without building a DOM: the text is validated, copied without whitespace and
  // without the stripped fields, in the server's key order. Null if `text` is not a
  // JSON object (`error`, if given, says why).
  static std::shared_ptr<const CachedObject> from_text(std::string_view text, std::string* error = nullptr);
  // The same with a projection: equal to make(json::parse(text), projection).
  static std::shared_ptr<const CachedObject> from_text(std::string_view text, const FieldProjection& projection,
                                                       std::string* error = nullptr);
  // The same, sharing with the other objects cached through `shared` the large values
  // they have in common (shared_text.h; null: none). The text reads the same either way;
  // sharing costs about a third more CPU per object (bench_informer_memory).
  static std::shared_ptr<const CachedObject> from_text(std::string_view text, const FieldProjection& projection,
                                                       SharedTextPool* shared, std::string* error = nullptr);

  const std::string& ns() const { return ns_; }
  const std::string& name() const { return name_; }
  const std::string& uid() const { return uid_; }
  const std::string& resource_version() const { return resource_version_; }
  // "namespace/name", or "name" for cluster-scoped objects.
  std::string key() const { return ns_.empty() ? name_ : ns_ + "/" + name_; }
  // metadata.ownerReferences, the controller owner first.
  const std::vector<OwnerRef>& owner_refs() const { return owner_refs_; }
  // The compact JSON text (rebuilt from the object's own bytes and the values it shares
  // with other cached objects: shared_text.h).
  std::string json_text() const { return text_.str(); }
  size_t json_size() const { return text_.size(); }
  // What the object holds: its own bytes and its references to shared values.
  const SplicedText& text() const { return text_; }
  // A freshly parsed copy of the object (a reconcile reads a few objects; parsing on
  // demand keeps the cache at ~1x the compact JSON size).
  nlohmann::json object() const;

 private:
  static std::shared_ptr<CachedObject> create() { return std::make_shared<CachedObject>(Private{}); }
  std::string ns_, name_, uid_, resource_version_;
  std::vector<OwnerRef> owner_refs_;
  SplicedText text_;
};

using ObjectPtr = std::shared_ptr<const CachedObject>;

// Removes metadata.managedFields and the kubectl last-applied annotation in place.
void strip_for_cache(nlohmann::json& object);
// Drops what `projection` does not keep, in place (see FieldProjection).
void project_for_cache(nlohmann::json& object, const FieldProjection& projection);

class Store {
 public:
  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // --- readers (any thread). The cache may lag the server: a reconcile that needs the
  // latest state and finds it missing should fail and let the retry policy run.
  ObjectPtr get(std::string_view ns, std::string_view name) const;
  ObjectPtr get(std::string_view key) const;
  // All objects, ordered by key.
  std::vector<ObjectPtr> list() const;
  // Objects of one namespace, ordered by name.
  std::vector<ObjectPtr> list(std::string_view ns) const;
  // Objects with an ownerReference to `owner_uid`.
  std::vector<ObjectPtr> by_owner(std::string_view owner_uid) const;
  size_t size() const;
  // Bytes of the cached objects' texts: whole (as json_text() gives them), and the part
  // the objects hold themselves (the rest is shared: shared_text.h).
  struct TextBytes {
    size_t whole = 0, own = 0;
  };
  TextBytes text_bytes() const;
  // True once the first full list has been swapped in.
  bool synced() const;
  // Waits for synced(); false on timeout.
  bool wait_synced(std::chrono::milliseconds timeout) const;

  // --- writer (the informer only).
  // Inserts or replaces by key; returns the previous object or null.
  ObjectPtr upsert(ObjectPtr object);
  // Removes `key`; returns the removed object or null.
  ObjectPtr erase(const std::string& key);
  struct Diff {
    std::vector<ObjectPtr> added;
    std::vector<std::pair<ObjectPtr, ObjectPtr>> updated;  // (old, new), resourceVersion changed
    std::vector<ObjectPtr> deleted;                        // last known state
  };
  // Atomically replaces the content with `objects` (a relist) and marks the store synced.
  // Returns what changed, so the informer can deliver the difference as events.
  Diff replace(std::vector<ObjectPtr> objects);

 private:
  // An object's key as views of its own namespace and name (no copy per index entry),
  // ordered as the "namespace/name" strings are.
  struct KeyRef {
    std::string_view ns, name;
  };
  struct KeyOrder {
    using is_transparent = void;
    bool operator()(const KeyRef& a, const KeyRef& b) const;
  };
  static KeyRef key_of(const CachedObject& o) { return {o.ns(), o.name()}; }
  static KeyRef parse_key(std::string_view key);
  using KeyMap = std::map<KeyRef, ObjectPtr, KeyOrder>;
  using OwnerMap = std::map<std::string, std::set<KeyRef, KeyOrder>, std::less<>>;

  void index_locked(const ObjectPtr& o);
  void unindex_locked(const ObjectPtr& o);
  mutable std::shared_mutex mu_;
  KeyMap by_key_;      // views into the objects it holds
  OwnerMap by_owner_;  // owner uid -> keys of its dependents (views into by_key_'s objects)
  TextBytes bytes_;
  bool synced_ = false;
  mutable std::mutex sync_mu_;
  mutable std::condition_variable sync_cv_;
};

}  // namespace dgd::runtime
