// A checker of the Prometheus text exposition format 0.0.4 for tests: every sample line
// parses, belongs to a family declared by # TYPE before it, histogram buckets are
// cumulative and end with le="+Inf" equal to _count. Returns "" when valid, else the
// first problem with its line.
#pragma once
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace dgd::testing {

struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

inline std::string check_prometheus_text(const std::string& text, std::vector<PromSample>* out = nullptr) {
  static const std::regex kName("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static const std::regex kSample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\})? ([-+]?(?:[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|Inf|NaN))( -?[0-9]+)?$)");
  static const std::regex kLabel(R"(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)\")");
  std::map<std::string, std::string> types;
  std::set<std::string> helped;
  // histogram series (name + labels without le) -> last cumulative bucket, +Inf seen
  std::map<std::string, double> last_bucket, inf_bucket;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  if (text.empty() || text.back() != '\n') return "text does not end with a newline";
  while (std::getline(in, line)) {
    ++n;
    auto where = [&](const std::string& why) { return "line " + std::to_string(n) + ": " + why + ": " + line; };
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream ls(line);
      std::string hash, kw, name;
      ls >> hash >> kw >> name;
      if (kw == "TYPE") {
        std::string type;
        ls >> type;
        if (!std::regex_match(name, kName)) return where("bad metric name");
        if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" && type != "untyped")
          return where("bad type");
        if (types.count(name)) return where("duplicate TYPE");
        types[name] = type;
      } else if (kw == "HELP") {
        if (helped.count(name)) return where("duplicate HELP");
        helped.insert(name);
      }
      continue;
    }
    std::smatch m;
    if (!std::regex_match(line, m, kSample)) return where("unparsable sample");
    PromSample s;
    s.name = m[1];
    std::string labels = m[3];
    for (std::sregex_iterator it(labels.begin(), labels.end(), kLabel), end; it != end; ++it) {
      s.labels[(*it)[1]] = (*it)[2];
    }
    std::string v = m[4];
    s.value = v == "+Inf" || v == "Inf" ? 1e308 : v == "-Inf" ? -1e308 : std::strtod(v.c_str(), nullptr);
    std::string family = s.name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      std::string sfx = suffix;
      if (family.size() > sfx.size() && family.compare(family.size() - sfx.size(), sfx.size(), sfx) == 0 &&
          types.count(family.substr(0, family.size() - sfx.size())) &&
          types[family.substr(0, family.size() - sfx.size())] == "histogram") {
        family = family.substr(0, family.size() - sfx.size());
        break;
      }
    }
    if (!types.count(family)) return where("sample without a preceding TYPE");
    if (types[family] == "counter" && s.value < 0) return where("negative counter");
    if (types[family] == "histogram") {
      auto series_labels = s.labels;
      series_labels.erase("le");
      std::string key = family;
      for (const auto& [k, val] : series_labels) key += "," + k + "=" + val;
      if (s.name == family + "_bucket") {
        if (!s.labels.count("le")) return where("bucket without le");
        if (last_bucket.count(key) && s.value < last_bucket[key]) return where("buckets not cumulative");
        last_bucket[key] = s.value;
        if (s.labels["le"] == "+Inf") inf_bucket[key] = s.value;
      } else if (s.name == family + "_count") {
        if (!inf_bucket.count(key)) return where("_count without a +Inf bucket");
        if (inf_bucket[key] != s.value) return where("_count differs from the +Inf bucket");
      }
    }
    if (out) out->push_back(std::move(s));
  }
  return "";
}

}  // namespace dgd::testing
