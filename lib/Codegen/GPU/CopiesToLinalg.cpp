//===- CopiesToLinalg.cpp - buffer copies as GPU kernels ------------------===//
//
// The `amp-gpu-copies-to-linalg` pass: the `memref.copy` ops that
// bufferization leaves in host code become `linalg.copy`, so that the CUDA
// pipeline turns them into elementwise kernels like every other linalg op
// instead of copying managed memory on the host (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUCOPIESTOLINALG
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpGpuCopiesToLinalgPass
    : public amp::impl::AmpGpuCopiesToLinalgBase<AmpGpuCopiesToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (isa<MemRefType>(copy.getSource().getType()) &&
          isa<MemRefType>(copy.getTarget().getType()) &&
          !copy->getParentOfType<gpu::LaunchOp>())
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};

} // namespace
