//===- AlignWorkgroupMemory.cpp - 16-byte aligned shared memory -----------===//
//
// The `amp-gpu-align-workgroup-memory` pass: every workgroup attribution of
// a gpu.func gets `llvm.align = 16`, for the 16-byte shared-memory accesses
// of the tensor-core kernels (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUALIGNWORKGROUPMEMORY
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The widest shared-memory access of the kernels: a 128-bit vector load or
/// store, or an ldmatrix row.
constexpr int64_t kAlignment = 16;

struct AmpGpuAlignWorkgroupMemoryPass
    : public amp::impl::AmpGpuAlignWorkgroupMemoryBase<
          AmpGpuAlignWorkgroupMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    StringRef name = LLVM::LLVMDialect::getAlignAttrName();
    getOperation().walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i) {
        auto align = dyn_cast_or_null<IntegerAttr>(
            func.getWorkgroupAttributionAttr(i, name));
        if (align && align.getInt() >= kAlignment)
          continue;
        func.setWorkgroupAttributionAttr(
            i, name,
            IntegerAttr::get(IntegerType::get(&getContext(), 64), kAlignment));
      }
    });
  }
};

} // namespace
