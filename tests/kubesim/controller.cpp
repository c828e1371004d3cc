#include "kubesim/controller.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kubesim {

using Clock = std::chrono::steady_clock;

void ControllerManager::start() {
  for (auto& c : controllers_) {
    Controller* raw = c.get();
    threads_.emplace_back([this, raw] {
      try {
        raw->run(store_, stop_);
      } catch (const std::exception& e) {
        spdlog::error("kube-sim: controller {} stopped: {}", raw->name(), e.what());
      }
    });
  }
}

void ControllerManager::stop() {
  stop_ = true;
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void GarbageCollector::run(Store& store, const std::atomic<bool>& stop) {
  uint64_t seen = 0;
  while (!stop) {
    uint64_t rv = store.current_rv();
    if (rv != seen) {
      try {
        for (int i = 0; i < 100 && store.collect_garbage() > 0; ++i) {
        }
      } catch (const std::exception& e) {
        spdlog::warn("kube-sim: garbage collector: {}", e.what());
      }
      seen = store.current_rv();
      continue;
    }
    store.wait_for_change(seen, Clock::now() + std::chrono::milliseconds(200));
  }
}

void StateSaver::save(const Store& store, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << store.snapshot().dump();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp + " to " + path);
}

bool StateSaver::load(Store& store, const std::string& path) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json snap;
  try {
    snap = nlohmann::json::parse(ss.str());
  } catch (const std::exception& e) {
    throw std::runtime_error("corrupt state file " + path + ": " + e.what());
  }
  store.restore(snap);
  return true;
}

void StateSaver::run(Store& store, const std::atomic<bool>& stop) {
  uint64_t saved = store.current_rv();
  while (!stop) {
    uint64_t rv = store.wait_for_change(saved, Clock::now() + std::chrono::milliseconds(200));
    if (rv == saved) continue;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // debounce bursts
    saved = store.current_rv();
    try {
      save(store, path_);
    } catch (const std::exception& e) {
      spdlog::error("kube-sim: {}", e.what());
    }
  }
  try {
    save(store, path_);
  } catch (const std::exception& e) {
    spdlog::error("kube-sim: {}", e.what());
  }
}

}  // namespace kubesim
