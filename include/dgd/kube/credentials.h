// Credentials supplies authentication at request time: a static token, a token file
// re-read periodically (and at once after a 401), or an exec credential plugin whose
// output is cached until its expirationTimestamp (and dropped after a 401); plus the
// client certificate (static or from the plugin). Thread-safe.
#pragma once
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "dgd/kube/clock.h"
#include "dgd/kube/config.h"
#include "dgd/kube/error.h"

namespace dgd::kube {

struct Auth {
  std::string authorization;  // value of the Authorization header, or empty
  std::string client_cert_pem;
  std::string client_key_pem;
};

class Credentials {
 public:
  struct Options {
    // A projected ServiceAccount token is rotated by the kubelet while the operator runs;
    // re-read once a minute, as client-go does, a rotated token is picked up well before the
    // old one expires.
    std::chrono::seconds token_file_refresh{60};
  };
  Credentials(const RestConfig& config, Options options);
  explicit Credentials(const RestConfig& config) : Credentials(config, Options{}) {}

  // The auth to use now. May read the token file or run the exec plugin (blocking:
  // call from a thread that may block, never from an HTTP pool thread).
  Result<Auth> current();
  // The last auth current() returned, without refreshing (for TLS callbacks). Never
  // waits for a running exec plugin.
  Auth cached() const;
  // After a 401: the next current() re-reads the file / re-runs the plugin.
  void invalidate();
  // True when invalidate() + current() could yield different credentials.
  bool refreshable() const { return !config_.token_file.empty() || config_.exec.has_value(); }

 private:
  Result<Auth> run_exec_locked();
  void publish_locked();  // auth_ -> snapshot_; REQUIRES: mu_ held
  const RestConfig config_;
  const Options options_;
  mutable std::mutex mu_;  // held while the token file is read or the plugin runs
  Auth auth_;
  mutable std::mutex snapshot_mu_;
  Auth snapshot_;  // what cached() returns
  bool valid_ = false;
  std::chrono::steady_clock::time_point expires_{};  // steady time after which to refresh
};

// Parses a plugin's stdout (an ExecCredential). `now` converts expirationTimestamp to a
// remaining duration; exposed for tests.
struct ExecCredentialStatus {
  std::string token;
  std::string client_cert_pem, client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiration;
};
Result<ExecCredentialStatus> parse_exec_credential(std::string_view json_text,
                                                   std::string_view expected_api_version);

// Parses RFC 3339 ("2026-11-30T18:04:27Z", fractional seconds and offsets allowed).
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view s);
// Formats as MicroTime "2026-11-30T18:04:27.912073Z".
std::string format_micro_time(std::chrono::system_clock::time_point t);

}  // namespace dgd::kube
