// Shared text: the informer caches keep each JSON value that many cached objects carry
// byte for byte (a worker Deployment's 4 KB start-up script and its argument list, the
// probes, resources and tolerations of every graph of one recipe) once, and each object
// refers to it. At 1000 DGDs the Deployments and Jobs of one recipe differ only in the
// few strings that carry the graph's name; the rest of their pod templates repeats.
//
// SharedTextPool: the values currently shared, by content. A value becomes shared the
// second time the pool is asked about it (a fixed-size table of recent hashes remembers
// the first time), so values that occur once cost nothing beyond their inline text.
// A shared value lives as long as an object refers to it. Thread-safe.
//
// SplicedText: a compact JSON text with some of its values cut out and held as shared
// values. str() rebuilds the exact text: readers see the same bytes as without sharing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dgd::runtime {

class SharedTextPool {
 public:
  // The process-wide pool the caches use. Never destroyed (objects may outlive main's
  // statics while threads stop).
  static SharedTextPool& global();

  SharedTextPool();
  SharedTextPool(const SharedTextPool&) = delete;
  SharedTextPool& operator=(const SharedTextPool&) = delete;

  // The shared copy of `value` if it is shared or was asked about recently (then it
  // becomes shared); null the first time (the caller keeps its own copy).
  std::shared_ptr<const std::string> share(std::string_view value);

  // Off: share() always returns null (the benchmarks compare both forms).
  void set_enabled(bool on);
  bool enabled() const;
  // Values shared now, and their bytes (each counted once).
  size_t size() const;
  size_t bytes() const;

 private:
  struct Key {
    std::string_view text;  // points into the shared string
    size_t hash;
    bool operator==(const Key& o) const { return hash == o.hash && text == o.text; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return k.hash; }
  };
  struct Release;
  void release(const std::string* s);

  static constexpr size_t kRecentSlots = size_t{1} << 15;  // 256 KiB of hashes
  mutable std::mutex mu_;
  bool enabled_ = true;
  size_t bytes_ = 0;
  std::unordered_map<Key, std::weak_ptr<const std::string>, KeyHash> shared_;
  std::vector<uint64_t> recent_;  // hashes of values asked about once, by hash % slots
};

class SplicedText {
 public:
  SplicedText() = default;
  // `compact` (a compact JSON object as the cache makes it) with its large values outside
  // the members named in `skip_members` (top level; e.g. metadata) looked up in `pool`;
  // those shared are cut out.
  static SplicedText make(std::string compact, SharedTextPool& pool, std::initializer_list<std::string_view> skip_members);

  // The whole text.
  std::string str() const;
  size_t size() const { return size_; }
  // Bytes held by this object alone (the text minus the shared values) and the number of
  // shared values it refers to.
  size_t own_bytes() const { return literal_.size(); }
  size_t shared_values() const { return splices_.size(); }

 private:
  struct Splice {
    uint32_t at;  // offset in literal_ where the shared value goes
    std::shared_ptr<const std::string> value;
  };
  std::string literal_;
  std::vector<Splice> splices_;
  size_t size_ = 0;
};

}  // namespace dgd::runtime
