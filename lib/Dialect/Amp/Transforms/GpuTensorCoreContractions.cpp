//===- GpuTensorCoreContractions.cpp - matmuls on tensor cores ------------===//
//
// The `amp-gpu-tensor-core-contractions` pass: every f16 x f16 -> f32
// `linalg.matmul` on buffers (what amp-fp32-accumulation makes of an
// autocast matmul) whose sizes are multiples of 16 x 8 x 16 becomes a
// `gpu.launch` whose warps run `vector.contract`s of m16n8k16 shape with f32
// accumulators; `convert-vector-to-gpu{use-nvgpu}` then turns them into
// `nvgpu.mma.sync` (PTX `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`).
// bf16 contractions are lowered here, to per-lane fragment loads and
// `nvvm.mma.sync` (PTX `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`):
// MLIR 22's convert-vector-to-gpu cannot load bf16 mma fragments, and its
// nvgpu-to-nvvm lowering cannot type a bf16 `nvgpu.mma.sync`.
//
// The schedule is a transform-dialect script applied by the interpreter:
// upstream's `rewrite_matmul_as_mma_sync` rejects mixed f16 -> f32
// matmuls, while tiling to blocks (16 x 8 per block, one warp) and to k
// steps of 16, vectorizing, and folding the arith extensions into the
// contraction gives a mixed-precision `vector.contract` that
// `convert-vector-to-gpu` maps to mma.sync. The accumulator fragments are
// then hoisted out of the k loop (loaded once, carried in registers, stored
// once).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUTENSORCORECONTRACTIONS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr StringLiteral kMarker = "amp.tensor_core";

/// One block per 16 x 8 output tile (one warp, 32 threads), k in steps of
/// 16: the m16n8k16 mma.sync shape.
constexpr StringLiteral kSchedule = R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} attributes{amp.tensor_core} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mm : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %one tile_sizes [16, 8]
          (mapping = [#gpu.block<y>, #gpu.block<x>])
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %tk, %loop = transform.structured.tile_using_for %tiled tile_sizes [0, 0, 16]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %tk : !transform.any_op
      %launch = transform.gpu.map_forall_to_blocks %forall generate_gpu_launch
          : (!transform.any_op) -> !transform.any_op
      %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [32, 1, 1]
          : (!transform.any_op) -> !transform.any_op
    }
    // Turn multiply + multi_reduction into vector.contract and fold the
    // f16/bf16 -> f32 extensions into it (a mixed-precision contraction).
    // Only the vectorized matmuls have vector ops: the rest of each
    // function is still linalg.
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.fold_arith_extension
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
)mlir";

/// The compute capability of `chip` ("sm_90", "sm_90a", "sm_80", ...) as
/// major * 10 + minor, or nothing.
std::optional<int> parseComputeCapability(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  chip.consume_back("a");
  chip.consume_back("f");
  int cc;
  if (chip.getAsInteger(10, cc) || cc < 10)
    return std::nullopt;
  return cc;
}

bool isLowPrecision(Type t) { return t.isF16() || t.isBF16(); }

/// An in-bounds, unmasked, identity-map transfer on a memref: one that
/// plain loads and stores at its indices can replace.
bool isPlainMemRefTransfer(VectorTransferOpInterface transfer) {
  return !transfer.getMask() && isa<MemRefType>(transfer.getBase().getType()) &&
         transfer.getPermutationMap().isIdentity() &&
         llvm::all_of(transfer.getInBoundsValues(), [](bool b) { return b; });
}

/// The plain `vector.transfer_read` (see above) that defines `v`, or null.
vector::TransferReadOp getPlainRead(Value v) {
  auto read = v.getDefiningOp<vector::TransferReadOp>();
  return read && isPlainMemRefTransfer(read) ? read : vector::TransferReadOp();
}

/// Lowers one warp's m16n8k16 bf16 contraction, as the schedule leaves it
/// in a k step:
///
///   %a = vector.transfer_read %A[i, k] : memref, vector<16x16xbf16>  (m x k)
///   %b = vector.transfer_read %B[k, j] : memref, vector<16x8xbf16>   (k x n)
///   %c = vector.transfer_read %C[i, j] : memref, vector<16x8xf32>
///   %d = vector.contract (m, k) x (k, n) -> (m, n), %a, %b, %c
///   vector.transfer_write %d, %C[i, j]
///
/// to the fragments each lane holds and one `nvvm.mma.sync` with bf16
/// multiplicands and f32 accumulators. Fragment layout (PTX ISA, "Matrix
/// Fragments for mma.m16n8k16 with floating point type", the same for .f16
/// and .bf16; g = laneid / 4, t = laneid % 4):
///   A, four registers of two bf16: (row g, cols 2t, 2t+1), (g+8, 2t..),
///     (g, 2t+8..), (g+8, 2t+8..); the lower column in the low half;
///   B, two registers: (rows 2t, 2t+1, col g), (rows 2t+8, 2t+9, col g);
///   C and D, four f32: (row g, cols 2t, 2t+1), (row g+8, cols 2t, 2t+1).
/// These are the lane positions MLIR's f16 conversion loads as well.
LogicalResult lowerBf16Contraction(RewriterBase &rewriter,
                                   vector::ContractionOp contract) {
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
  if (!readA || !readB || !contract->hasOneUse())
    return failure();
  auto write = dyn_cast<vector::TransferWriteOp>(*contract->user_begin());
  if (!write || !isPlainMemRefTransfer(write))
    return failure();
  vector::TransferReadOp readC = getPlainRead(contract.getAcc());
  if (!readC)
    return failure();

  Location loc = contract.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(write);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto add = [&](Value a, Value b) -> Value {
    return arith::AddIOp::create(rewriter, loc, a, b);
  };
  Value lane = gpu::LaneIdOp::create(rewriter, loc, /*upper_bound=*/nullptr);
  Value g = arith::DivUIOp::create(rewriter, loc, lane, index(4));
  Value t2 = arith::MulIOp::create(
      rewriter, loc, arith::RemUIOp::create(rewriter, loc, lane, index(4)),
      index(2));
  Value c8 = index(8);

  Type bf16 = lhsType.getElementType(), f32 = accType.getElementType();
  Type i32 = rewriter.getI32Type();
  auto pairOf = [&](Type elem) { return VectorType::get({2}, elem); };
  auto asRegister = [&](Value pair) -> Value {
    return LLVM::BitcastOp::create(rewriter, loc, i32, pair);
  };

  // A: pairs along k (contiguous in row-major A).
  Value rowA = readA.getIndices()[0], colA = readA.getIndices()[1];
  SmallVector<Value> a;
  for (auto [dRow, dCol] : {std::pair{0, 0}, {8, 0}, {0, 8}, {8, 8}}) {
    Value row = add(rowA, dRow ? add(g, c8) : g);
    Value col = add(colA, dCol ? add(t2, c8) : t2);
    a.push_back(asRegister(vector::LoadOp::create(
        rewriter, loc, pairOf(bf16), readA.getBase(), ValueRange{row, col})));
  }
  // B: pairs along k, a column of row-major B: two scalar loads each.
  Value rowB = readB.getIndices()[0], colB = add(readB.getIndices()[1], g);
  SmallVector<Value> b;
  for (int64_t dRow : {0, 8}) {
    Value first = add(rowB, dRow ? add(t2, c8) : t2);
    Value second = add(first, index(1));
    Value lo = memref::LoadOp::create(rewriter, loc, readB.getBase(),
                                      ValueRange{first, colB});
    Value hi = memref::LoadOp::create(rewriter, loc, readB.getBase(),
                                      ValueRange{second, colB});
    b.push_back(asRegister(vector::FromElementsOp::create(
        rewriter, loc, pairOf(bf16), ValueRange{lo, hi})));
  }
  // C: rows g and g + 8, columns 2t and 2t + 1.
  auto accRows = [&](ValueRange base) {
    return std::array<std::pair<Value, Value>, 2>{
        std::pair{add(base[0], g), add(base[1], t2)},
        std::pair{add(base[0], add(g, c8)), add(base[1], t2)}};
  };
  // The accumulator pairs move through in-bounds transfers, which the pass
  // hoists out of the k loop afterwards (the same positions are read and
  // written in every k step).
  SmallVector<Value> c;
  for (auto [row, col] : accRows(readC.getIndices())) {
    Value pair = vector::TransferReadOp::create(
        rewriter, loc, pairOf(f32), readC.getBase(), ValueRange{row, col},
        /*padding=*/std::nullopt, /*inBounds=*/ArrayRef<bool>{true});
    for (int64_t i : {0, 1})
      c.push_back(vector::ExtractOp::create(rewriter, loc, pair, i));
  }

  auto resultType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      rewriter, loc, resultType, a, b, c, /*shape=*/{16, 8, 16},
      /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  for (auto [i, position] : llvm::enumerate(accRows(write.getIndices()))) {
    auto [row, col] = position;
    Value lo = LLVM::ExtractValueOp::create(rewriter, loc, d, 2 * i);
    Value hi = LLVM::ExtractValueOp::create(rewriter, loc, d, 2 * i + 1);
    Value pair = vector::FromElementsOp::create(rewriter, loc, pairOf(f32),
                                                ValueRange{lo, hi});
    vector::TransferWriteOp::create(rewriter, loc, pair, write.getBase(),
                                    ValueRange{row, col},
                                    /*inBounds=*/ArrayRef<bool>{true});
  }
  rewriter.eraseOp(write);
  rewriter.eraseOp(contract);
  for (vector::TransferReadOp read : {readA, readB, readC})
    if (read->use_empty())
      rewriter.eraseOp(read);
  return success();
}

struct AmpGpuTensorCoreContractionsPass
    : public amp::impl::AmpGpuTensorCoreContractionsBase<
          AmpGpuTensorCoreContractionsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    capability = parseComputeCapability(chip);
    if (!capability)
      return emitError(UnknownLoc::get(ctx))
             << "amp-gpu-tensor-core-contractions: chip must be sm_<NN>[a|f], "
                "got '"
             << chip << "'";
    ParserConfig config(ctx);
    schedule = std::make_shared<OwningOpRef<ModuleOp>>(parseSourceString<ModuleOp>(
        kSchedule, config, "amp-tensor-core-schedule"));
    if (!*schedule)
      return failure();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](linalg::MatmulOp mm) {
      if (!mm.hasPureBufferSemantics())
        return;
      auto a = dyn_cast<MemRefType>(mm.getDpsInputs()[0].getType());
      auto b = dyn_cast<MemRefType>(mm.getDpsInputs()[1].getType());
      auto c = dyn_cast<MemRefType>(mm.getDpsInits()[0].getType());
      if (!a || !b || !c || !isLowPrecision(a.getElementType()) ||
          a.getElementType() != b.getElementType() ||
          !c.getElementType().isF32())
        return;
      // Plain row-major A[m, k] * B[k, n] only (no transposed or
      // broadcast operands).
      if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2 ||
          mm.getIndexingMapsArray() !=
              linalg::MatmulOp::getDefaultIndexingMaps(mm.getContext())) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: transposed or "
                      "broadcast operands; SIMT fallback");
        return;
      }
      // mma.sync m16n8k16 (f16 and bf16) is an sm_80 instruction.
      if (*capability < 80) {
        mm.emitWarning("amp-gpu-tensor-core-contractions: ")
            << chip
            << " has no mma.sync m16n8k16 (sm_80+); this contraction runs "
               "as SIMT code with f32 accumulation";
        return;
      }
      if (!a.hasStaticShape() || !b.hasStaticShape() || !c.hasStaticShape() ||
          !a.getLayout().isIdentity() || !b.getLayout().isIdentity() ||
          !c.getLayout().isIdentity()) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: dynamic shape or "
                      "strided layout; SIMT fallback");
        return;
      }
      int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
      // One block per 16 x 8 tile: gridDim.y (m / 16) is at most 65535.
      if (m / 16 > 65535) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: ")
            << m << " rows exceed the grid (65535 blocks of 16); SIMT fallback";
        return;
      }
      if (m % 16 || n % 8 || k % 16) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: ")
            << m << "x" << n << "x" << k
            << " is not a multiple of the 16x8x16 mma tile; SIMT fallback";
        return;
      }
      mm->setAttr(kMarker, UnitAttr::get(mm.getContext()));
      any = true;
    });
    if (!any)
      return;

    // Launches that were there before (written by the user or an earlier
    // pass) are not this pass's to convert.
    DenseSet<Operation *> earlierLaunches;
    module.walk([&](gpu::LaunchOp launch) { earlierLaunches.insert(launch); });

    ModuleOp scheduleModule = schedule->get();
    auto entry = scheduleModule.lookupSymbol<transform::NamedSequenceOp>(
        "__transform_main");
    if (failed(transform::applyTransformNamedSequence(
            module, entry, scheduleModule, transform::TransformOptions())))
      return signalPassFailure();

    // The contractions to nvgpu.mma.sync, inside the new launches only:
    // MLIR 22's convert-vector-to-gpu{use-nvgpu} also tries to convert every
    // scalar f16 -> f32 arith.extf of the function (and fails on them), so
    // it cannot run on whole functions that hold other code.
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp launch) {
      if (!earlierLaunches.contains(launch))
        launches.push_back(launch);
    });
    // The tiles' subviews folded into the transfers, in every new launch
    // before any is rewritten: hoisting an accumulator out of a k loop is
    // refused while a view of its buffer remains, in any launch.
    for (gpu::LaunchOp launch : launches) {
      RewritePatternSet fold(&getContext());
      memref::populateFoldMemRefAliasOpPatterns(fold);
      (void)applyPatternsGreedily(launch, std::move(fold));
    }
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : launches) {
      // bf16: lowered here (see lowerBf16Contraction).
      SmallVector<vector::ContractionOp> bf16Contractions;
      launch->walk([&](vector::ContractionOp contract) {
        if (contract.getLhsType().getElementType().isBF16())
          bf16Contractions.push_back(contract);
      });
      for (vector::ContractionOp contract : bf16Contractions)
        if (failed(lowerBf16Contraction(rewriter, contract))) {
          contract.emitError("amp-gpu-tensor-core-contractions: the bf16 "
                             "m16n8k16 contraction could not be mapped to "
                             "mma.sync");
          return signalPassFailure();
        }
      keepAccumulatorsInRegisters(rewriter, launch);
      if (!bf16Contractions.empty()) {
        // The accumulator pairs' transfers to plain vector loads and stores.
        RewritePatternSet lower(&getContext());
        vector::populateVectorTransferLoweringPatterns(lower,
                                                       /*maxTransferRank=*/1);
        (void)applyPatternsGreedily(launch, std::move(lower));
        continue;
      }
      RewritePatternSet prepare(&getContext());
      populatePrepareVectorToMMAPatterns(prepare, /*useNvGpu=*/true);
      if (failed(applyPatternsGreedily(launch, std::move(prepare))) ||
          failed(convertVectorToNVVMCompatibleMMASync(rewriter, launch))) {
        launch.emitError("amp-gpu-tensor-core-contractions: the m16n8k16 "
                         "contraction could not be mapped to mma.sync");
        return signalPassFailure();
      }
      // convert-vector-to-gpu leaves the warp-level accumulator as a second,
      // unused loop-carried value next to the lanes' fragments.
      RewritePatternSet cleanup(&getContext());
      scf::ForOp::getCanonicalizationPatterns(cleanup, &getContext());
      (void)applyPatternsGreedily(launch, std::move(cleanup));
    }
  }

  /// Moves the accumulator tile of each k loop in `launch` out of the loop:
  /// read once before it, carried in registers, written once after it.
  /// Equal indices are merged first, so that upstream's hoisting sees one
  /// read and one write of the same memref at loop-invariant indices; it
  /// refuses whenever another access in the loop may touch the tile, or a
  /// view of the buffer remains (the code then stays correct, with the
  /// accumulator read and written in every k step).
  static void keepAccumulatorsInRegisters(RewriterBase &rewriter,
                                          gpu::LaunchOp launch) {
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, launch);
    linalg::hoistRedundantVectorTransfers(launch);
    // The only writes in a k loop are the accumulator's.
    bool refused = false;
    launch.walk([&](scf::ForOp loop) {
      loop.walk([&](vector::TransferWriteOp) { refused = true; });
    });
    if (refused)
      launch.emitRemark(
          "amp-gpu-tensor-core-contractions: the accumulator is read and "
          "written in every k step: keeping it in registers needs its buffer "
          "to have no view (subview, cast, reshape) anywhere and no other "
          "access in the loop");
  }

  std::optional<int> capability;
  /// The parsed schedule, shared by the clones of the pass (read only).
  std::shared_ptr<OwningOpRef<ModuleOp>> schedule;
};

} // namespace
