// kube-sim: in-process controllers. A Controller runs on its own thread against
// the Store's in-process API (store.h) until stop is requested. The garbage
// collector and the state saver are controllers; the simulated cluster (scheduler,
// kubelets, Deployment/Job controllers) plugs in the same way.
#pragma once

#include "kubesim/store.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace kubesim {

class Controller {
 public:
  virtual ~Controller() = default;
  virtual std::string name() const = 0;
  // Runs until `stop` becomes true; must notice it within about 100-500 ms
  // (Store::wait_for_change with a short deadline is the usual wait).
  virtual void run(Store& store, const std::atomic<bool>& stop) = 0;
};

class ControllerManager {
 public:
  explicit ControllerManager(Store& store) : store_(store) {}
  ~ControllerManager() { stop(); }
  void add(std::unique_ptr<Controller> c) { controllers_.push_back(std::move(c)); }
  void start();
  void stop();

 private:
  Store& store_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

// Garbage collector + namespace controller: runs Store::collect_garbage() after
// every change until it settles.
class GarbageCollector : public Controller {
 public:
  std::string name() const override { return "garbage-collector"; }
  void run(Store& store, const std::atomic<bool>& stop) override;
};

// Persists Store::snapshot() to `path` (tmp + rename), debounced after changes
// and once more at stop.
class StateSaver : public Controller {
 public:
  explicit StateSaver(std::string path) : path_(std::move(path)) {}
  std::string name() const override { return "state-saver"; }
  void run(Store& store, const std::atomic<bool>& stop) override;
  static void save(const Store& store, const std::string& path);
  // Loads `path` into `store` if it exists. Throws std::runtime_error on a corrupt file.
  static bool load(Store& store, const std::string& path);

 private:
  std::string path_;
};

}  // namespace kubesim
