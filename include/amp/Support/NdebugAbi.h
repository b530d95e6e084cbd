//===- NdebugAbi.h - match the ABI of an NDEBUG LLVM/MLIR -------*- C++ -*-===//
//
// Force-included into every amp-mlir translation unit (see CMakeLists.txt).
// amp-mlir is built with assertions (-UNDEBUG) against Debian's LLVM/MLIR,
// which is built with NDEBUG. llvm::Statistic is the one LLVM class whose
// layout follows NDEBUG (TrackingStatistic vs NoopStatistic), and
// mlir::Pass::Statistic derives from it: include it once as the library saw
// it, so that both sides agree on the layout, then turn assertions back on.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_NDEBUGABI_H
#define AMP_SUPPORT_NDEBUGABI_H

#if defined(AMP_LLVM_BUILT_WITH_NDEBUG) && !defined(NDEBUG)
#define NDEBUG
#include "llvm/ADT/Statistic.h"
#undef NDEBUG
#include <cassert>
#endif

#endif // AMP_SUPPORT_NDEBUGABI_H
