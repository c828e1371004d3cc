// The simulated scheduler's units of a quantity, and their readable form; the parse
// itself is quantity_canonical.cpp's.
#include "kubesim/cluster/quantity.h"

namespace kubesim::cluster {

int64_t scheduler_units(const std::string& resource, const std::string& text) {
  int64_t milli = parse_milli(text);
  if (resource == "cpu") return milli;
  if (milli >= 0) return milli / 1000 + (milli % 1000 != 0 ? 1 : 0);
  return milli / 1000;
}

std::string format_units(const std::string& resource, int64_t units) {
  if (resource == "cpu") {
    if (units % 1000 == 0) return std::to_string(units / 1000);
    return std::to_string(units) + "m";
  }
  static const char* kBin[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
  if (units != 0 && (resource == "memory" || resource == "ephemeral-storage" || resource.rfind("hugepages-", 0) == 0)) {
    int64_t div = int64_t(1) << 60;
    for (const char* s : kBin) {
      if (units % div == 0) return std::to_string(units / div) + s;
      div >>= 10;
    }
  }
  return std::to_string(units);
}

}  // namespace kubesim::cluster
