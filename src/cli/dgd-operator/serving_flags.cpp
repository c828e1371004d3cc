// dgd-operator's flags of the Serving condition's checks (serving.h; docs/operations.md).
#include <CLI/CLI.hpp>

#include "dgd/reconcile/serving.h"

void add_serving_flags(CLI::App& run, dgd::reconcile::ServingOptions& o) {
  run.add_option("--serving-checks", o.enabled,
                 "run the smoke test of DGDs with spec.smokeTest (default on for recipe DGDs) and report Serving")
      ->capture_default_str();
  run.add_option("--serving-check-via", o.via,
                 "how the operator reaches a frontend: service-dns (http://DGD-frontend.NS.svc:8000; no extra RBAC) "
                 "or apiserver-proxy (the API server's services/proxy; RBAC services/proxy create)")
      ->check(CLI::IsMember({"service-dns", "apiserver-proxy"}))
      ->capture_default_str();
  run.add_option("--serving-check-concurrency", o.concurrency, "smoke requests in flight at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  run.add_option("--serving-check-retry-initial", o.retry_initial_seconds,
                 "seconds before the first retry of a failed smoke test (doubling)")
      ->check(CLI::Range(0.01, 86400.0))
      ->capture_default_str();
  run.add_option("--serving-check-retry-max", o.retry_max_seconds, "longest wait between retries, in seconds")
      ->check(CLI::Range(0.01, 86400.0))
      ->capture_default_str();
}
