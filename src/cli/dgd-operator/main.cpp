// dgd-operator: the controller process. `dgd-operator run [flags]`; every flag is
// documented in docs/operations.md. Parsing lives here; the process is
// reconcile::run_operator.
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "cli/command_line.h"
#include "dgd/kube/http.h"
#include "dgd/reconcile/operator.h"
#include "dgd/runtime/process_metrics.h"
#include "dgd/runtime/signals.h"

namespace {

// %* in the JSON pattern: the message as a JSON string value, and a "dgd" field
// when the line starts with "dgd=<ns>/<name>: " (the operator's convention).
class JsonMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    std::string_view text(msg.payload.data(), msg.payload.size());
    if (text.rfind("dgd=", 0) == 0) {
      const auto colon = text.find(": ");
      if (colon != std::string_view::npos) {
        append(dest, "\"dgd\":");
        quote(text.substr(4, colon - 4), dest);
        append(dest, ",");
        text = text.substr(colon + 2);
      }
    }
    append(dest, "\"msg\":");
    quote(text, dest);
  }
  std::unique_ptr<spdlog::custom_flag_formatter> clone() const override { return std::make_unique<JsonMessage>(); }

 private:
  static void append(spdlog::memory_buf_t& dest, std::string_view s) { dest.append(s.data(), s.data() + s.size()); }
  static void quote(std::string_view s, spdlog::memory_buf_t& dest) {
    dest.push_back('"');
    for (unsigned char c : s) {
      switch (c) {
        case '"': append(dest, "\\\""); break;
        case '\\': append(dest, "\\\\"); break;
        case '\n': append(dest, "\\n"); break;
        case '\r': append(dest, "\\r"); break;
        case '\t': append(dest, "\\t"); break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            append(dest, buf);
          } else {
            dest.push_back(static_cast<char>(c));
          }
      }
    }
    dest.push_back('"');
  }
};

// %L: the level as the flags and docs name it (spdlog's own %l says "warning" for warn);
// padded to 5 characters in text lines so messages line up.
class LevelName final : public spdlog::custom_flag_formatter {
 public:
  explicit LevelName(bool padded) : padded_(padded) {}
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    std::string_view name = "off";
    switch (msg.level) {
      case spdlog::level::trace: name = "trace"; break;
      case spdlog::level::debug: name = "debug"; break;
      case spdlog::level::info: name = "info"; break;
      case spdlog::level::warn: name = "warn"; break;
      case spdlog::level::err: name = "error"; break;
      case spdlog::level::critical: name = "critical"; break;
      default: break;
    }
    dest.append(name.data(), name.data() + name.size());
    for (size_t i = name.size(); padded_ && i < 5; ++i) dest.push_back(' ');
  }
  std::unique_ptr<spdlog::custom_flag_formatter> clone() const override { return std::make_unique<LevelName>(padded_); }

 private:
  bool padded_;
};

void setup_logging(const std::string& format, const std::string& level) {
  auto logger = std::make_shared<spdlog::logger>("dgd-operator", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (format == "json") {
    auto f = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    f->add_flag<JsonMessage>('*').add_flag<LevelName>('L', false).set_pattern(
        R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%L",%*})");
    logger->set_formatter(std::move(f));
  } else {
    auto f = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    f->add_flag<LevelName>('L', true).set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %L %v");
    logger->set_formatter(std::move(f));
  }
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace

void add_serving_flags(CLI::App& run, dgd::reconcile::ServingOptions& o);

int main(int argc, char** argv) {
  // Before any thread exists, so every thread inherits the mask and one thread sigwaits.
  dgd::runtime::block_termination_signals();

  dgd::reconcile::OperatorOptions o;
  std::string log_format = "text", log_level = "info";
  int lease_duration_s = 15, renew_deadline_s = 10, retry_period_s = 2;
  int kind_probe_s = 30;
  double status_progress_s = 5;
  double status_progress_qps = 2;
  double child_event_window_s = 0.3;
  size_t http_threads = 2;

  CLI::App app{"dgd-operator: reconciles NVIDIA Dynamo DynamoGraphDeployments into running graphs", "dgd-operator"};
  app.set_version_flag("--version", dgd::cli::version_line("dgd-operator"), "print the version and exit");
  app.require_subcommand(1);
  CLI::App* run = app.add_subcommand("run", "run the controller until SIGTERM");
  run->add_option("--kubeconfig", o.kubeconfig.path,
                  "kubeconfig file (default: $KUBECONFIG, else in-cluster, else ~/.kube/config)");
  run->add_option("--context", o.kubeconfig.context, "kubeconfig context (default: its current-context)");
  run->add_option("--namespace", o.watch_namespace, "watch DGDs in this namespace only (default: all namespaces)");
  run->add_option("--metrics-addr", o.metrics_address, "listen address of /metrics (\"0\" disables)")
      ->capture_default_str();
  run->add_option("--health-addr", o.health_address, "listen address of /healthz, /readyz (\"0\" disables)")
      ->capture_default_str();
  run->add_option("--log-format", log_format, "log format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  run->add_option("--log-level", log_level, "log level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}))
      ->capture_default_str();
  run->add_option("--concurrency", o.concurrency, "DGDs reconciled in parallel")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  run->add_option("--kube-api-qps", o.qps, "client-side request limit per second (0: none)")->capture_default_str();
  run->add_option("--kube-api-burst", o.burst, "client-side burst")->capture_default_str();
  run->add_option("--leader-elect", o.leader_elect, "elect a leader (only the leader writes)")->capture_default_str();
  run->add_option("--leader-election-namespace", o.leader_election_namespace,
                  "namespace of the Lease (default: the pod's / the kubeconfig context's namespace)");
  run->add_option("--leader-election-id", o.leader_election_id, "name of the Lease")->capture_default_str();
  run->add_option("--leader-election-lease-duration", lease_duration_s, "seconds a lease is valid")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_option("--leader-election-renew-deadline", renew_deadline_s, "seconds the leader retries renewing")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_option("--leader-election-retry-period", retry_period_s, "seconds between attempts")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_option("--kind-probe-interval", kind_probe_s,
                  "seconds between checks for child kinds the server did not serve (e.g. ComputeDomain)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  run->add_option("--status-progress-interval", status_progress_s,
                  "least seconds between two status writes of a DGD that only report progress (replica "
                  "counts, messages); doubles after each such write up to 60 s. Ready or SpecValid "
                  "changing, a condition turning False and a new generation are written at once "
                  "(0: every change at once)")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();

  run->add_option("--status-progress-qps", status_progress_qps,
                  "progress-only status writes per second for all DGDs together, on top of the per-DGD "
                  "interval: when a fleet converges at once, progress waits its turn and transitions still "
                  "go out at once (0: no limit)")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();

  run->add_option("--child-event-window", child_event_window_s,
                  "seconds a child's, pod's or node's event waits before its DGD is reconciled; the DGD's "
                  "other events in that window share the reconcile (0: reconcile at every event)")
      ->check(CLI::Range(0.0, 60.0))
      ->capture_default_str();

  run->add_option("--http-threads", http_threads,
                  "threads that run the HTTP client's and servers' I/O (cpprest's pool). No request holds "
                  "one while it waits (watches included), so a few serve any number; each extra thread "
                  "costs context switches")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();

  run->add_option("--pod-monitors", o.pod_monitors,
                  "give every DGD a Prometheus Operator PodMonitor scraping its frontends and workers (needs the "
                  "PodMonitor CRD and RBAC on monitoring.coreos.com podmonitors)")
      ->capture_default_str();
  run->add_option("--planner-cluster-role", o.planner_cluster_role,
                  "ClusterRole bound (RoleBinding planner-serviceaccount-binding) to the ServiceAccount "
                  "planner-serviceaccount of each namespace with a planner component; the chart passes its "
                  "planner role")
      ->capture_default_str();
  run->add_option("--prometheus-endpoint", o.prometheus_endpoint,
                  "Prometheus URL set as PROMETHEUS_ENDPOINT in every component (the planner queries the "
                  "graph's metrics there; \"\": not set)");

  add_serving_flags(*run, o.serving);  // serving_flags.cpp

  if (auto rc = dgd::cli::parse_command_line(app, argc, argv)) return *rc;

  setup_logging(log_format, log_level);
  dgd::runtime::set_build_info("dgd_operator_build_info",
                               {{"version", dgd::kVersion}, {"revision", dgd::kGitDescribe}});
  // Before the first request: cpprest's pool is otherwise created with 40 threads on first
  // use, and handing each I/O completion to one of 40 mostly idle threads was a third of
  // the operator's CPU in context switches (docs/benchmarks.md, "Operator CPU").
  if (!dgd::kube::initialize_http_thread_pool(http_threads)) {
    spdlog::warn("HTTP thread pool already started; --http-threads {} not applied", http_threads);
  }
  o.lease_duration = std::chrono::seconds(lease_duration_s);
  o.renew_deadline = std::chrono::seconds(renew_deadline_s);
  o.retry_period = std::chrono::seconds(retry_period_s);
  o.kind_probe_interval = std::chrono::seconds(kind_probe_s);
  o.status_progress_interval = std::chrono::milliseconds(static_cast<int64_t>(status_progress_s * 1000));
  o.status_progress_qps = status_progress_qps;
  o.child_event_window = std::chrono::milliseconds(static_cast<int64_t>(child_event_window_s * 1000));

  dgd::kube::CancelSource stop;
  std::thread waiter = dgd::runtime::start_signal_waiter(stop);
  const int rc = dgd::reconcile::run_operator(o, stop.token());
  if (stop.cancelled()) {
    waiter.join();  // the signal ended it
  } else {
    dgd::runtime::stop_signal_waiter(waiter);
  }
  spdlog::default_logger()->flush();
  return rc;
}
