#include "dgd/runtime/informer.h"

#include <spdlog/spdlog.h>

#include <mutex>
#include <random>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "dgd/kube/metrics.h"
#include "dgd/kube/rest_client.h"
#include "dgd/kube/watch.h"
#include "dgd/runtime/list_page.h"

namespace dgd::runtime {

namespace {

// Lists of different informers take turns. A list holds its page's text (and the
// transport's buffers) besides the objects compacted so far; a dozen informers listing
// at once at start-up would hold a dozen pages at the same time, and that transient, not
// the cache, would set the operator's peak RSS. The server's work is the same either way.
std::mutex& list_turn() {
  static std::mutex m;
  return m;
}

// Hands the pages' freed memory back to the OS: without it the RSS after a (re)list keeps
// the transient's high-water mark, spread over several malloc arenas.
void release_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace

Informer::Informer(std::shared_ptr<kube::RestClient> client, InformerOptions options)
    : client_(std::move(client)), options_(std::move(options)) {
  if (options_.metrics) {
    // Present from the start at 0: "no relists" is data, not a gap on a dashboard.
    options_.metrics->counter("dgd_informer_relists_total", "Lists after the first one (410 Gone / Expired recoveries).",
                              {{"resource", options_.resource.to_string()}});
    update_gauge();
  }
}

Informer::~Informer() { stop(); }

void Informer::add_handler(EventHandler handler) { handlers_.push_back(std::move(handler)); }

void Informer::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void Informer::stop() {
  cancel_.cancel();
  if (thread_.joinable()) thread_.join();
}

void Informer::dispatch_add(const ObjectPtr& o) {
  for (auto& h : handlers_) if (h.on_add) h.on_add(o);
}
void Informer::dispatch_update(const ObjectPtr& old_obj, const ObjectPtr& new_obj) {
  for (auto& h : handlers_) if (h.on_update) h.on_update(old_obj, new_obj);
}
void Informer::dispatch_delete(const ObjectPtr& o) {
  for (auto& h : handlers_) if (h.on_delete) h.on_delete(o);
}

SharedTextPool* Informer::shared_pool() const {
  return options_.share_values ? &SharedTextPool::global() : nullptr;
}

void Informer::update_gauge() {
  if (!options_.metrics) return;
  if (gauges_.objects == nullptr) {  // the informer thread only: no lock needed
    const std::string r = options_.resource.to_string();
    const char* help = "Bytes of the JSON texts in an informer's cache: whole, and held by the objects themselves "
                       "(the rest is shared with other objects).";
    gauges_.objects = &options_.metrics->gauge("dgd_informer_cache_objects", "Objects held in an informer's cache.",
                                               {{"resource", r}});
    gauges_.whole = &options_.metrics->gauge("dgd_informer_cache_text_bytes", help, {{"resource", r}, {"form", "whole"}});
    gauges_.own = &options_.metrics->gauge("dgd_informer_cache_text_bytes", help, {{"resource", r}, {"form", "own"}});
  }
  gauges_.objects->set(static_cast<double>(store_.size()));
  const Store::TextBytes bytes = store_.text_bytes();
  gauges_.whole->set(static_cast<double>(bytes.whole));
  gauges_.own->set(static_cast<double>(bytes.own));
}

bool Informer::list_and_replace(std::string& resource_version) {
  std::vector<ObjectPtr> objects;
  kube::ListOptions lo;
  lo.label_selector = options_.label_selector;
  lo.field_selector = options_.field_selector;
  lo.limit = options_.page_size;
  lo.cancel = cancel_.token();
  std::string list_rv;
  std::unique_lock turn(list_turn());
  for (;;) {
    auto page = client_->list_text(options_.resource, options_.ns, lo);
    if (!page) {
      if (page.error().kind == kube::ErrorKind::kGone && !lo.continue_token.empty()) {
        // The continue token expired mid-list: start over for a consistent snapshot.
        spdlog::info("informer {}: continue token expired, restarting the list", options_.resource.to_string());
        objects.clear();
        lo.continue_token.clear();
        continue;
      }
      if (page.error().kind != kube::ErrorKind::kCanceled) {
        spdlog::warn("informer {}: list failed: {}", options_.resource.to_string(), page.error().to_string());
      }
      return false;
    }
    // Items go from the page's text into the cache form (no DOM of the page).
    ListPage decoded;
    decoded.items = std::move(objects);
    std::string why;
    const bool ok = decode_list_page(*page, options_.projection, shared_pool(), decoded, &why);
    objects = std::move(decoded.items);
    if (!ok) {
      spdlog::warn("informer {}: list response unreadable: {}", options_.resource.to_string(), why);
      return false;
    }
    if (list_rv.empty()) list_rv = decoded.resource_version;
    if (decoded.continue_token.empty()) break;
    lo.continue_token = std::move(decoded.continue_token);
  }
  turn.unlock();
  release_free_memory();
  Store::Diff diff = store_.replace(std::move(objects));
  if (lists_++ > 0) {
    relists_.fetch_add(1);
    if (options_.metrics) {
      options_.metrics
          ->counter("dgd_informer_relists_total", "Lists after the first one (410 Gone / Expired recoveries).",
                    {{"resource", options_.resource.to_string()}})
          .inc();
    }
    spdlog::info("informer {}: relisted at {}: {} added, {} updated, {} deleted", options_.resource.to_string(),
                 list_rv, diff.added.size(), diff.updated.size(), diff.deleted.size());
  }
  update_gauge();
  for (const auto& o : diff.added) dispatch_add(o);
  for (const auto& [o, n] : diff.updated) dispatch_update(o, n);
  for (const auto& o : diff.deleted) dispatch_delete(o);
  resource_version = list_rv;
  return true;
}

bool Informer::watch_once(std::string& resource_version, bool& failed) {
  static thread_local std::mt19937 rng(std::random_device{}());
  auto lo = options_.min_watch_timeout.count(), hi = std::max(options_.max_watch_timeout.count(), lo);
  kube::WatchOptions wo;
  wo.label_selector = options_.label_selector;
  wo.field_selector = options_.field_selector;
  wo.resource_version = resource_version;
  wo.allow_bookmarks = true;
  wo.timeout_seconds = static_cast<int>(std::uniform_int_distribution<long>(lo, hi)(rng));
  bool relist = false;
  failed = false;
  events_in_watch_ = 0;
  const std::string what = options_.resource.to_string();
  // decode_watch_event already checked the object is a JSON object; should it still not
  // compact, the stream is dropped and re-established after a back-off.
  auto bad_object = [&](const kube::WatchEvent& ev) {
    spdlog::warn("informer {}: watch event object is not a JSON object: {}", what, ev.object_text.substr(0, 200));
    failed = true;
    return false;
  };
  auto status = client_->watch(
      options_.resource, options_.ns, wo,
      [&](kube::WatchEvent&& ev) {
        ++events_in_watch_;
        switch (ev.type) {
          case kube::WatchEventType::kAdded:
          case kube::WatchEventType::kModified: {
            // From the event's text in one pass: no DOM per event (watch_scan.h).
            auto obj = CachedObject::from_text(ev.object_text, options_.projection, shared_pool());
            if (!obj) return bad_object(ev);
            resource_version = obj->resource_version();
            auto old = store_.upsert(obj);
            update_gauge();
            if (old) dispatch_update(old, obj);
            else dispatch_add(obj);
            return true;
          }
          case kube::WatchEventType::kDeleted: {
            auto obj = CachedObject::from_text(ev.object_text, options_.projection, shared_pool());
            if (!obj) return bad_object(ev);
            resource_version = obj->resource_version();
            auto old = store_.erase(obj->key());
            update_gauge();
            dispatch_delete(obj);
            return true;
          }
          case kube::WatchEventType::kBookmark: {
            std::string rv = ev.resource_version();
            if (!rv.empty()) resource_version = rv;
            return true;
          }
          case kube::WatchEventType::kError: {
            kube::Error e = ev.status_error("WATCH " + what);
            if (e.kind == kube::ErrorKind::kGone) {
              spdlog::info("informer {}: watch from {} expired ({}), relisting", what, resource_version, e.message);
              relist = true;
            } else {
              spdlog::warn("informer {}: watch ERROR event: {}", what, e.to_string());
              failed = true;
            }
            return false;
          }
        }
        return true;
      },
      cancel_.token());
  if (!status) {
    const auto& e = status.error();
    if (e.kind == kube::ErrorKind::kGone) {
      spdlog::info("informer {}: watch from {} gone ({}), relisting", what, resource_version, e.message);
      return true;
    }
    if (e.kind != kube::ErrorKind::kCanceled) {
      spdlog::warn("informer {}: watch failed: {}", what, e.to_string());
      failed = true;
    }
  }
  return relist;
}

void Informer::run() {
  kube::Backoff backoff(options_.backoff);
  const std::string what = options_.resource.to_string();
  while (!cancel_.cancelled()) {
    std::string rv;
    if (!list_and_replace(rv)) {
      if (!cancel_.token().sleep_for(backoff.next())) break;
      continue;
    }
    backoff.reset();
    // Watch until a relist is needed.
    while (!cancel_.cancelled()) {
      auto started = std::chrono::steady_clock::now();
      bool failed = false;
      bool relist = watch_once(rv, failed);
      if (cancel_.cancelled()) break;
      if (relist) break;
      // A stream that fails, or ends at once without events, is retried after a back-off
      // so a broken server is not hammered; a stream that delivered events or lived a
      // while reconnects at once.
      bool quick_empty = events_in_watch_ == 0 && std::chrono::steady_clock::now() - started < std::chrono::seconds(1);
      if (failed || quick_empty) {
        if (!cancel_.token().sleep_for(backoff.next())) break;
      } else {
        backoff.reset();
      }
    }
  }
  spdlog::debug("informer {}: stopped", what);
}

}  // namespace dgd::runtime
