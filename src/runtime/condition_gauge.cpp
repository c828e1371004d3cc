#include "dgd/runtime/condition_gauge.h"

#include <cctype>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "dgd/kube/metrics.h"

namespace dgd::runtime {
namespace {

using nlohmann::json;

constexpr const char* kStatuses[] = {"True", "False", "Unknown"};
constexpr size_t kUnknown = 2;

struct Counts {
  std::shared_ptr<kube::MetricsRegistry> metrics;  // keeps the gauges alive
  ConditionGaugeOptions options;
  std::vector<kube::Gauge*> gauges;               // one per combination, mixed radix 3
  std::unordered_map<std::string, size_t> of_key;  // object key -> its combination
};

// The combination index of `object`'s conditions. Only `status` is built from the text.
size_t combination_of(const Counts& c, const ObjectPtr& object) {
  std::vector<size_t> digits(c.options.conditions.size(), kUnknown);
  const json doc = json::parse(
      object->json_text(),
      [](int depth, json::parse_event_t event, json& parsed) {
        return !(event == json::parse_event_t::key && depth == 1 && parsed != "status");
      },
      false);
  const json* conditions = nullptr;
  if (doc.is_object()) {
    auto status = doc.find("status");
    if (status != doc.end() && status->is_object()) {
      auto found = status->find("conditions");
      if (found != status->end() && found->is_array()) conditions = &*found;
    }
  }
  for (size_t i = 0; conditions && i < c.options.conditions.size(); ++i) {
    for (const auto& cond : *conditions) {
      if (!cond.is_object() || cond.value("type", json()) != c.options.conditions[i]) continue;
      const json s = cond.value("status", json());
      for (size_t k = 0; k < 3; ++k) {
        if (s == kStatuses[k]) digits[i] = k;
      }
      break;
    }
  }
  size_t index = 0;
  for (size_t d : digits) index = index * 3 + d;
  return index;
}

}  // namespace

EventHandler condition_gauge(std::shared_ptr<kube::MetricsRegistry> metrics, ConditionGaugeOptions options) {
  auto c = std::make_shared<Counts>();
  c->metrics = metrics;
  c->options = std::move(options);
  size_t combinations = 1;
  for (size_t i = 0; i < c->options.conditions.size(); ++i) combinations *= 3;
  for (size_t index = 0; index < combinations; ++index) {
    kube::Labels labels(c->options.conditions.size());
    size_t rest = index;
    for (size_t i = c->options.conditions.size(); i-- > 0;) {
      std::string name = c->options.conditions[i];
      for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      labels[i] = {name, kStatuses[rest % 3]};
      rest /= 3;
    }
    c->gauges.push_back(&metrics->gauge(c->options.name, c->options.help, labels));
  }
  auto put = [c](const ObjectPtr& o) {
    const size_t now = combination_of(*c, o);
    auto [it, added] = c->of_key.emplace(o->key(), now);
    if (!added) {
      if (it->second == now) return;
      c->gauges[it->second]->dec();
      it->second = now;
    }
    c->gauges[now]->inc();
  };
  EventHandler h;
  h.on_add = put;
  h.on_update = [put](const ObjectPtr&, const ObjectPtr& after) { put(after); };
  h.on_delete = [c](const ObjectPtr& o) {
    auto it = c->of_key.find(o->key());
    if (it == c->of_key.end()) return;
    c->gauges[it->second]->dec();
    c->of_key.erase(it);
  };
  return h;
}

}  // namespace dgd::runtime
