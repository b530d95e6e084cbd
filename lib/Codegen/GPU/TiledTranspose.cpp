//===- TiledTranspose.cpp - transposes through shared memory --------------===//
//
// The `amp-gpu-tiled-transpose` pass: 2-D `linalg.transpose` ops on buffers
// become GPU kernels that stage 32 x 32 tiles in shared memory, so that both
// the reads and the writes are coalesced (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "GpuUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUTILEDTRANSPOSE
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The tile edge, and the rows of threads of a block (each thread moves
/// kTile / kRows elements each way).
constexpr int64_t kTile = 32;
constexpr int64_t kRows = 8;

/// Why the 2-D transpose on buffers `op` stays for the parallel-loop path,
/// or nothing.
std::optional<std::string> whyNotTiled(linalg::TransposeOp op) {
  auto in = cast<MemRefType>(op.getInput().getType());
  auto out = cast<MemRefType>(op.getInit().getType());
  if (isInDeviceCodeOrParallelLoop(op))
    return "inside device code or a parallel loop";
  if (!in.hasStaticShape() || !out.hasStaticShape() ||
      !in.getLayout().isIdentity() || !out.getLayout().isIdentity())
    return "dynamic shape or strided layout";
  if (in.getNumElements() == 0)
    return "empty";
  // Tile columns on blockIdx.x (at most 2^31 - 1), tile rows on blockIdx.y
  // (at most 65535).
  if (llvm::divideCeil(in.getDimSize(1), kTile) > 2147483647)
    return "more than 2147483647 tile columns";
  if (llvm::divideCeil(in.getDimSize(0), kTile) > 65535)
    return "more than 65535 tile rows";
  if (memref::skipViewLikeOps(
          cast<TypedValue<MemRefType>>(op.getInput())) ==
      memref::skipViewLikeOps(cast<TypedValue<MemRefType>>(op.getInit())))
    return "input and output on one buffer";
  return std::nullopt;
}

struct AmpGpuTiledTransposePass
    : public amp::impl::AmpGpuTiledTransposeBase<AmpGpuTiledTransposePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> ops;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (!op.hasPureBufferSemantics() ||
          op.getPermutation() != ArrayRef<int64_t>{1, 0})
        return;
      auto in = dyn_cast<MemRefType>(op.getInput().getType());
      if (!in || in.getRank() != 2)
        return;
      if (std::optional<std::string> why = whyNotTiled(op)) {
        op.emitRemark("amp-gpu-tiled-transpose: ")
            << *why << "; parallel-loop transpose";
        return;
      }
      ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::TransposeOp op : ops) {
      rewriter.setInsertionPoint(op);
      buildKernel(rewriter, op);
      rewriter.eraseOp(op);
    }
  }

  /// out[c, r] = in[r, c] for the rows x cols input:
  ///
  ///   gpu.launch blocks(ceil(cols / 32), ceil(rows / 32)) threads(32, 8)
  ///       workgroup(%tile : memref<32x33xT, workgroup>)
  ///     for j in 0..3:  %tile[ty + 8j, tx] = in[32 by + ty + 8j, 32 bx + tx]
  ///     gpu.barrier
  ///     for j in 0..3:  out[32 bx + ty + 8j, 32 by + tx] = %tile[tx, ty + 8j]
  ///
  /// Where rows or cols is not a multiple of 32, the last tiles are partial:
  /// each load and store is guarded by its element's row and column being
  /// in bounds (only the checks a dimension needs are emitted); the barrier
  /// stays unconditional.
  void buildKernel(RewriterBase &rewriter, linalg::TransposeOp op) {
    Location loc = op.getLoc();
    auto in = cast<MemRefType>(op.getInput().getType());
    int64_t rows = in.getDimSize(0), cols = in.getDimSize(1);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto tileType = MemRefType::get(
        {kTile, kTile + 1}, in.getElementType(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                   gpu::GPUDialect::getWorkgroupAddressSpace()));
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, index(llvm::divideCeil(cols, kTile)),
        index(llvm::divideCeil(rows, kTile)), index(1), index(kTile),
        index(kRows), index(1), /*dynamicSharedMemorySize=*/nullptr,
        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{},
        TypeRange{tileType});
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    gpu::TerminatorOp::create(rewriter, loc);
    rewriter.setInsertionPointToStart(&launch.getBody().front());

    Value tile = launch.getWorkgroupAttributions().front();
    gpu::KernelDim3 block = launch.getBlockIds(), thread = launch.getThreadIds();
    AffineExpr d0 = rewriter.getAffineDimExpr(0);
    AffineExpr d1 = rewriter.getAffineDimExpr(1);
    auto apply = [&](AffineExpr e, ArrayRef<OpFoldResult> operands) -> Value {
      return affine::makeComposedAffineApply(rewriter, loc, e, operands);
    };
    // Row ty + 8j of the tile, and the tile's first input row and column.
    auto tileRow = [&](int64_t j) {
      return apply(d0 + j * kRows, {thread.y});
    };
    auto plus = [&](Value tileOrigin, Value offset) {
      return apply(d0 * kTile + d1, {tileOrigin, offset});
    };
    // Runs `body` where the input element (r, c) is in bounds: directly
    // when both dimensions are multiples of the tile, else in an scf.if.
    auto ifInBounds = [&](Value r, Value c, llvm::function_ref<void()> body) {
      Value inBounds;
      auto check = [&](Value v, int64_t size) {
        if (size % kTile == 0)
          return;
        Value lt = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ult, v, index(size));
        inBounds =
            inBounds ? arith::AndIOp::create(rewriter, loc, inBounds, lt) : lt;
      };
      check(r, rows);
      check(c, cols);
      OpBuilder::InsertionGuard inner(rewriter);
      if (inBounds)
        rewriter.setInsertionPointToStart(
            scf::IfOp::create(rewriter, loc, inBounds).thenBlock());
      body();
    };
    for (int64_t j = 0; j < kTile / kRows; ++j) {
      Value row = tileRow(j);
      Value r = plus(block.y, row), c = plus(block.x, thread.x);
      ifInBounds(r, c, [&] {
        Value v = memref::LoadOp::create(rewriter, loc, op.getInput(),
                                         ValueRange{r, c});
        memref::StoreOp::create(rewriter, loc, v, tile,
                                ValueRange{row, thread.x});
      });
    }
    // The tile is complete before any thread reads another's elements.
    gpu::BarrierOp::create(rewriter, loc);
    for (int64_t j = 0; j < kTile / kRows; ++j) {
      Value row = tileRow(j);
      // Output (32 bx + ty + 8j, 32 by + tx) is input (r, c) below.
      Value c = plus(block.x, row), r = plus(block.y, thread.x);
      ifInBounds(r, c, [&] {
        Value v = memref::LoadOp::create(rewriter, loc, tile,
                                         ValueRange{thread.x, row});
        memref::StoreOp::create(rewriter, loc, v, op.getInit(),
                                ValueRange{c, r});
      });
    }
  }
};

} // namespace
