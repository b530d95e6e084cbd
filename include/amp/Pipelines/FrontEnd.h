//===- FrontEnd.h - the shared start of the amp pipelines -------*- C++ -*-===//
//
// The device-independent start of amp-cpu-pipeline and amp-cuda-pipeline
// (cast policy, amp ops to upstream dialects, linalg on tensors), the
// bufferization stage both run, and helpers to build pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_FRONTEND_H
#define AMP_PIPELINES_FRONTEND_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace amp {

/// Adds a textual list of passes (not wrapped in builtin.module) to `pm`.
LogicalResult addPassList(OpPassManager &pm, llvm::StringRef passes,
                          std::string &errorMessage);

/// Fails with "<pipeline>: mode must be 'graph' or 'eager', got ..." unless
/// `mode` is an amp-autocast mode.
LogicalResult checkAutocastMode(llvm::StringRef pipeline, llvm::StringRef mode,
                                std::string &errorMessage);

/// The device-independent start of the pipelines: amp-autocast (when
/// `autocast`, in `mode`), amp-fp32-accumulation, amp-lower-cast,
/// amp-lower-loss-scaling, amp-decompose-aggregated-ops, tosa -> linalg,
/// tosa-to-tensor (reshape, slice, concat, pad),
/// tosa-to-arith, convert-elementwise-to-linalg, elementwise fusion.
LogicalResult addAmpFrontEnd(OpPassManager &pm, bool autocast,
                             llvm::StringRef mode, std::string &errorMessage);

/// One-shot bufferization across function boundaries (identity layouts,
/// loops may return new buffers), buffer hoisting and the ownership-based
/// deallocation pipeline.
LogicalResult addAmpBufferization(OpPassManager &pm, std::string &errorMessage);

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_FRONTEND_H
