#include "dgd/runtime/shared_text.h"

#include <functional>

#include "dgd/kube/watch_scan.h"

namespace dgd::runtime {

namespace {

// Smaller values stay inline: a reference (24 bytes) and a pool entry (~120 bytes,
// shared) would save little on them.
constexpr size_t kMinShared = 64;
// Objects and arrays above this size are not looked up whole, only their members: a
// container that large nearly always carries the graph's name somewhere (a Deployment's
// spec, its pod template, its container), and hashing it would cost a pass over most of
// the object at every level.
constexpr size_t kMaxWholeContainer = 2048;
// Values nested deeper are kept inline: the walk recurses (pod templates share at depth
// 5-8), and a hostile object may nest arrays 100,000 deep.
constexpr int kMaxDepth = 24;

}  // namespace

struct SharedTextPool::Release {
  SharedTextPool* pool;
  void operator()(const std::string* s) const {
    pool->release(s);
    delete s;
  }
};

SharedTextPool& SharedTextPool::global() {
  static SharedTextPool* pool = new SharedTextPool();  // never destroyed (header)
  return *pool;
}

SharedTextPool::SharedTextPool() : recent_(kRecentSlots, 0) {}

std::shared_ptr<const std::string> SharedTextPool::share(std::string_view value) {
  const size_t hash = std::hash<std::string_view>{}(value);
  std::lock_guard<std::mutex> lock(mu_);
  if (!enabled_) return nullptr;
  if (auto it = shared_.find(Key{value, hash}); it != shared_.end()) {
    if (auto p = it->second.lock()) return p;
    // Its last reference is going (its release waits for this lock): replace it.
    shared_.erase(it);
  }
  uint64_t& slot = recent_[hash % kRecentSlots];
  if (slot != hash) {
    slot = hash;  // the first time: remember it, share it if it comes again
    return nullptr;
  }
  slot = 0;
  auto* s = new std::string(value);
  std::shared_ptr<const std::string> p(s, Release{this});
  shared_.emplace(Key{*s, hash}, p);
  bytes_ += s->size();
  return p;
}

void SharedTextPool::release(const std::string* s) {
  const size_t hash = std::hash<std::string_view>{}(*s);
  std::lock_guard<std::mutex> lock(mu_);
  bytes_ -= s->size();
  auto it = shared_.find(Key{*s, hash});
  // Only its own entry: share() may have replaced it with a new copy of the same text.
  if (it != shared_.end() && it->first.text.data() == s->data()) shared_.erase(it);
}

void SharedTextPool::set_enabled(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  enabled_ = on;
}

bool SharedTextPool::enabled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return enabled_;
}

size_t SharedTextPool::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shared_.size();
}

size_t SharedTextPool::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

namespace {

using kube::JsonScanner;

struct Splicer {
  SharedTextPool& pool;
  std::string& literal;
  std::vector<std::pair<uint32_t, std::shared_ptr<const std::string>>>& splices;

  // Appends `v` (one compact JSON value), its shared parts as splices. False if `v` is
  // not valid JSON (the caller then keeps the text whole).
  bool emit(std::string_view v, int depth) {
    if (v.size() < kMinShared || depth > kMaxDepth) {
      literal.append(v);
      return true;
    }
    const bool container = v.front() == '{' || v.front() == '[';
    if (!container || v.size() <= kMaxWholeContainer) {
      if (auto shared = pool.share(v)) {
        splices.emplace_back(static_cast<uint32_t>(literal.size()), std::move(shared));
        return true;
      }
    }
    if (!container) {
      literal.append(v);
      return true;
    }
    JsonScanner s(v);
    bool first = true;
    if (v.front() == '{') {
      std::string_view key;
      literal += '{';
      s.begin_object();
      while (s.next_member(key)) {
        if (!first) literal += ',';
        first = false;
        literal += '"';
        literal.append(key);
        literal += "\":";
        if (!member(s, v, depth)) return false;
      }
      literal += '}';
    } else {
      literal += '[';
      s.begin_array();
      while (s.next_element()) {
        if (!first) literal += ',';
        first = false;
        if (!member(s, v, depth)) return false;
      }
      literal += ']';
    }
    return s.ok() && s.at_end();
  }

  bool member(JsonScanner& s, std::string_view v, int depth) {
    s.peek();
    const size_t start = s.pos();
    if (!s.value()) return false;
    return emit(v.substr(start, s.pos() - start), depth + 1);
  }
};

}  // namespace

SplicedText SplicedText::make(std::string compact, SharedTextPool& pool,
                              std::initializer_list<std::string_view> skip_members) {
  SplicedText t;
  t.size_ = compact.size();
  std::vector<std::pair<uint32_t, std::shared_ptr<const std::string>>> splices;
  std::string literal;
  bool ok = compact.size() <= UINT32_MAX && pool.enabled();
  if (ok) {
    literal.reserve(compact.size());
    Splicer splicer{pool, literal, splices};
    JsonScanner s(compact);
    ok = s.peek() == '{' && s.begin_object();
    literal += '{';
    bool first = true;
    std::string_view key;
    while (ok && s.next_member(key)) {
      if (!first) literal += ',';
      first = false;
      literal += '"';
      literal.append(key);
      literal += "\":";
      bool skip = false;
      for (auto m : skip_members) skip = skip || JsonScanner::raw_equals(key, m);
      s.peek();
      const size_t start = s.pos();
      if (!s.value()) break;
      const std::string_view v = std::string_view(compact).substr(start, s.pos() - start);
      if (skip) literal.append(v);
      else ok = splicer.emit(v, 1);
    }
    literal += '}';
    ok = ok && s.ok() && s.at_end();
  }
  if (!ok || splices.empty()) {
    t.literal_ = std::move(compact);
    t.literal_.shrink_to_fit();
    return t;
  }
  literal.shrink_to_fit();
  t.literal_ = std::move(literal);
  t.splices_.reserve(splices.size());
  for (auto& [at, value] : splices) t.splices_.push_back({at, std::move(value)});
  return t;
}

std::string SplicedText::str() const {
  if (splices_.empty()) return literal_;
  std::string out;
  out.reserve(size_);
  size_t at = 0;
  for (const auto& s : splices_) {
    out.append(literal_, at, s.at - at);
    out += *s.value;
    at = s.at;
  }
  out.append(literal_, at, std::string::npos);
  return out;
}

}  // namespace dgd::runtime
