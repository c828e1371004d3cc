// kube-sim: a Kubernetes API server simulator for tests (docs/kube-sim.md).
#include "kubesim/api_server.h"
#include "kubesim/auth.h"
#include "kubesim/cluster/cli.h"
#include "kubesim/controller.h"
#include "kubesim/http_server.h"
#include "kubesim/kubeconfig.h"
#include "kubesim/crd/cel_evaluator.h"
#include "kubesim/openapi/swagger_document.h"
#include "kubesim/request_log.h"
#include "kubesim/resource_registry.h"
#include "kubesim/store.h"
#include "kubesim/tls_certs.h"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <csignal>
#include <fstream>
#include <sstream>

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kube-sim: a Kubernetes API server simulator that kubectl and client libraries accept.\n"
               "Serves discovery, CRUD, list/watch, patches, server-side apply, status/scale subresources,\n"
               "CRDs, finalizers and garbage collection from memory. See docs/kube-sim.md."};
  std::string listen = "127.0.0.1:0", kubeconfig_out, data_file, tls_cert, tls_key, tls_ca, client_ca;
  std::string log_level = "warn";
  bool tls = false;
  std::vector<std::string> sans, tokens, without_resources;
  size_t history_window = 10000, watch_cut_after = 0;
  double bookmark_interval = 5;
  std::optional<bool> require_auth;
  app.add_option("--listen", listen, "host:port to listen on; port 0 picks a free port")->capture_default_str();
  app.add_option("--kubeconfig-out", kubeconfig_out,
                 "write an admin kubeconfig here (atomically, once the server accepts connections)");
  app.add_option("--data", data_file, "keep state in this JSON file: loaded at start, saved after changes and at exit");
  app.add_flag("--tls", tls, "serve HTTPS; generates a CA, server and admin client certificate unless --tls-cert/--tls-key are given");
  app.add_option("--tls-cert", tls_cert, "server certificate (PEM file) instead of a generated one");
  app.add_option("--tls-key", tls_key, "server private key (PEM file) for --tls-cert");
  app.add_option("--tls-ca", tls_ca, "CA (PEM file) that signed --tls-cert, written into the kubeconfig");
  app.add_option("--client-ca", client_ca, "CA (PEM file) that verifies client certificates (default: the generated CA)");
  app.add_option("--tls-san", sans, "subject alternative name of the generated server certificate (repeatable; default localhost and 127.0.0.1)");
  app.add_option("--token", tokens, "accept bearer token TOKEN for user[:group,...] (repeatable), e.g. --token abc=alice:dev,ops");
  app.add_option("--require-auth", require_auth,
                 "reject anonymous requests with 401 (default: true with --tls, false without)");
  std::string authorization_mode = "ServiceAccounts";
  app.add_option("--authorization-mode", authorization_mode,
                 "who RBAC (Roles, ClusterRoles and their bindings) applies to: ServiceAccounts (tokens from "
                 "POST .../serviceaccounts/NAME/token), RBAC (every user but group system:masters) or AlwaysAllow")
      ->check(CLI::IsMember({"AlwaysAllow", "ServiceAccounts", "RBAC"}))
      ->capture_default_str();
  app.add_option("--history-window", history_window, "events kept for watch resume; older resourceVersions get 410 Expired")
      ->capture_default_str();
  app.add_option("--bookmark-interval", bookmark_interval, "seconds between BOOKMARK events on watches that allow them")
      ->capture_default_str();
  app.add_option("--watch-cut-after", watch_cut_after, "end every watch stream after N events (0 = never); a fault knob")
      ->capture_default_str();
  app.add_option("--without-resource", without_resources,
                 "do not serve GROUP/PLURAL (repeatable), as on a cluster lacking its CRD, e.g. "
                 "resource.nvidia.com/computedomains; applying its CRD later serves it");
  std::string faults;
  app.add_option("--faults", faults,
                 "random faults from the start: a JSON profile (or @FILE), as PUT /sim/v1/chaos takes, e.g. "
                 "'{\"seed\":7,\"throttle\":0.05,\"exemptUserAgents\":[\"kubectl\"]}' (docs/kube-sim.md, Faults)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  std::string openapi_file;
  app.add_option("--openapi", openapi_file,
                 "the Kubernetes OpenAPI v2 document that defines the built-in kinds (default: the embedded 1.32 "
                 "document)");
  std::string cel_evaluator;
  app.add_option("--cel-evaluator", cel_evaluator,
                 "folder of the CEL evaluator (cel_server.mjs and its node_modules) that checks CRD "
                 "x-kubernetes-validations rules (default: the source tree's tests/kubesim/crd/cel)");
  kubesim::cluster::ClusterOptions cluster_opts;
  kubesim::cluster::add_cli_options(app, cluster_opts);
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::from_str(log_level));

  // Signals are taken by sigwait in main; block them before any thread starts.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  try {
    if (!openapi_file.empty()) kubesim::openapi::load_swagger_file(openapi_file);
    if (!cel_evaluator.empty()) kubesim::crd::CelEvaluator::instance().set_directory(cel_evaluator);
    kubesim::ResourceRegistry registry;
    for (const auto& gp : without_resources) {
      const auto slash = gp.rfind('/');
      const std::string group = slash == std::string::npos ? "" : gp.substr(0, slash);
      const std::string plural = slash == std::string::npos ? gp : gp.substr(slash + 1);
      if (!registry.unregister(group, plural)) throw std::runtime_error("--without-resource " + gp + ": not served");
    }
    kubesim::StoreOptions so;
    so.history_window = history_window;
    kubesim::Store store(registry, so);
    if (!data_file.empty() && kubesim::StateSaver::load(store, data_file))
      spdlog::info("kube-sim: loaded state from {}", data_file);
    // The simulated cluster (nodes, scheduler, kubelets, workload controllers) when --profile is given.
    std::unique_ptr<kubesim::Controller> cluster = kubesim::cluster::make_cluster(store, cluster_opts);
    kubesim::TokenAuthenticator authn;
    for (const auto& t : tokens) authn.add_spec(t);
    kubesim::RequestLog log;

    kubesim::ApiServerOptions ao;
    ao.require_auth = require_auth.value_or(tls);
    ao.bookmark_interval = std::chrono::milliseconds(static_cast<long long>(bookmark_interval * 1000));
    ao.watch_cut_after = watch_cut_after;
    ao.authorization_mode = kubesim::rbac::parse_mode(authorization_mode);
    kubesim::ApiServer api(store, authn, log, ao);
    if (!faults.empty()) {
      try {
        api.chaos().set(nlohmann::json::parse(faults[0] == '@' ? read_file(faults.substr(1)) : faults));
      } catch (const kubesim::ApiError& e) {
        throw std::runtime_error("--faults: " + std::string(e.what()));
      } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("--faults: " + std::string(e.what()));
      }
    }

    kubesim::HttpServerOptions ho;
    ho.listen = listen;
    ho.tls = tls;
    kubesim::KubeconfigSpec kc;
    if (tls) {
      if (!tls_cert.empty() || !tls_key.empty()) {
        if (tls_cert.empty() || tls_key.empty()) throw std::runtime_error("--tls-cert and --tls-key go together");
        ho.cert_pem = read_file(tls_cert);
        ho.key_pem = read_file(tls_key);
        if (!tls_ca.empty()) kc.ca_pem = read_file(tls_ca);
        if (!client_ca.empty()) ho.client_ca_pem = read_file(client_ca);
      } else {
        if (sans.empty()) sans = {"localhost", "127.0.0.1"};
        kubesim::Pki pki = kubesim::generate_pki(sans);
        ho.cert_pem = pki.server_cert;
        ho.key_pem = pki.server_key;
        ho.client_ca_pem = client_ca.empty() ? pki.ca_cert : read_file(client_ca);
        kc.ca_pem = pki.ca_cert;
        kc.client_cert = pki.client_cert;
        kc.client_key = pki.client_key;
      }
      if (kc.client_cert.empty() && !tokens.empty()) kc.token = tokens.front().substr(0, tokens.front().find('='));
    }
    kubesim::HttpServer server(api, ho);
    server.start();
    // /sim/v1/outage and /sim/v1/restart: the same store, port and request log; a
    // restart also drops the event history, as a new process with --data has none.
    api.set_outage_handler([&server, &store](std::chrono::milliseconds down, bool restart) {
      return server.begin_outage(down, restart ? std::function<void()>([&store] { store.compact_history(); })
                                               : std::function<void()>());
    });

    kubesim::ControllerManager controllers(store);
    controllers.add(std::make_unique<kubesim::GarbageCollector>());
    if (cluster) controllers.add(std::move(cluster));
    if (!data_file.empty()) controllers.add(std::make_unique<kubesim::StateSaver>(data_file));
    controllers.start();

    std::string host = server.host();
    if (host == "0.0.0.0" || host == "::") host = "127.0.0.1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    kc.server = std::string(tls ? "https://" : "http://") + host + ":" + std::to_string(server.port());
    if (!kubeconfig_out.empty()) kubesim::write_kubeconfig(kubeconfig_out, kc);
    std::printf("kube-sim: serving %s\n", kc.server.c_str());
    std::fflush(stdout);

    int sig = 0;
    sigwait(&sigs, &sig);
    spdlog::info("kube-sim: signal {}, shutting down", sig);
    server.stop();
    controllers.stop();
    store.shutdown();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kube-sim: %s\n", e.what());
    return 1;
  }
  return 0;
}
