#include "api/syntax.h"

#include <cstdint>

#include "dgd/object/quantity.h"

namespace dgd::api::syntax {
namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool hex(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// first/last from `edge`, middle from `edge` or `extra` characters.
template <class Edge>
bool shaped(std::string_view s, size_t max_len, Edge edge, std::string_view extra) {
  if (s.empty() || s.size() > max_len) return false;
  if (!edge(s.front()) || !edge(s.back())) return false;
  for (char c : s) {
    if (!edge(c) && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

}  // namespace

bool is_dns1123_label(std::string_view s) { return shaped(s, 63, lower_alnum, "-"); }

bool is_dns1035_label(std::string_view s) {
  return is_dns1123_label(s) && s.front() >= 'a' && s.front() <= 'z';
}

bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!is_dns1123_label(label)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_component_name(std::string_view s) { return shaped(s, 63, alnum, "-"); }

bool is_qualified_name(std::string_view s) {
  size_t slash = s.find('/');
  std::string_view name = s;
  if (slash != std::string_view::npos) {
    if (!is_dns1123_subdomain(s.substr(0, slash))) return false;
    name = s.substr(slash + 1);
  }
  return shaped(name, 63, alnum, "-_.");
}

bool is_label_value(std::string_view s) { return s.empty() || shaped(s, 63, alnum, "-_."); }

bool is_env_var_name(std::string_view s) {
  if (s.empty() || s.size() > 1024 || digit(s.front())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-' && c != '.' && c != '_') return false;
  }
  return true;
}

std::optional<double> parse_quantity(std::string_view s) {
  auto q = object::Quantity::parse(s);
  if (!q) return std::nullopt;
  return static_cast<double>(q->milli_value()) / 1000.0;
}

bool is_extended_resource_name(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos || slash == 0) return false;
  std::string_view domain = s.substr(0, slash);
  std::string_view name = s.substr(slash + 1);
  // "rdma" is not a DNS subdomain with a dot, but it is what the RDMA device plugins use.
  if (!is_dns1123_subdomain(domain)) return false;
  return shaped(name, 63, alnum, "-_.");
}

bool is_pci_address(std::string_view s) {
  // [domain:]bus:device.function
  size_t colon2 = s.rfind(':');
  if (colon2 == std::string_view::npos) return false;
  std::string_view head = s.substr(0, colon2);
  std::string_view tail = s.substr(colon2 + 1);  // dd.f
  if (tail.size() != 4 || !hex(tail[0]) || !hex(tail[1]) || tail[2] != '.' || tail[3] < '0' || tail[3] > '7') {
    return false;
  }
  size_t colon1 = head.rfind(':');
  std::string_view bus = colon1 == std::string_view::npos ? head : head.substr(colon1 + 1);
  if (bus.size() != 2 || !hex(bus[0]) || !hex(bus[1])) return false;
  if (colon1 == std::string_view::npos) return true;
  std::string_view domain = head.substr(0, colon1);
  if (domain.size() != 4 && domain.size() != 8) return false;
  for (char c : domain) {
    if (!hex(c)) return false;
  }
  return true;
}

bool is_model_id(std::string_view s) {
  if (s.empty() || s.size() > 256) return false;
  size_t slash = s.find('/');
  auto part = [](std::string_view p) {
    if (p.empty() || p.size() > 96 || p.front() == '.' || p.front() == '-') return false;
    if (p.find("..") != std::string_view::npos) return false;
    for (char c : p) {
      if (!alnum(c) && c != '.' && c != '_' && c != '-') return false;
    }
    return true;
  };
  if (slash == std::string_view::npos) return part(s);
  return part(s.substr(0, slash)) && part(s.substr(slash + 1));
}

bool is_revision(std::string_view s) {
  if (s.empty() || s.size() > 255 || !alnum(s.front())) return false;
  if (s.find("..") != std::string_view::npos) return false;
  for (char c : s) {
    if (!alnum(c) && c != '.' && c != '_' && c != '-' && c != '/') return false;
  }
  return true;
}

bool is_image_ref(std::string_view s) {
  if (s.empty() || s.size() > 4096) return false;
  for (unsigned char c : s) {
    if (c <= 0x20 || c == 0x7f) return false;
  }
  return true;
}

bool is_lower_identifier(std::string_view s) {
  if (s.empty() || s.size() > 128 || !lower_alnum(s.front())) return false;
  for (char c : s) {
    if (!lower_alnum(c) && c != '_') return false;
  }
  return true;
}

bool is_upper_identifier(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  if (!((s.front() >= 'A' && s.front() <= 'Z') || digit(s.front()))) return false;
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || digit(c) || c == '_')) return false;
  }
  return true;
}

bool is_clean_absolute_path(std::string_view s) {
  if (s.empty() || s.size() > 4096 || s.front() != '/') return false;
  if (s.size() > 1 && s.back() == '/') return false;
  size_t start = 1;
  while (start <= s.size()) {
    size_t slash = s.find('/', start);
    std::string_view seg = s.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (s.size() > 1 && (seg.empty() || seg == "." || seg == "..")) return false;
    for (unsigned char c : seg) {
      if (c < 0x20 || c == 0x7f) return false;
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string shown(std::string_view s) {
  // Valid UTF-8 only (messages end up in JSON status), at most 64 code points.
  std::string out;
  size_t points = 0;
  size_t i = 0;
  while (i < s.size()) {
    if (points == 61 && s.size() - i > 3) {
      out += "...";
      break;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (ok && len == 1 && (c < 0x20 || c == 0x7f)) ok = false;
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD
      i += 1;
    }
    ++points;
  }
  return out;
}

}  // namespace dgd::api::syntax
