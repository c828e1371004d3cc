#include "dgd/runtime/shared_text.h"

#include <cstring>
#include <functional>

#include "dgd/kube/watch_scan.h"

namespace dgd::runtime {

namespace {

// Containers nested deeper are copied (and offered) whole: the copy recurses (pod
// templates share at depth 5-8), and a hostile object may nest arrays 100,000 deep.
constexpr int kMaxDepth = 24;

// 8 bytes per step (a multiply and a shift): the cache hashes most of each object it
// stores, so std::hash (murmur, byte tail loops) showed in the watch decode rate.
size_t hash_text(std::string_view v) {
  const char* p = v.data();
  const size_t n = v.size();
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  std::memcpy(&w, p + i, n - i);
  h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 29;
  return static_cast<size_t>(h);
}

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

std::shared_ptr<const std::string> SharedTextPool::share(std::string_view value, uint32_t owner) {
  const size_t hash = hash_text(value);
  std::lock_guard<std::mutex> lock(mu_);
  if (!enabled_) return nullptr;
  if (auto it = shared_.find(Key{value, hash}); it != shared_.end()) {
    if (auto p = it->second.lock()) return p;
    // Its last reference is going (its release waits for this lock): replace it.
    shared_.erase(it);
  }
  uint64_t& slot = recent_[hash % kRecentSlots];
  const uint64_t seen = (static_cast<uint64_t>(hash) & ~uint64_t{0xFFFF}) | (owner & 0xFFFF);
  if ((slot >> 16) != (static_cast<uint64_t>(hash) >> 16)) {
    slot = seen;  // the first time: remember it, share it if another object has it too
    return nullptr;
  }
  if (owner != 0 && (slot & 0xFFFF) == (owner & 0xFFFF)) return nullptr;  // the same object again
  slot = 0;
  auto* s = new std::string(value);
  std::shared_ptr<const std::string> p(s, Release{this});
  shared_.emplace(Key{*s, hash}, p);
  bytes_ += s->size();
  return p;
}

void SharedTextPool::release(const std::string* s) {
  const size_t hash = hash_text(*s);
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

size_t SplicedText::Builder::begin_value() {
  nodes_.push_back({literal_.size(), 0, false});
  return nodes_.size() - 1;
}

void SplicedText::Builder::end_value(size_t node, bool container) {
  Node& n = nodes_[node];
  n.end = literal_.size();
  n.container = container;
  // A small value's members are smaller still: they were dropped already, it is last.
  if (!enabled_ || n.end - n.start < SharedTextPool::kMinShared) nodes_.resize(node);
}

SplicedText SplicedText::Builder::finish(uint32_t owner) {
  SplicedText t;
  t.size_ = literal_.size();
  std::vector<std::pair<size_t, std::shared_ptr<const std::string>>> found;  // node start, value
  size_t inside_until = 0;  // members of a value already shared
  for (const Node& n : nodes_) {
    if (n.start < inside_until) continue;
    if (n.container && n.end - n.start > SharedTextPool::kMaxWholeContainer) continue;  // its members are next
    if (auto p = pool_->share(std::string_view(literal_).substr(n.start, n.end - n.start), owner)) {
      found.emplace_back(n.start, std::move(p));
      inside_until = n.end;
    }
  }
  if (found.empty() || literal_.size() > UINT32_MAX) {
    literal_.shrink_to_fit();
    t.literal_ = std::move(literal_);
    return t;
  }
  size_t shared = 0;
  for (const auto& f : found) shared += f.second->size();
  t.literal_.reserve(literal_.size() - shared);
  size_t at = 0;
  for (auto& [start, value] : found) {
    t.literal_.append(literal_, at, start - at);
    at = start + value->size();
    t.splices_.push_back({static_cast<uint32_t>(t.literal_.size()), std::move(value)});
  }
  t.literal_.append(literal_, at, std::string::npos);
  return t;
}

namespace detail {

bool copy_sharing(kube::JsonScanner& s, SplicedText::Builder& b, int depth) {
  const char c = s.peek();
  const bool container = c == '{' || c == '[';
  if (!b.enabled()) return s.value(&b.out());
  const size_t node = b.begin_value();
  std::string& out = b.out();
  if (!container || depth >= kMaxDepth) {
    if (!s.value(&out)) return false;
  } else if (c == '{') {
    out += '{';
    bool first = true;
    std::string_view key;
    s.begin_object();
    while (s.next_member(key)) {
      if (!first) out += ',';
      first = false;
      out += '"';
      out.append(key);
      out += "\":";
      if (!copy_sharing(s, b, depth + 1)) return false;
    }
    out += '}';
  } else {
    out += '[';
    bool first = true;
    s.begin_array();
    while (s.next_element()) {
      if (!first) out += ',';
      first = false;
      if (!copy_sharing(s, b, depth + 1)) return false;
    }
    out += ']';
  }
  if (!s.ok()) return false;
  b.end_value(node, container);
  return true;
}

}  // namespace detail

SplicedText SplicedText::make(std::string_view json, SharedTextPool& pool,
                              std::initializer_list<std::string_view> skip_members) {
  Builder b(&pool);
  std::string& out = b.out();
  out.reserve(json.size());
  kube::JsonScanner s(json);
  bool ok = s.peek() == '{' && s.begin_object();
  out += '{';
  bool first = true;
  std::string_view key;
  while (ok && s.next_member(key)) {
    if (!first) out += ',';
    first = false;
    out += '"';
    out.append(key);
    out += "\":";
    bool skip = false;
    for (auto m : skip_members) skip = skip || kube::JsonScanner::raw_equals(key, m);
    ok = skip ? s.value(&out) : detail::copy_sharing(s, b, 1);
  }
  out += '}';
  if (!ok || !s.ok() || !s.at_end()) {
    SplicedText whole;
    whole.literal_.assign(json);
    whole.size_ = json.size();
    return whole;
  }
  return b.finish();
}

SplicedText SplicedText::whole(std::string text) {
  SplicedText t;
  t.size_ = text.size();
  t.literal_ = std::move(text);
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
