//===- Statistics.cpp - pass statistics registry --------------------------===//

#include "amp/Support/Statistics.h"

#include "llvm/Support/Format.h"

#include <mutex>

using namespace mlir;
using namespace mlir::amp;

namespace {
struct Registry {
  std::mutex mutex;
  std::vector<StatisticValue> values;
};
Registry &getRegistry() {
  static Registry registry;
  return registry;
}
} // namespace

void mlir::amp::recordStatistics(StringRef pass,
                                 ArrayRef<StatisticSpec> values) {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const StatisticSpec &spec : values) {
    auto it = llvm::find_if(registry.values, [&](const StatisticValue &v) {
      return v.pass == pass && v.name == spec.name;
    });
    if (it == registry.values.end())
      registry.values.push_back(
          {pass.str(), spec.name, spec.description, spec.value});
    else
      it->value += spec.value;
  }
}

std::vector<StatisticValue> mlir::amp::getStatistics() {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.values;
}

void mlir::amp::resetStatistics() {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.values.clear();
}

void mlir::amp::printStatistics(llvm::raw_ostream &os) {
  std::vector<StatisticValue> values = getStatistics();
  if (values.empty())
    return;
  os << "===" << std::string(73, '-') << "===\n"
     << "                         ... amp pass statistics report ...\n"
     << "===" << std::string(73, '-') << "===\n";
  std::string current;
  for (const StatisticValue &v : values) {
    if (v.pass != current) {
      os << "'" << v.pass << "'\n";
      current = v.pass;
    }
    os << llvm::format("  (S) %8llu %s - %s\n",
                       static_cast<unsigned long long>(v.value), v.name.c_str(),
                       v.description.c_str());
  }
}
