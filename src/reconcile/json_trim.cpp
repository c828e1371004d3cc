#include "dgd/reconcile/json_trim.h"

#include <string>

#include "dgd/kube/watch_scan.h"

namespace dgd::reconcile {
namespace {

constexpr size_t kNpos = std::string_view::npos;

size_t skip_ws(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  return i;
}

// t[i] is '"': the index after the closing quote, or npos.
size_t skip_string(std::string_view t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') {
      ++i;
    } else if (t[i] == '"') {
      return i + 1;
    }
  }
  return kNpos;
}

// The index after the value that starts at t[i] (no leading whitespace), or npos when
// brackets or quotes do not close. Structure only: the text was validated when it entered
// the cache, and what is kept is parsed (and so checked) again.
size_t skip_value(std::string_view t, size_t i) {
  if (i >= t.size()) return kNpos;
  if (t[i] == '"') return skip_string(t, i);
  if (t[i] == '{' || t[i] == '[') {
    size_t depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = skip_string(t, i);
        if (i == kNpos) return kNpos;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
      ++i;
    }
    return kNpos;
  }
  const size_t start = i;
  while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' &&
         t[i] != '\r') {
    ++i;
  }
  return i == start ? kNpos : i;
}

// Appends the members of the object at t[i] ('{') to `out` (with its braces), leaving out
// the member `drop`, or, when `inner` is set, the member `inner` of the object `drop`.
// Returns the index after the object, or npos.
size_t copy_object(std::string_view t, size_t i, std::string_view drop, std::string_view inner, std::string& out) {
  if (i >= t.size() || t[i] != '{') return kNpos;
  out += '{';
  bool first = true;
  i = skip_ws(t, i + 1);
  if (i < t.size() && t[i] == '}') {
    out += '}';
    return i + 1;
  }
  for (;;) {
    if (i >= t.size() || t[i] != '"') return kNpos;
    const size_t key_end = skip_string(t, i);
    if (key_end == kNpos) return kNpos;
    const std::string_view raw_key = t.substr(i + 1, key_end - i - 2);
    size_t v = skip_ws(t, key_end);
    if (v >= t.size() || t[v] != ':') return kNpos;
    v = skip_ws(t, v + 1);
    const bool named = kube::JsonScanner::raw_equals(raw_key, drop);
    size_t end;
    if (named && inner.empty()) {
      end = skip_value(t, v);
    } else {
      if (!first) out += ',';
      first = false;
      out.append(t.substr(i, key_end - i));
      out += ':';
      if (named && v < t.size() && t[v] == '{') {
        end = copy_object(t, v, inner, {}, out);
      } else {
        end = skip_value(t, v);
        if (end != kNpos) out.append(t.substr(v, end - v));
      }
    }
    if (end == kNpos) return kNpos;
    i = skip_ws(t, end);
    if (i < t.size() && t[i] == ',') {
      i = skip_ws(t, i + 1);
      continue;
    }
    if (i < t.size() && t[i] == '}') {
      out += '}';
      return i + 1;
    }
    return kNpos;
  }
}

}  // namespace

std::optional<nlohmann::json> parse_without(std::string_view text, std::string_view top, std::string_view inner) {
  std::string out;
  out.reserve(text.size());
  const size_t end = copy_object(text, skip_ws(text, 0), top, inner, out);
  if (end == kNpos || skip_ws(text, end) != text.size()) return std::nullopt;
  nlohmann::json parsed = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

}  // namespace dgd::reconcile
