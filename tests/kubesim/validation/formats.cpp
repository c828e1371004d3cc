#include "kubesim/validation/formats.h"

namespace kubesim::validation {

namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool dns1123_label_syntax(const std::string& v, size_t from, size_t to) {
  if (from >= to || !lower_alnum(v[from]) || !lower_alnum(v[to - 1])) return false;
  for (size_t i = from; i < to; ++i)
    if (!lower_alnum(v[i]) && v[i] != '-') return false;
  return true;
}

bool dns1123_subdomain_syntax(const std::string& v) {
  size_t start = 0;
  while (true) {
    size_t dot = v.find('.', start);
    size_t end = dot == std::string::npos ? v.size() : dot;
    if (!dns1123_label_syntax(v, start, end)) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool qualified_part_syntax(const std::string& v) {
  if (v.empty() || !alnum(v.front()) || !alnum(v.back())) return false;
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::string regex_error(const std::string& msg, const std::string& fmt, const std::vector<std::string>& examples) {
  if (examples.empty()) return msg + " (regex used for validation is '" + fmt + "')";
  std::string out = msg + " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) out += (i ? " or " : "") + ("'" + examples[i] + "', ");
  return out + "regex used for validation is '" + fmt + "')";
}

std::string max_len_error(size_t n) { return "must be no more than " + std::to_string(n) + " characters"; }

const char* const kLabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const char* const kSubdomainFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const char* const kQualifiedFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const char* const kQualifiedMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

void chdir_prefix(const std::string& v, Messages& out) {
  if (v == ".") out.push_back("must not be '.'");
  else if (v == "..") out.push_back("must not be '..'");
  else if (v.rfind("..", 0) == 0) out.push_back("must not start with '..'");
}

// maskTrailingDash: a generateName may end in '-'.
std::string mask_trailing_dash(const std::string& name) {
  if (name.size() > 1 && name.back() == '-') return name.substr(0, name.size() - 2) + "a";
  return name;
}

}  // namespace

Messages is_dns1123_label(const std::string& v) {
  Messages out;
  if (v.size() > 63) out.push_back(max_len_error(63));
  if (!dns1123_label_syntax(v, 0, v.size())) {
    if (dns1123_subdomain_syntax(v)) out.push_back("must not contain dots");
    else
      out.push_back(regex_error(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
          "end with an alphanumeric character",
          kLabelFmt, {"my-name", "123-abc"}));
  }
  return out;
}

Messages is_dns1123_subdomain(const std::string& v) {
  Messages out;
  if (v.size() > 253) out.push_back(max_len_error(253));
  if (!dns1123_subdomain_syntax(v))
    out.push_back(regex_error(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character",
        kSubdomainFmt, {"example.com"}));
  return out;
}

Messages is_dns1035_label(const std::string& v) {
  Messages out;
  if (v.size() > 63) out.push_back(max_len_error(63));
  if (!dns1123_label_syntax(v, 0, v.size()) || !(v[0] >= 'a' && v[0] <= 'z'))
    out.push_back(regex_error(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character",
        "[a-z]([-a-z0-9]*[a-z0-9])?", {"my-name", "abc-123"}));
  return out;
}

Messages is_qualified_name(const std::string& v) {
  Messages out;
  size_t slashes = 0;
  for (char c : v) slashes += c == '/';
  std::string name = v;
  if (slashes == 1) {
    const std::string prefix = v.substr(0, v.find('/'));
    name = v.substr(v.find('/') + 1);
    if (prefix.empty()) out.push_back("prefix part must be non-empty");
    else
      for (const auto& m : is_dns1123_subdomain(prefix)) out.push_back("prefix part " + m);
  } else if (slashes > 1) {
    out.push_back("a qualified name " + regex_error(kQualifiedMsg, kQualifiedFmt, {"MyName", "my.name", "123-abc"}) +
                  " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return out;
  }
  if (name.empty()) out.push_back("name part must be non-empty");
  else if (name.size() > 63) out.push_back("name part " + max_len_error(63));
  if (!qualified_part_syntax(name))
    out.push_back("name part " + regex_error(kQualifiedMsg, kQualifiedFmt, {"MyName", "my.name", "123-abc"}));
  return out;
}

Messages is_label_value(const std::string& v) {
  Messages out;
  if (v.size() > 63) out.push_back(max_len_error(63));
  if (!v.empty() && !qualified_part_syntax(v))
    out.push_back(regex_error(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character",
        std::string("(") + kQualifiedFmt + ")?", {"MyValue", "my_value", "12345"}));
  return out;
}

Messages is_relaxed_env_var_name(const std::string& v) {
  Messages out;
  if (v.empty()) out.push_back("environment variable name must be non-empty");
  for (char ch : v) {
    const auto c = static_cast<unsigned char>(ch);
    if (c > 0x7E || c < 0x20 || c == '=') {
      out.push_back("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return out;
}

Messages is_config_map_key(const std::string& v) {
  Messages out;
  if (v.size() > 253) out.push_back(max_len_error(253));
  bool ok = !v.empty();
  for (char c : v)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') ok = false;
  if (!ok)
    out.push_back(regex_error("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                              "[-._a-zA-Z0-9]+", {"key.name", "KEY_NAME", "key-name"}));
  chdir_prefix(v, out);
  return out;
}

Messages is_valid_port_name(const std::string& v) {
  Messages out;
  if (v.size() > 15) out.push_back(max_len_error(15));
  bool charset = !v.empty(), letter = false;
  for (char c : v) {
    if (!lower_alnum(c) && c != '-') charset = false;
    if (c >= 'a' && c <= 'z') letter = true;
  }
  if (!charset) out.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!letter) out.push_back("must contain at least one letter (a-z)");
  if (v.find("--") != std::string::npos) out.push_back("must not contain consecutive hyphens");
  if (!v.empty() && (v.front() == '-' || v.back() == '-')) out.push_back("must not begin or end with a hyphen");
  return out;
}

Messages is_valid_port_num(long long port) {
  if (port >= 1 && port <= 65535) return {};
  return {"must be between 1 and 65535, inclusive"};
}

Messages is_valid_percent(const std::string& v) {
  bool ok = v.size() >= 2 && v.back() == '%';
  for (size_t i = 0; ok && i + 1 < v.size(); ++i) ok = v[i] >= '0' && v[i] <= '9';
  if (ok) return {};
  return {regex_error("a valid percent string must be a numeric string followed by an ending '%'", "[0-9]+%",
                      {"1%", "93%"})};
}

Messages is_path_segment_name(const std::string& v) {
  if (v == ".") return {"may not be '.'"};
  if (v == "..") return {"may not be '..'"};
  Messages out;
  if (v.find('/') != std::string::npos) out.push_back("may not contain '/'");
  if (v.find('%') != std::string::npos) out.push_back("may not contain '%'");
  return out;
}

Messages name_messages(NameRule rule, const std::string& name, bool prefix) {
  switch (rule) {
    case NameRule::dns1123_label: return is_dns1123_label(prefix ? mask_trailing_dash(name) : name);
    case NameRule::dns1035_label: return is_dns1035_label(prefix ? mask_trailing_dash(name) : name);
    case NameRule::path_segment: {
      if (!prefix) return is_path_segment_name(name);
      Messages out;
      if (name.find('/') != std::string::npos) out.push_back("may not contain '/'");
      if (name.find('%') != std::string::npos) out.push_back("may not contain '%'");
      return out;
    }
    case NameRule::dns1123_subdomain: break;
  }
  return is_dns1123_subdomain(prefix ? mask_trailing_dash(name) : name);
}

}  // namespace kubesim::validation
