#include "kubesim/crd/string_formats.h"

#include <re2/re2.h>

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kubesim::crd {

namespace {

std::string normalized(const std::string& format) {
  std::string n;
  for (char c : format)
    if (c != '-') n += c;
  return n;
}

bool full(const std::string& value, const char* pattern) {
  static thread_local std::map<const char*, std::unique_ptr<RE2>> compiled;
  auto& re = compiled[pattern];
  if (!re) re = std::make_unique<RE2>(pattern);
  return RE2::FullMatch(value, *re);
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// time.Parse("2006-01-02", s).
bool is_date(const std::string& s) {
  int y = 0, m = 0, d = 0;
  if (!RE2::FullMatch(s, R"((\d{4})-(\d{2})-(\d{2}))", &y, &m, &d)) return false;
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= days[m - 1] + (m == 2 && leap(y) ? 1 : 0);
}

// strfmt.IsDateTime: a date, 't', then hh:mm:ss[.frac](z|+hh:mm), case-insensitive.
bool is_date_time(const std::string& str) {
  if (str.size() < 4) return false;
  std::string lower = str;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  size_t t = lower.find('t');
  if (t == std::string::npos || !is_date(lower.substr(0, t))) return false;
  std::string rest = lower.substr(t + 1);
  size_t t2 = rest.find('t');
  if (t2 != std::string::npos) rest = rest.substr(0, t2);
  std::string h, m, s;
  if (!RE2::PartialMatch(rest, R"(^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$)", &h, &m, &s))
    return false;
  return h <= "23" && m <= "59" && s <= "59";
}

// strfmt.ParseDuration: Go's time.ParseDuration, else the Scala-like "<n> <unit>" syntax.
bool is_duration(const std::string& s) {
  if (full(s, R"([-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+))")) return true;
  static const std::vector<std::vector<std::string>> units = {
      {"ns", "nano"}, {"us", "µs", "micro"}, {"ms", "milli"}, {"s", "sec"}, {"m", "min"},
      {"h", "hr", "hour"}, {"d", "day"}, {"w", "wk", "week"}};
  re2::StringPiece input(s);
  std::string number, unit;
  static const RE2 matcher(R"(((\d+)\s*([A-Za-zµ]+)))");
  std::string whole;
  while (RE2::FindAndConsume(&input, matcher, &whole, &number, &unit)) {
    std::string u;
    for (char c : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& variants : units)
      for (size_t i = 0; i < variants.size(); ++i)
        if (u == variants[i] || (i + 1 == variants.size() && u.rfind(variants[i], 0) == 0)) return true;
  }
  return false;
}

bool is_ip(const std::string& s, int family) {
  unsigned char buf[16];
  return inet_pton(family, s.c_str(), buf) == 1;
}

bool is_cidr(const std::string& s) {
  size_t slash = s.find('/');
  if (slash == std::string::npos) return false;
  std::string ip = s.substr(0, slash), bits = s.substr(slash + 1);
  if (bits.empty() || bits.size() > 3 || !std::all_of(bits.begin(), bits.end(), ::isdigit)) return false;
  int n = std::stoi(bits);
  if (is_ip(ip, AF_INET)) return n <= 32;
  return is_ip(ip, AF_INET6) && n <= 128;
}

std::string digits_only(const std::string& s, bool keep_x) {
  std::string d;
  for (char c : s)
    if (std::isdigit(static_cast<unsigned char>(c)) || (keep_x && c == 'X')) d += c;
  return d;
}

bool is_isbn10(const std::string& s) {
  std::string d;
  for (char c : s)
    if (c != ' ' && c != '-') d += c;
  if (!full(d, R"((?:[0-9]{9}X|[0-9]{10}))")) return false;
  int sum = 0;
  for (int i = 0; i < 9; ++i) sum += (d[i] - '0') * (i + 1);
  sum += (d[9] == 'X' ? 10 : d[9] - '0') * 10;
  return sum % 11 == 0;
}

bool is_isbn13(const std::string& s) {
  std::string d;
  for (char c : s)
    if (c != ' ' && c != '-') d += c;
  if (!full(d, R"((?:[0-9]{13}))")) return false;
  int sum = 0;
  for (int i = 0; i < 12; ++i) sum += (d[i] - '0') * (i % 2 ? 3 : 1);
  return (10 - sum % 10) % 10 == d[12] - '0';
}

bool is_credit_card(const std::string& s) {
  std::string d = digits_only(s, false);
  if (!full(d, R"((?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14}))"))
    return false;
  int sum = 0;
  bool dbl = false;
  for (auto it = d.rbegin(); it != d.rend(); ++it) {
    int v = *it - '0';
    if (dbl) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
    sum += v;
    dbl = !dbl;
  }
  return sum % 10 == 0;
}

const std::set<std::string>& known() {
  static const std::set<std::string> k = {"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr",
                                          "mac", "uuid", "uuid3", "uuid4", "uuid5", "isbn", "isbn10", "isbn13",
                                          "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password", "date",
                                          "duration", "datetime"};
  return k;
}

}  // namespace

bool format_known(const std::string& format) { return known().count(normalized(format)) > 0; }

bool format_valid(const std::string& format, const std::string& v) {
  const std::string f = normalized(format);
  if (f == "datetime") return is_date_time(v);
  if (f == "date") return is_date(v);
  if (f == "duration") return is_duration(v);
  if (f == "byte")
    return full(v, R"((?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4}))");
  if (f == "uuid") return full(v, R"((?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12})");
  if (f == "uuid3") return full(v, R"((?i)[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12})");
  if (f == "uuid4") return full(v, R"((?i)[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12})");
  if (f == "uuid5") return full(v, R"((?i)[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12})");
  if (f == "ipv4") return is_ip(v, AF_INET);
  if (f == "ipv6") return v.find(':') != std::string::npos && is_ip(v, AF_INET6);
  if (f == "cidr") return is_cidr(v);
  if (f == "mac")
    return full(v, R"(([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}|([0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}|([0-9A-Fa-f]{2}[:-]){19}[0-9A-Fa-f]{2}|([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}|([0-9A-Fa-f]{4}\.){3}[0-9A-Fa-f]{4}|([0-9A-Fa-f]{4}\.){9}[0-9A-Fa-f]{4})");
  if (f == "hostname") {
    if (v.size() > 255 ||
        !full(v, R"(([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63}))"))
      return false;
    size_t start = 0;
    while (true) {
      size_t dot = v.find('.', start);
      if ((dot == std::string::npos ? v.size() : dot) - start > 63) return false;
      if (dot == std::string::npos) return true;
      start = dot + 1;
    }
  }
  if (f == "email") return full(v, R"([^@<>\s]+@[^@<>\s]+|[^<>]*<[^@<>\s]+@[^@<>\s]+>)");
  if (f == "uri") return full(v, R"(([a-zA-Z][a-zA-Z0-9+.\-]*:|/)[^\s]*)");
  if (f == "bsonobjectid") return full(v, R"([0-9a-fA-F]{24})");
  if (f == "isbn10") return is_isbn10(v);
  if (f == "isbn13") return is_isbn13(v);
  if (f == "isbn") return is_isbn10(v) || is_isbn13(v);
  if (f == "creditcard") return is_credit_card(v);
  if (f == "ssn") return full(v, R"(\d{3}[- ]?\d{2}[- ]?\d{4})");
  if (f == "hexcolor") return full(v, R"(#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6}))");
  if (f == "rgbcolor")
    return full(v, R"(rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\))");
  return true;  // password, and anything else the registry knows: any string
}

}  // namespace kubesim::crd
