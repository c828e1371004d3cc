// spec.restart (upstream's Restart): its shape, and upstream's rules on strategy.order.
// The order is checked against the components only on a complete graph (an overlay's
// recipe supplies components the user DGD does not list; the expanded graph is checked
// as complete, so the rule still applies before anything restarts).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "api/checker.h"
#include "api/syntax.h"

namespace dgd::api::detail {

using nlohmann::json;
using syntax::shown;

namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "\"" : ", \"") + shown(s) + "\"";
  return out;
}

}  // namespace

void Checker::check_restart(const json& value) {
  const std::string p = "spec.restart";
  if (!value.is_object()) return error(p, "must be an object {id, strategy}");
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (it.key() != "id" && it.key() != "strategy") error(p + "." + shown(it.key()), "unknown field");
  }
  auto id = value.find("id");
  if (id == value.end() || !id->is_string() || id->get<std::string>().empty()) {
    error(p + ".id", "Required value: a restart is requested by setting a new id");
  }
  auto strategy = value.find("strategy");
  if (strategy == value.end() || strategy->is_null()) return;
  const std::string sp = p + ".strategy";
  if (!strategy->is_object()) return error(sp, "must be an object {type, order}");
  for (auto it = strategy->begin(); it != strategy->end(); ++it) {
    if (it.key() != "type" && it.key() != "order") error(sp + "." + shown(it.key()), "unknown field");
  }
  bool parallel = false;
  if (auto type = strategy->find("type"); type != strategy->end() && !type->is_null()) {
    const std::string t = type->is_string() ? type->get<std::string>() : type->dump();
    if (t != "Sequential" && t != "Parallel") {
      error(sp + ".type", "Unsupported value: \"" + shown(t) + "\": supported values: \"Parallel\", \"Sequential\"");
    }
    parallel = t == "Parallel";
  }
  auto order = strategy->find("order");
  if (order == strategy->end() || order->is_null()) return;
  const std::string op = sp + ".order";
  if (!order->is_array()) return error(op, "must be a list of component names");
  if (order->empty()) return;
  if (parallel) return error(op, "Forbidden: cannot be specified when strategy is parallel");
  std::vector<std::string> names;
  for (size_t i = 0; i < order->size(); ++i) {
    if (!(*order)[i].is_string()) return error(op + "[" + std::to_string(i) + "]", "must be a component name");
    names.push_back((*order)[i].get<std::string>());
  }
  const std::set<std::string> unique(names.begin(), names.end());
  if (unique.size() != names.size()) error(op, "Invalid value: " + quoted_list(names) + ": must be unique");
  if (!complete_) return;
  std::vector<std::string> known;
  for (const auto& c : dgd_.spec.components) known.push_back(c.name);
  std::sort(known.begin(), known.end());
  for (size_t i = 0; i < names.size(); ++i) {
    if (!std::binary_search(known.begin(), known.end(), names[i])) {
      error(op + "[" + std::to_string(i) + "]",
            "Unsupported value: \"" + shown(names[i]) + "\": supported values: " + quoted_list(known));
    }
  }
  if (unique.size() != known.size()) {
    error(op, "Invalid value: " + quoted_list(names) + ": must have the same number of unique components as the "
                                                       "deployment (" + std::to_string(known.size()) + ")");
  }
}

}  // namespace dgd::api::detail
