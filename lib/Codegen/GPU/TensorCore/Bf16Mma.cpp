//===- Bf16Mma.cpp - bf16 m16n8k16 contractions to mma.sync ---------------===//
//
// lowerBf16Contractions (TensorCore.h) for amp-gpu-tensor-core-contractions:
// MLIR 22's vector-to-nvgpu conversion loads f16 mma.sync fragments but not
// bf16 ones, and its nvgpu-to-nvvm lowering cannot type a bf16
// `nvgpu.mma.sync`, so bf16 contractions are lowered here, to ldmatrix and
// `nvvm.mma.sync`.
//
//===----------------------------------------------------------------------===//

#include "TensorCore.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::amp::tensor_core;

namespace {

/// lowerBf16Contractions, one contraction at a time: lower() maps a
/// contraction (its fragments loaded once per tile read, its accumulators
/// read from memory or taken from the previous k piece's mma.sync);
/// eraseLowered() removes what the mma.syncs replaced once all are lowered.
class Bf16MmaLowering {
public:
  explicit Bf16MmaLowering(RewriterBase &rewriter) : rewriter(rewriter) {}

  LogicalResult lower(vector::ContractionOp contract) {
    MLIRContext *ctx = rewriter.getContext();
    auto lhsType = contract.getLhsType(), rhsType = contract.getRhsType();
    auto accType = dyn_cast<VectorType>(contract.getAccType());
    if (!lhsType.getElementType().isBF16() ||
        !rhsType.getElementType().isBF16() || !accType ||
        !accType.getElementType().isF32() ||
        lhsType.getShape() != ArrayRef<int64_t>{16, 16} ||
        rhsType.getShape() != ArrayRef<int64_t>{16, 8} ||
        accType.getShape() != ArrayRef<int64_t>{16, 8} ||
        contract.getKind() != vector::CombiningKind::ADD ||
        isa<vector::MaskOp>(contract->getParentOp()))
      return failure();
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    if (contract.getIndexingMapsArray() !=
        AffineMap::inferFromExprList(
            ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {k, n}, {m, n}}, ctx))
      return failure();
    vector::TransferReadOp readA = getPlainRead(contract.getLhs());
    vector::TransferReadOp readB = getPlainRead(contract.getRhs());
    if (!readA || !readB || !isShared(readA) || !isShared(readB) ||
        !contract->hasOneUse())
      return failure();
    // The result goes to memory, or (k steps of 32 and more, unrolled) is
    // the accumulator of the next k piece.
    Operation *user = *contract->user_begin();
    auto write = dyn_cast<vector::TransferWriteOp>(user);
    auto next = dyn_cast<vector::ContractionOp>(user);
    if (write ? !isPlainMemRefTransfer(write)
              : !next || next.getAcc() != contract.getResult())
      return failure();
    // The accumulator comes from memory, or from the previous k piece.
    vector::TransferReadOp readC = getPlainRead(contract.getAcc());
    auto previous = contract.getAcc().getDefiningOp<vector::ContractionOp>();
    if (readC ? !readC->hasOneUse() : !previous || !results.count(previous))
      return failure();

    // Copies: the map of fragments may grow (and move) in between.
    SmallVector<Value> a(fragmentsOf(readA, /*isA=*/true));
    SmallVector<Value> b(fragmentsOf(readB, /*isA=*/false));
    Location loc = contract.getLoc();
    OpBuilder::InsertionGuard guard(rewriter);
    Type f32 = accType.getElementType();
    SmallVector<Value> c;
    if (readC) {
      // C: rows g and g + 8, columns 2t and 2t + 1. The pairs move through
      // in-bounds transfers, which the pass hoists out of the k loop
      // afterwards (the same positions are read and written in every k
      // step).
      rewriter.setInsertionPoint(readC);
      for (auto [row, col] : accumulatorPositions(readC)) {
        Value pair = vector::TransferReadOp::create(
            rewriter, loc, pairOf(f32), readC.getBase(), ValueRange{row, col},
            /*padding=*/std::nullopt, /*inBounds=*/ArrayRef<bool>{true});
        for (int64_t i : {0, 1})
          c.push_back(vector::ExtractOp::create(rewriter, loc, pair, i));
      }
    } else {
      c = results[previous];
    }

    rewriter.setInsertionPoint(contract);
    auto resultType =
        LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    Value mma = NVVM::MmaOp::create(
        rewriter, loc, resultType, a, b, c, /*shape=*/{16, 8, 16},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> &d = results[contract];
    for (int64_t i = 0; i < 4; ++i)
      d.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma, i));
    lowered.push_back(contract);
    if (!write)
      return success();
    rewriter.setInsertionPoint(write);
    for (auto [i, position] : llvm::enumerate(accumulatorPositions(write))) {
      auto [row, col] = position;
      Value pair = vector::FromElementsOp::create(
          rewriter, loc, pairOf(f32), ValueRange{d[2 * i], d[2 * i + 1]});
      vector::TransferWriteOp::create(rewriter, loc, pair, write.getBase(),
                                      ValueRange{row, col},
                                      /*inBounds=*/ArrayRef<bool>{true});
    }
    rewriter.eraseOp(write);
    return success();
  }

  /// Erases the lowered contractions (the last of each chain first) and the
  /// reads whose fragments and accumulator pairs replaced them.
  void eraseLowered() {
    SmallVector<Operation *> reads;
    for (vector::ContractionOp contract : llvm::reverse(lowered)) {
      if (auto readC = getPlainRead(contract.getAcc()))
        reads.push_back(readC);
      rewriter.eraseOp(contract);
    }
    for (Operation *read : reads)
      rewriter.eraseOp(read);
    for (auto &entry : fragments)
      if (entry.first->use_empty())
        rewriter.eraseOp(entry.first);
  }

private:
  static VectorType pairOf(Type elem) { return VectorType::get({2}, elem); }

  /// `base` + `laneExpr`(lane id) + `offset`, composed into one affine.apply.
  Value at(Location loc, Value base, AffineExpr laneExpr, int64_t offset) {
    AffineExpr d0 = rewriter.getAffineDimExpr(0);
    return affine::makeComposedAffineApply(
        rewriter, loc, d0 + laneExpr + offset,
        ArrayRef<OpFoldResult>{base, laneId(loc)});
  }
  /// g = laneid / 4 and 2t = 2 * (laneid % 4), as functions of the lane id
  /// (the second dimension of `at`).
  AffineExpr g() { return rewriter.getAffineDimExpr(1).floorDiv(4); }
  AffineExpr twoT() { return rewriter.getAffineDimExpr(1) % 4 * 2; }

  Value laneId(Location loc) {
    return gpu::LaneIdOp::create(rewriter, loc, /*upper_bound=*/nullptr);
  }

  Value asRegister(Location loc, Value pair) {
    return LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), pair);
  }

  /// The registers of an `ldmatrix` of `tiles` 8 x 8 matrices (PTX ISA,
  /// "ldmatrix"): lane l gives the address of row l % 16 of the 16-row
  /// tile at (row0, col0), in its columns from 8 * (l / 16) on: x4 reads
  /// rows 0-7, 8-15 of columns 0-7, then of columns 8-15 (A's a0..a3); x2
  /// (lanes 0-15) reads rows 0-7, 8-15 of columns 0-7. Transposed, lane l
  /// receives rows 2(l % 4), 2(l % 4) + 1 of column l / 4 of each matrix
  /// (B's b0, b1 from a row-major k x n tile).
  SmallVector<Value> loadMatrix(vector::TransferReadOp read, int64_t tiles,
                                bool transpose) {
    Location loc = read.getLoc();
    Type elem = read.getVectorType().getElementType();
    AffineExpr lane = rewriter.getAffineDimExpr(1);
    Value row = at(loc, read.getIndices()[0], lane % 16, 0);
    Value col = at(loc, read.getIndices()[1], lane.floorDiv(16) * 8, 0);
    Value matrix = nvgpu::LdMatrixOp::create(
        rewriter, loc, VectorType::get({tiles, 2}, elem), read.getBase(),
        ValueRange{row, col}, transpose, tiles);
    SmallVector<Value> regs;
    for (int64_t i = 0; i < tiles; ++i)
      regs.push_back(
          asRegister(loc, vector::ExtractOp::create(rewriter, loc, matrix, i)));
    return regs;
  }

  /// The fragment registers of an A (`isA`) or B tile read from shared
  /// memory, loaded once, where the read was, by one ldmatrix (A: x4; B: x2
  /// transposed).
  ArrayRef<Value> fragmentsOf(vector::TransferReadOp read, bool isA) {
    SmallVector<Value> &regs = fragments[read];
    if (!regs.empty())
      return regs;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(read);
    regs = loadMatrix(read, /*tiles=*/isA ? 4 : 2, /*transpose=*/!isA);
    return regs;
  }

  /// The two accumulator pairs of a lane in the C tile `transfer` accesses:
  /// (row g, column 2t) and (row g + 8, column 2t).
  std::array<std::pair<Value, Value>, 2>
  accumulatorPositions(VectorTransferOpInterface transfer) {
    Location loc = transfer->getLoc();
    Value row0 = transfer.getIndices()[0], col0 = transfer.getIndices()[1];
    Value col = at(loc, col0, twoT(), 0);
    return {std::pair{at(loc, row0, g(), 0), col},
            std::pair{at(loc, row0, g(), 8), col}};
  }

  RewriterBase &rewriter;
  /// The i32 fragment registers loaded for each A and B read.
  llvm::MapVector<Operation *, SmallVector<Value>> fragments;
  /// The four f32 accumulators each lowered contraction computes, in
  /// fragment order, and the contractions in the order they were lowered.
  DenseMap<Operation *, SmallVector<Value>> results;
  SmallVector<vector::ContractionOp> lowered;
};

} // namespace

LogicalResult mlir::amp::tensor_core::lowerBf16Contractions(
    RewriterBase &rewriter, ArrayRef<vector::ContractionOp> contracts) {
  Bf16MmaLowering lowering(rewriter);
  for (vector::ContractionOp contract : contracts)
    if (failed(lowering.lower(contract)))
      return contract.emitError("amp-gpu-tensor-core-contractions: the bf16 "
                                "m16n8k16 contraction could not be mapped to "
                                "mma.sync");
  lowering.eraseLowered();
  return success();
}
