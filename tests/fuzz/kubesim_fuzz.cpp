// Fuzz target: kube-sim's request handling (tests/kubesim/api_server.h) without the socket:
// URL path and query parsing, label / field selectors, body decoding (JSON and YAML), and
// every patch flavour (JSON patch, merge, strategic, server-side apply) against objects
// the same input created first.
//
// Input layout: up to 8 requests separated by a line "===". Each request is written like
// HTTP/1.1 without the version: "METHOD TARGET", then "name: value" header lines, an empty
// line, and the body. Each input runs against a fresh registry and store.
// Checks beyond "no crash": handle() answers every request exactly once (a response or a
// stream), never with a 500 (an unexpected exception inside the simulator: the real server
// answers bad input with 4xx), and every JSON answer is valid JSON.
//
// Skipped on purpose: /sim/v1/... admin endpoints (they inject faults, including latency),
// and watches are answered but their stream is refused at once (start_stream returns false)
// so that no input waits for events.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "kubesim/api_server.h"

namespace {

class Recorder : public kubesim::ResponseWriter {
 public:
  void send(const kubesim::HttpResponse& r) override {
    ++answers;
    status = r.status;
    if (r.content_type.rfind("application/json", 0) == 0 && !r.body.empty() &&
        !nlohmann::json::accept(r.body)) {
      std::fprintf(stderr, "response %d is not JSON: %s\n", r.status, r.body.substr(0, 300).c_str());
      std::abort();
    }
    if (r.status == 500) {
      std::fprintf(stderr, "internal error on input: %s\n", r.body.substr(0, 500).c_str());
      std::abort();
    }
  }
  bool start_stream(int s, const std::string&) override {
    ++answers;
    status = s;
    return false;
  }
  bool write_chunk(const std::string&) override { return false; }
  void end_stream() override {}
  bool peer_closed() override { return true; }

  int answers = 0;
  int status = 0;
};

std::string url_decoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool parse_request(std::string_view text, kubesim::HttpRequest& req) {
  size_t eol = text.find('\n');
  std::string_view line = text.substr(0, eol);
  size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return false;
  req.method = std::string(line.substr(0, sp));
  req.target = std::string(line.substr(sp + 1));
  text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
  while (!text.empty()) {
    eol = text.find('\n');
    line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (line.empty()) break;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(line.substr(0, colon));
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    req.headers[name] = std::string(value);
  }
  req.body = std::string(text);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool quiet = [] {
    spdlog::set_level(spdlog::level::off);
    return true;
  }();
  (void)quiet;
  if (size > 256 * 1024) return 0;
  std::string_view input(reinterpret_cast<const char*>(data), size);

  std::vector<kubesim::HttpRequest> requests;
  while (!input.empty() && requests.size() < 8) {
    size_t sep = input.find("\n===\n");
    kubesim::HttpRequest req;
    if (parse_request(input.substr(0, sep), req)) {
      std::string path = url_decoded(req.target.substr(0, req.target.find('?')));
      if (path.rfind("/sim/", 0) != 0) requests.push_back(std::move(req));
    }
    input.remove_prefix(sep == std::string_view::npos ? input.size() : sep + 5);
  }
  if (requests.empty()) return 0;

  kubesim::ResourceRegistry registry;
  kubesim::Store store(registry);
  kubesim::TokenAuthenticator tokens;
  tokens.add_spec("fuzz-token=fuzzer:system:masters");
  kubesim::RequestLog log;
  kubesim::ApiServer api(store, tokens, log, kubesim::ApiServerOptions{});
  for (const auto& req : requests) {
    Recorder out;
    api.handle(req, out);
    if (out.answers != 1) {
      std::fprintf(stderr, "%s %s got %d answers\n", req.method.c_str(), req.target.c_str(), out.answers);
      std::abort();
    }
  }
  return 0;
}
