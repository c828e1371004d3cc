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

namespace dgd::kube {
class JsonScanner;
}

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
  // becomes shared); null the first time (the caller keeps its own copy). `owner` tags the
  // object asking (0: unknown): a value asked about again only by the same owner (the
  // next version of one object, as a watch delivers it) is not made shared, since only
  // that object would hold it.
  std::shared_ptr<const std::string> share(std::string_view value, uint32_t owner = 0);
  // Values smaller than this are never offered (a splice and an entry cost ~150 bytes).
  static constexpr size_t kMinShared = 64;
  // Objects and arrays above this size are not looked up whole, only their members: a
  // container that large nearly always carries the graph's name somewhere (a Deployment's
  // spec, its pod template), and hashing it would cost a pass over most of the object.
  static constexpr size_t kMaxWholeContainer = 2048;

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
  // Values asked about once, by hash % slots: the hash's high 48 bits and the owner's low 16.
  std::vector<uint64_t> recent_;
};

class SplicedText {
 public:
  SplicedText() = default;
  // `json` (one valid JSON object, any spacing) in compact form, its large values outside
  // the top-level members named in `skip_members` (e.g. metadata) looked up in `pool`;
  // those shared are cut out. Invalid JSON is kept as it is, whole.
  static SplicedText make(std::string_view json, SharedTextPool& pool,
                          std::initializer_list<std::string_view> skip_members);

  // Builds a SplicedText while a caller copies a JSON object into compact text: the
  // caller appends to out() and brackets each value it may share with begin_value() /
  // end_value() (detail::copy_sharing does it for a whole value). finish() then shares,
  // top down, the largest values the pool knows: a value found is cut out whole, and only
  // the members of one not found are looked at. One pass over the text, no re-scan.
  class Builder {
   public:
    // Null `pool`: nothing is shared (the text is copied as it is).
    explicit Builder(SharedTextPool* pool) : pool_(pool), enabled_(pool != nullptr && pool->enabled()) {}
    std::string& out() { return literal_; }
    bool enabled() const { return enabled_; }
    size_t begin_value();
    void end_value(size_t node, bool container);
    // `owner` tags the object being built (SharedTextPool::share).
    SplicedText finish(uint32_t owner = 0);

   private:
    struct Node {
      size_t start, end;
      bool container;
    };
    SharedTextPool* pool_;
    const bool enabled_;
    std::string literal_;
    std::vector<Node> nodes_;  // values of kMinShared bytes or more, in pre-order
  };

  // `text` as it is, nothing shared.
  static SplicedText whole(std::string text);

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

// Copies the next value of `s` in compact form into `b.out()`, marking the values it may
// share; containers nested deeper than a bound are copied (and offered) whole. False if
// the scanner failed.
namespace detail {
bool copy_sharing(kube::JsonScanner& s, SplicedText::Builder& b, int depth = 1);
}

}  // namespace dgd::runtime
