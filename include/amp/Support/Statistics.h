//===- Statistics.h - pass statistics that survive an NDEBUG MLIR -*- C++
//-*-===//
//
// Debian's MLIR is built with NDEBUG and without LLVM statistics:
// mlir::Pass::Statistic is a no-op there (it keeps neither name nor value)
// and `-mlir-pass-statistics` prints nothing. The amp passes therefore record
// their counters in this registry; amp-opt prints it, in the layout of
// `-mlir-pass-statistics`, when given that flag, and the C API / Python
// package read it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_STATISTICS_H
#define AMP_SUPPORT_STATISTICS_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::amp {

/// One counter of one pass, summed over the pass's runs.
struct StatisticValue {
  std::string pass, name, description;
  uint64_t value;
};

/// A counter declared by a pass: name and description (as in Passes.td
/// `Statistic<...>`) and the value of one run.
struct StatisticSpec {
  const char *name;
  const char *description;
  uint64_t value;
};

/// Adds the values of one run of `pass` to the registry.
void recordStatistics(StringRef pass, ArrayRef<StatisticSpec> values);

/// All counters recorded so far, in first-recorded order.
std::vector<StatisticValue> getStatistics();

/// Clears the registry.
void resetStatistics();

/// Prints the counters in the layout of `-mlir-pass-statistics`.
void printStatistics(llvm::raw_ostream &os);

} // namespace mlir::amp

#endif // AMP_SUPPORT_STATISTICS_H
