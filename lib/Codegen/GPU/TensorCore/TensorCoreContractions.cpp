//===- TensorCoreContractions.cpp - matmuls on tensor cores ---------------===//
//
// The `amp-gpu-tensor-core-contractions` pass: every f16 x f16 -> f32 or
// bf16 x bf16 -> f32 `linalg.matmul` or `linalg.batch_matmul` on buffers
// (what amp-fp32-accumulation makes of an autocast matmul) whose sizes are
// multiples of 16 x 8 x 16 becomes a `gpu.launch` of m16n8k16 mma.syncs
// with f32 accumulators (Passes.td has the rules). In order:
//
// 1. chooseTiles picks each matmul's block and warp tiles and k step; a
//    transform-dialect script run by the interpreter tiles it to blocks,
//    warps and k steps and vectorizes it into a mixed-precision
//    `vector.contract` per warp and step (upstream's
//    `rewrite_matmul_as_mma_sync` rejects mixed f16 -> f32 matmuls); a
//    batched matmul gets a block per batch element along z, and
//    unbatchBlockMatmul makes each block's matmul 2-D between tiling to
//    blocks and tiling to warps;
// 2. stageInSharedMemory (Staging.cpp) copies each k step's A
//    and B block tiles to shared memory (a k loop rotates through several
//    sets of tiles, stages), and the warps read them from there;
// 3. upstream's vector unrolling splits each contraction into m16n8k16
//    pieces;
// 4. f16: upstream's vector-to-nvgpu conversion (ldmatrix, nvgpu.mma.sync);
//    bf16: lowerBf16Contractions (Bf16Mma.cpp: ldmatrix,
//    nvvm.mma.sync), since MLIR 22 can neither load bf16 fragments nor type
//    a bf16 `nvgpu.mma.sync`; the accumulators are kept in registers
//    through the k loop (upstream's hoisting, and hoistAccumulatorsOfViews
//    for batched matmuls' views), and startFromFill seeds them from a
//    constant fill of the output right before the matmul, which goes;
// 5. pipelineTileCopies (Staging.cpp) makes the tile copies
//    cp.async, issued stages - 1 k steps ahead, and applyEpilogue applies an
//    elementwise op on the output right after the matmul to the
//    accumulators before they are stored, which goes.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "TensorCore.h"
#include "../GpuUtils.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUTENSORCORECONTRACTIONS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::tensor_core;

namespace {

constexpr StringLiteral kMarker = "amp.tensor_core";

/// Marks the block loop of a batched matmul between the two parts of its
/// schedule.
constexpr StringLiteral kBlocksMarker = "amp.tensor_core_blocks";

/// The schedule of one matmul, with @BM@ x @BN@ the block tile, @WM@ x @WN@
/// the warp tile, @BK@ the k step and @TX@ x @TY@ the threads of a block (32
/// per warp along x): tiled to blocks, then to warps, then k, and
/// vectorized. The pass stages the k step's A and B tiles in shared memory
/// and unrolls each warp's @WM@ x @WN@ x @BK@ contraction to m16n8k16
/// pieces afterwards.
///
/// A matmul's schedule is kTileToBlocks then kTileToWarps. A batched
/// matmul's is in two parts: kTileBatchToBlocks (a block per batch element
/// along z), then the pass makes each block's unit-batch matmul a 2-D
/// linalg.matmul on views of its batch element's matrices, then
/// kFindBlocks and kTileToWarps.
constexpr StringLiteral kTileToBlocks = R"mlir(
    %mm = transform.structured.match ops{["linalg.matmul"]} attributes{amp.tensor_core} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %blocks = transform.structured.tile_using_forall %mm tile_sizes [@BM@, @BN@]
        (mapping = [#gpu.block<y>, #gpu.block<x>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir";
constexpr StringLiteral kTileBatchToBlocks = R"mlir(
    %bmm = transform.structured.match ops{["linalg.batch_matmul"]} attributes{amp.tensor_core} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %blocks = transform.structured.tile_using_forall %bmm tile_sizes [1, @BM@, @BN@]
        (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %blocks "amp.tensor_core_blocks" : !transform.any_op
    transform.yield
)mlir";
constexpr StringLiteral kFindBlocks = R"mlir(
    %tiled = transform.structured.match ops{["linalg.matmul"]} attributes{amp.tensor_core} in %root
        : (!transform.any_op) -> !transform.any_op
    %blocks = transform.structured.match ops{["scf.forall"]} attributes{amp.tensor_core_blocks} in %root
        : (!transform.any_op) -> !transform.any_op
)mlir";
constexpr StringLiteral kTileToWarps = R"mlir(
    %warp, %warps = transform.structured.tile_using_forall %tiled tile_sizes [@WM@, @WN@]
        (mapping = [#gpu.warp<y>, #gpu.warp<x>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tk, %loop = transform.structured.tile_using_for %warp tile_sizes [0, 0, @BK@]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.structured.vectorize %tk : !transform.any_op
    %launch = transform.gpu.map_forall_to_blocks %blocks generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [@TX@, @TY@, 1]
        sync_after_distribute = false
        : (!transform.any_op) -> !transform.any_op
    // Turn multiply + multi_reduction into vector.contract and fold the
    // f16/bf16 -> f32 extensions into it (a mixed-precision contraction).
    transform.apply_patterns to %mapped {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.fold_arith_extension
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
)mlir";

/// Below this many warps in all, warp tiles are made smaller, trading
/// register reuse for parallelism (H100/H200: 132 SMs, 4 warps each).
constexpr int64_t kMinWarps = 528;

/// The tiles of an m x n x k matmul (m, n, k multiples of 16, 8, 16; `batch`
/// of them in a batched matmul): each warp
/// takes the largest tile up to 64 x 64 that divides the output, which reuses
/// every loaded A fragment for warpN / 8 and every B fragment for warpM / 16
/// mma.syncs, shrunk while the matmul would have fewer than kMinWarps warps;
/// blocks group up to 2 x 2 such warps where the output divides; k steps of
/// 32 where k divides (16 otherwise).
TileConfig chooseTiles(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  auto largestDividing = [](int64_t size, int64_t largest, int64_t smallest) {
    int64_t tile = largest;
    while (tile > smallest && size % tile)
      tile /= 2;
    return tile;
  };
  int64_t warpM = largestDividing(m, 64, 16);
  int64_t warpN = largestDividing(n, 64, 8);
  while (batch * (m / warpM) * (n / warpN) < kMinWarps &&
         (warpM > 16 || warpN > 8)) {
    // Halve the longer side, counted in mma tiles (16 rows, 8 columns).
    bool halveM = warpN == 8 || (warpM > 16 && warpM >= 2 * warpN);
    (halveM ? warpM : warpN) /= 2;
  }
  int64_t blockM = m % (2 * warpM) ? warpM : 2 * warpM;
  int64_t blockN = n % (2 * warpN) ? warpN : 2 * warpN;
  return {blockM, blockN, warpM, warpN, k % 32 ? 16 : 32};
}

/// The sets of A and B tiles (stages) a launch's k loop rotates through
/// (pipelineTileCopies): as many as fit in kMaxStagesBytes, up to 4 and
/// up to the k steps; 1 with one k step (no loop). The largest tiles
/// chooseTiles picks (128 x 128, k steps of 32) take 18.5 KiB a stage: 4
/// stages, 74 KiB of dynamic shared memory.
int64_t chooseStages(const TileConfig &config, int64_t k,
                     int64_t elementBytes) {
  int64_t steps = k / config.blockK;
  if (steps < 2)
    return 1;
  return std::max<int64_t>(
      1, std::min<int64_t>(
             {4, steps, kMaxStagesBytes / stageBytes(config, elementBytes)}));
}

/// The schedule text of `pieces` (a transform module whose entry point runs
/// them in order) for `config`.
std::string scheduleFor(const TileConfig &config,
                        ArrayRef<StringLiteral> pieces) {
  std::string text = "module attributes {transform.with_named_sequence} {\n"
                     "  transform.named_sequence @__transform_main(%root: "
                     "!transform.any_op {transform.readonly}) {";
  for (StringLiteral piece : pieces)
    text += piece.str();
  text += "  }\n}\n";
  auto substitute = [&](StringRef key, int64_t value) {
    std::string v = std::to_string(value);
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + v.size()))
      text.replace(at, key.size(), v);
  };
  substitute("@BM@", config.blockM);
  substitute("@BN@", config.blockN);
  substitute("@WM@", config.warpM);
  substitute("@WN@", config.warpN);
  substitute("@BK@", config.blockK);
  substitute("@TX@", 32 * config.warpsN());
  substitute("@TY@", config.warpsM());
  return text;
}

/// The m16n8k16 shape a warp-level vector op of a tensor-core launch is
/// unrolled to: the contraction itself, its operands' reads (A: 16 x 16,
/// B: 16 x 8, C: 16 x 8) and the accumulator's write (16 x 8).
std::optional<SmallVector<int64_t>> mmaNativeShape(Operation *op) {
  if (isa<vector::ContractionOp>(op))
    return SmallVector<int64_t>{16, 8, 16};
  if (isa<vector::TransferWriteOp>(op))
    return SmallVector<int64_t>{16, 8};
  auto read = dyn_cast<vector::TransferReadOp>(op);
  if (!read)
    return std::nullopt;
  // A read feeds a contraction, or (once the contraction is unrolled) the
  // slices that feed its pieces.
  for (Operation *user : read->getUsers()) {
    if (auto contract = dyn_cast<vector::ContractionOp>(user))
      return contract.getLhs() == read.getResult()
                 ? SmallVector<int64_t>{16, 16}
                 : SmallVector<int64_t>{16, 8};
    if (auto slice = dyn_cast<vector::ExtractStridedSliceOp>(user))
      return llvm::to_vector(slice.getType().getShape());
  }
  return std::nullopt;
}

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

/// Between the two parts of a batched matmul's schedule: the block loop
/// (marked kBlocksMarker) holds a linalg.batch_matmul of one batch element
/// on subviews [b, i, j] [1, rows, cols] of the 3-D operands. It becomes a
/// linalg.matmul (marked for kFindBlocks) on the same tiles as 2-D views:
/// each operand's batch element b as a matrix (memref.reinterpret_cast at
/// offset b * rows * cols, identity layouts) and the tile a subview of it.
/// Fold-memref-alias patterns fold the tiles' subviews into the transfers
/// later, down to the matrix views, so that the k step's reads stay 2-D and
/// plain (see isPlainMemRefTransfer).
LogicalResult unbatchBlockMatmul(ModuleOp module) {
  SmallVector<linalg::BatchMatmulOp> tiles;
  module.walk([&](scf::ForallOp blocks) {
    if (blocks->hasAttr(kBlocksMarker))
      blocks.walk([&](linalg::BatchMatmulOp op) { tiles.push_back(op); });
  });
  if (tiles.size() != 1)
    return module.emitError("amp-gpu-tensor-core-contractions: expected one "
                            "batched matmul tile in the block loop, found ")
           << tiles.size();
  linalg::BatchMatmulOp tile = tiles.front();
  IRRewriter rewriter(module.getContext());
  rewriter.setInsertionPoint(tile);
  Location loc = tile.getLoc();
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  SmallVector<Value> views;
  for (Value operand : tile->getOperands()) {
    auto subview = operand.getDefiningOp<memref::SubViewOp>();
    auto whole =
        subview ? dyn_cast<MemRefType>(subview.getSourceType()) : MemRefType();
    if (!whole || whole.getRank() != 3 || !whole.getLayout().isIdentity() ||
        !whole.hasStaticShape() || !subview.hasUnitStride() ||
        subview.getStaticSizes()[0] != 1)
      return tile.emitError("amp-gpu-tensor-core-contractions: a batched "
                            "matmul tile not on a unit-batch subview of an "
                            "identity-layout buffer");
    int64_t rows = whole.getDimSize(1), cols = whole.getDimSize(2);
    SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
    OpFoldResult start = affine::makeComposedFoldedAffineApply(
        rewriter, loc, d0 * (rows * cols), {offsets[0]});
    Value matrix = memref::ReinterpretCastOp::create(
        rewriter, loc,
        MemRefType::get({rows, cols}, whole.getElementType(),
                        StridedLayoutAttr::get(rewriter.getContext(),
                                               ShapedType::kDynamic, {cols, 1}),
                        whole.getMemorySpace()),
        subview.getSource(), start,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(rows),
                               rewriter.getIndexAttr(cols)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(cols),
                               rewriter.getIndexAttr(1)});
    SmallVector<OpFoldResult> sizes = subview.getMixedSizes();
    views.push_back(memref::SubViewOp::create(
        rewriter, loc, matrix, ArrayRef(offsets).drop_front(),
        ArrayRef(sizes).drop_front(),
        SmallVector<OpFoldResult>(2, rewriter.getIndexAttr(1))));
  }
  auto matmul = linalg::MatmulOp::create(
      rewriter, loc, ValueRange{views[0], views[1]}, ValueRange{views[2]});
  matmul->setAttr(kMarker, rewriter.getUnitAttr());
  rewriter.eraseOp(tile);
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
    return success();
  }

  /// The tiles of `op` where it is a linalg.matmul or linalg.batch_matmul
  /// this pass runs on tensor cores: f16 or bf16 operands, f32 result, in
  /// host code, row-major, static identity layouts, sizes multiples of the
  /// 16x8x16 mma tile, an sm_80+ chip. Otherwise nothing, with a remark
  /// saying why (a warning on a chip without mma.sync m16n8k16) where the
  /// element types would fit.
  std::optional<TileConfig> eligible(linalg::LinalgOp mm) {
    bool batched = isa<linalg::BatchMatmulOp>(mm);
    if ((!batched && !isa<linalg::MatmulOp>(mm)) ||
        !mm.hasPureBufferSemantics())
      return std::nullopt;
    auto a = dyn_cast<MemRefType>(mm.getDpsInputs()[0].getType());
    auto b = dyn_cast<MemRefType>(mm.getDpsInputs()[1].getType());
    auto c = dyn_cast<MemRefType>(mm.getDpsInits()[0].getType());
    if (!a || !b || !c || !isLowPrecision(a.getElementType()) ||
        a.getElementType() != b.getElementType() || !c.getElementType().isF32())
      return std::nullopt;
    // Host code only: a matmul already inside device code or a parallel
    // loop (whose body becomes device code) cannot get a launch of its
    // own.
    if (isInDeviceCodeOrParallelLoop(mm)) {
      mm.emitRemark("amp-gpu-tensor-core-contractions: inside device code "
                    "or a parallel loop; SIMT fallback");
      return std::nullopt;
    }
    // Plain row-major A[m, k] * B[k, n] only (no transposed or broadcast
    // operands), per batch element.
    int64_t rank = batched ? 3 : 2;
    SmallVector<AffineMap> defaultMaps =
        batched ? linalg::BatchMatmulOp::getDefaultIndexingMaps(&getContext())
                : linalg::MatmulOp::getDefaultIndexingMaps(&getContext());
    if (a.getRank() != rank || b.getRank() != rank || c.getRank() != rank ||
        mm.getIndexingMapsArray() != defaultMaps) {
      mm.emitRemark("amp-gpu-tensor-core-contractions: transposed or "
                    "broadcast operands; SIMT fallback");
      return std::nullopt;
    }
    // mma.sync m16n8k16 (f16 and bf16) is an sm_80 instruction.
    if (*capability < 80) {
      mm.emitWarning("amp-gpu-tensor-core-contractions: ")
          << chip
          << " has no mma.sync m16n8k16 (sm_80+); this contraction runs "
             "as SIMT code with f32 accumulation";
      return std::nullopt;
    }
    if (!a.hasStaticShape() || !b.hasStaticShape() || !c.hasStaticShape() ||
        !a.getLayout().isIdentity() || !b.getLayout().isIdentity() ||
        !c.getLayout().isIdentity()) {
      mm.emitRemark("amp-gpu-tensor-core-contractions: dynamic shape or "
                    "strided layout; SIMT fallback");
      return std::nullopt;
    }
    int64_t batch = batched ? c.getDimSize(0) : 1;
    int64_t m = c.getDimSize(rank - 2), n = c.getDimSize(rank - 1),
            k = a.getDimSize(rank - 1);
    if (batch == 0 || m == 0 || n == 0 || k == 0) {
      InFlightDiagnostic remark =
          mm.emitRemark("amp-gpu-tensor-core-contractions: ");
      if (batched)
        remark << batch << "x";
      remark << m << "x" << n << "x" << k << " is empty; SIMT fallback";
      return std::nullopt;
    }
    if (m % 16 || n % 8 || k % 16) {
      mm.emitRemark("amp-gpu-tensor-core-contractions: ")
          << m << "x" << n << "x" << k
          << " is not a multiple of the 16x8x16 mma tile; SIMT fallback";
      return std::nullopt;
    }
    TileConfig config = chooseTiles(m, n, k, batch);
    config.stages =
        chooseStages(config, k, a.getElementType().getIntOrFloatBitWidth() / 8);
    // gridDim.y (m / blockM) and gridDim.z (the batch) are at most 65535.
    if (m / config.blockM > 65535) {
      mm.emitRemark("amp-gpu-tensor-core-contractions: ")
          << m << " rows exceed the grid (65535 blocks of " << config.blockM
          << "); SIMT fallback";
      return std::nullopt;
    }
    if (batch > 65535) {
      mm.emitRemark("amp-gpu-tensor-core-contractions: a batch of ")
          << batch << " exceeds the grid (65535 blocks); SIMT fallback";
      return std::nullopt;
    }
    return config;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, TileConfig>> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<TileConfig> config = eligible(op))
        matmuls.push_back({op, *config});
    });
    if (matmuls.empty())
      return;

    // Launches that were there before (written by the user or an earlier
    // pass) are not this pass's to convert.
    DenseSet<Operation *> earlierLaunches;
    module.walk([&](gpu::LaunchOp launch) { earlierLaunches.insert(launch); });

    // One matmul at a time, each with the schedule of its tiles (parsed
    // once per distinct tiling).
    std::map<std::tuple<TileConfig, bool, int>, OwningOpRef<ModuleOp>>
        schedules;
    // The entry point of a schedule made of `pieces`, parsed once per
    // tiling, kind and part.
    auto scheduleOf = [&](const TileConfig &config, bool batched, int part,
                          ArrayRef<StringLiteral> pieces)
        -> std::pair<transform::NamedSequenceOp, ModuleOp> {
      OwningOpRef<ModuleOp> &schedule = schedules[{config, batched, part}];
      if (!schedule) {
        ParserConfig parserConfig(&getContext());
        schedule = parseSourceString<ModuleOp>(scheduleFor(config, pieces),
                                               parserConfig,
                                               "amp-tensor-core-schedule");
        if (!schedule)
          return {};
      }
      return {schedule->lookupSymbol<transform::NamedSequenceOp>(
                  "__transform_main"),
              *schedule};
    };
    auto apply = [&](std::pair<transform::NamedSequenceOp, ModuleOp> s) {
      return success(
          s.first &&
          succeeded(transform::applyTransformNamedSequence(
              module, s.first, s.second, transform::TransformOptions())));
    };
    llvm::MapVector<gpu::LaunchOp, TileConfig> launches;
    // The fill of each launch's output right before its matmul, if any:
    // the launch can start its accumulators from the fill's value.
    DenseMap<Operation *, linalg::FillOp> outputFills;
    // The elementwise op on each launch's output right after its matmul, if
    // any: the launch can apply it to its accumulators before storing them.
    DenseMap<Operation *, linalg::GenericOp> outputEpilogues;
    for (auto [mm, config] : matmuls) {
      linalg::FillOp fill = outputFill(mm);
      linalg::GenericOp epilogue = outputEpilogue(mm);
      mm->setAttr(kMarker, UnitAttr::get(&getContext()));
      if (isa<linalg::BatchMatmulOp>(mm)) {
        if (failed(apply(scheduleOf(config, true, 0, {kTileBatchToBlocks}))) ||
            failed(unbatchBlockMatmul(module)) ||
            failed(apply(
                scheduleOf(config, true, 1, {kFindBlocks, kTileToWarps}))))
          return signalPassFailure();
      } else if (failed(apply(scheduleOf(config, false, 0,
                                         {kTileToBlocks, kTileToWarps})))) {
        return signalPassFailure();
      }
      module.walk([&, config = config](gpu::LaunchOp launch) {
        if (!earlierLaunches.contains(launch) && !launches.contains(launch)) {
          launches.insert({launch, config});
          if (fill)
            outputFills[launch] = fill;
          if (epilogue)
            outputEpilogues[launch] = epilogue;
        }
      });
    }

    // The contractions to nvgpu.mma.sync, inside the new launches only:
    // MLIR 22's convert-vector-to-gpu{use-nvgpu} also tries to convert every
    // scalar f16 -> f32 arith.extf of the function (and fails on them), so
    // it cannot run on whole functions that hold other code.
    IRRewriter rewriter(&getContext());
    // The tiles' subviews folded into the transfers, in every new launch
    // before any is rewritten: hoisting an accumulator out of a k loop is
    // refused while a view of its buffer remains, in any launch.
    for (auto &[launch, config] : launches) {
      RewritePatternSet fold(&getContext());
      memref::populateFoldMemRefAliasOpPatterns(fold);
      (void)applyPatternsGreedily(launch, std::move(fold));
      if (failed(stageInSharedMemory(rewriter, launch, config))) {
        launch.emitError("amp-gpu-tensor-core-contractions: the launch the "
                         "schedule made has an unexpected form; its A and B "
                         "tiles cannot be staged in shared memory");
        return signalPassFailure();
      }
      // Each warp's contraction to m16n8k16 pieces, each reading its own
      // fragments' tile; a loaded A tile serves a row of pieces, a B tile a
      // column.
      RewritePatternSet unroll(&getContext());
      vector::populateVectorUnrollPatterns(
          unroll,
          vector::UnrollVectorOptions().setNativeShapeFn(mmaNativeShape));
      vector::ExtractStridedSliceOp::getCanonicalizationPatterns(unroll,
                                                                 &getContext());
      vector::InsertStridedSliceOp::getCanonicalizationPatterns(unroll,
                                                                &getContext());
      (void)applyPatternsGreedily(launch, std::move(unroll));
    }
    // The k loop pipelined over the launch's stages, and the stages'
    // subviews folded into the accesses (ldmatrix, cp.async).
    // Then the output's elementwise epilogue applied to the stored
    // accumulators, where it can be.
    auto pipeline = [&](gpu::LaunchOp launch, const TileConfig &config) {
      pipelineTileCopies(rewriter, launch, config.stages);
      RewritePatternSet fold(&getContext());
      memref::populateFoldMemRefAliasOpPatterns(fold);
      (void)applyPatternsGreedily(launch, std::move(fold));
      if (linalg::GenericOp epilogue = outputEpilogues.lookup(launch))
        applyEpilogue(rewriter, launch, epilogue);
    };
    for (auto [launch, config] : launches) {
      // bf16: lowered by the pass (Bf16Mma.cpp).
      SmallVector<vector::ContractionOp> bf16Contractions;
      launch->walk([&](vector::ContractionOp contract) {
        if (contract.getLhsType().getElementType().isBF16())
          bf16Contractions.push_back(contract);
      });
      if (failed(lowerBf16Contractions(rewriter, bf16Contractions)))
        return signalPassFailure();
      keepAccumulatorsInRegisters(rewriter, launch);
      if (linalg::FillOp fill = outputFills.lookup(launch))
        startFromFill(rewriter, launch, fill);
      if (!bf16Contractions.empty()) {
        // The accumulator pairs' transfers to plain vector loads and stores.
        RewritePatternSet lower(&getContext());
        vector::populateVectorTransferLoweringPatterns(lower,
                                                       /*maxTransferRank=*/1);
        (void)applyPatternsGreedily(launch, std::move(lower));
        pipeline(launch, config);
        continue;
      }
      RewritePatternSet prepare(&getContext());
      populatePrepareVectorToMMAPatterns(prepare, /*useNvGpu=*/true);
      if (failed(applyPatternsGreedily(launch, std::move(prepare)))) {
        launch.emitError("amp-gpu-tensor-core-contractions: the m16n8k16 "
                         "contraction could not be mapped to mma.sync");
        return signalPassFailure();
      }
      // Preparing each contraction gives it its own (transposed) read of B:
      // merged again, so that each B fragment is loaded once per k step.
      DominanceInfo dominance;
      eliminateCommonSubExpressions(rewriter, dominance, launch);
      if (failed(convertVectorToNVVMCompatibleMMASync(rewriter, launch))) {
        launch.emitError("amp-gpu-tensor-core-contractions: the m16n8k16 "
                         "contraction could not be mapped to mma.sync");
        return signalPassFailure();
      }
      // convert-vector-to-gpu leaves the warp-level accumulator as a second,
      // unused loop-carried value next to the lanes' fragments.
      RewritePatternSet cleanup(&getContext());
      scf::ForOp::getCanonicalizationPatterns(cleanup, &getContext());
      (void)applyPatternsGreedily(launch, std::move(cleanup));
      pipeline(launch, config);
    }
  }

  /// The accumulator pairs upstream's hoisting leaves because their memref
  /// is a view (a batched matmul's C matrix, a memref.reinterpret_cast of
  /// its batch element defined before the k loop): a transfer_read and a
  /// later transfer_write in the loop's body of the same view, indices and
  /// vector type, all defined outside the loop, where everything else in
  /// the loop that uses the view is a transfer of provably disjoint
  /// elements (as upstream's hoisting requires). The read moves before the
  /// loop, its value is carried, and the write moves after it. Each pair is its
  /// own warp's part of the tile, as in the loop.
  static void hoistAccumulatorsOfViews(RewriterBase &rewriter,
                                       scf::ForOp loop) {
    auto outside = [&](Value v) { return loop.isDefinedOutsideOfLoop(v); };
    for (bool changed = true; changed;) {
      changed = false;
      for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
        Value base = read.getBase();
        if (!base.getDefiningOp<ViewLikeOpInterface>() || !outside(base) ||
            read.getMask() || !outside(read.getPadding()) ||
            !llvm::all_of(read.getIndices(), outside))
          continue;
        // The loop's uses of the view: this read, one write of the same
        // elements, and transfers of elements disjoint from them.
        vector::TransferWriteOp write;
        bool others = false;
        for (Operation *user : base.getUsers()) {
          if (user == read || !loop->isAncestor(user))
            continue;
          auto transfer = dyn_cast<VectorTransferOpInterface>(user);
          auto userWrite = dyn_cast<vector::TransferWriteOp>(user);
          if (userWrite && !write &&
              userWrite.getIndices() == read.getIndices())
            write = userWrite;
          else if (!transfer ||
                   !vector::isDisjointTransferSet(
                       cast<VectorTransferOpInterface>(read.getOperation()),
                       transfer, /*testDynamicValueUsingBounds=*/true))
            others = true;
        }
        if (others || !write || write->getBlock() != loop.getBody() ||
            !read->isBeforeInBlock(write) || write.getMask() ||
            write.getIndices() != read.getIndices() ||
            write.getVectorType() != read.getVectorType() ||
            write.getPermutationMap() != read.getPermutationMap() ||
            write.getInBounds() != read.getInBounds())
          continue;
        rewriter.moveOpBefore(read, loop);
        Value carried = write.getVector();
        FailureOr<LoopLikeOpInterface> hoisted =
            cast<LoopLikeOpInterface>(loop.getOperation())
                .replaceWithAdditionalYields(
                    rewriter, read.getResult(),
                    /*replaceInitOperandUsesInLoop=*/true,
                    [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                      return SmallVector<Value>{carried};
                    });
        if (failed(hoisted))
          return;
        loop = cast<scf::ForOp>(hoisted->getOperation());
        rewriter.setInsertionPointAfter(loop);
        vector::TransferWriteOp::create(
            rewriter, write.getLoc(), loop.getResults().back(), base,
            write.getIndices(), write.getPermutationMapAttr(),
            write.getInBoundsAttr());
        rewriter.eraseOp(write);
        changed = true;
        break;
      }
    }
  }

  /// Calls `fn` in program order with each op of `launch` that takes (a
  /// view of) `output`, a root buffer, as an operand, once per such
  /// operand, and that operand; the view-like ops themselves excepted.
  static void forEachOutputAccess(gpu::LaunchOp launch, Value output,
                                  function_ref<void(Operation *, Value)> fn) {
    launch.walk([&](Operation *op) {
      if (isa<ViewLikeOpInterface>(op))
        return;
      for (Value operand : op->getOperands())
        if (isa<MemRefType>(operand.getType()) && rootBuffer(operand) == output)
          fn(op, operand);
    });
  }

  /// Whether `op` is in a loop of `launch` (its k loop), not merely in a
  /// loop around the launch (a matmul in a training loop).
  static bool inKLoop(Operation *op, gpu::LaunchOp launch) {
    auto loop = op->getParentOfType<scf::ForOp>();
    return loop && launch->isProperAncestor(loop);
  }

  /// The elementwise `linalg.generic` on `mm`'s output right after it (the
  /// op after it in its block) that reads and writes the output buffer in
  /// place (identity maps, all parallel) and computes each element from
  /// that element alone: every op of its body is an elementwise-mappable op
  /// on the element (`%in` or `%out`, the same) or on results of earlier
  /// body ops, with one result.
  /// This is what keep-narrow-rounding makes of an autocast matmul whose
  /// f16 result is not fused into a consumer (the f32 accumulators rounded
  /// to f16 and back, e.g. a weight gradient before loss scaling's checks).
  /// Null otherwise.
  static linalg::GenericOp outputEpilogue(linalg::LinalgOp mm) {
    auto generic = dyn_cast_or_null<linalg::GenericOp>(mm->getNextNode());
    Value c = mm.getDpsInits()[0];
    if (!generic || !generic.hasPureBufferSemantics() ||
        generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
        generic.getDpsInputs()[0] != c || generic.getDpsInits()[0] != c ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }) ||
        generic.getNumParallelLoops() != generic.getNumLoops())
      return {};
    // The input and the output element are the same (one buffer, identity
    // maps): both block arguments stand for the accumulator.
    Block *body = generic.getBody();
    for (Operation &op : body->without_terminator()) {
      bool local = llvm::all_of(op.getOperands(), [&](Value v) {
        return v.getParentBlock() == body;
      });
      if (!OpTrait::hasElementwiseMappableTraits(&op) || !isPure(&op) ||
          op.getNumRegions() || op.getNumResults() != 1 || !local ||
          op.getNumOperands() == 0)
        return {};
    }
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    if (yield.getValues().front().getParentBlock() != body)
      return {};
    return generic;
  }

  /// Applies `epilogue` (outputEpilogue's, on the output of `launch`'s
  /// matmul) to each value the launch stores to the output, and erases it:
  /// one pass over the output fewer (8 bytes per f32 element). Only where
  /// every store of the output in the launch is outside the k loop (the
  /// accumulators carried in registers, or one k step) and nothing reads
  /// the output after a store: each element is then stored once, with its
  /// final value. Otherwise the epilogue stays.
  static void applyEpilogue(RewriterBase &rewriter, gpu::LaunchOp launch,
                            linalg::GenericOp epilogue) {
    Value output = rootBuffer(epilogue.getDpsInits()[0]);
    // The launch's accesses of the output in program order: loads (the
    // accumulators' start) then stores, all outside the k loop.
    SmallVector<vector::StoreOp> stores;
    bool other = false;
    forEachOutputAccess(launch, output, [&](Operation *op, Value operand) {
      auto store = dyn_cast<vector::StoreOp>(op);
      bool inLoop = inKLoop(op, launch);
      if (store && store.getBase() == operand && !inLoop)
        stores.push_back(store);
      else if (!isa<vector::LoadOp>(op) || inLoop || !stores.empty())
        other = true;
    });
    if (other || stores.empty())
      return;
    Block *body = epilogue.getBody();
    for (vector::StoreOp store : stores) {
      rewriter.setInsertionPoint(store);
      auto type = cast<VectorType>(store.getValueToStore().getType());
      IRMapping mapping;
      for (BlockArgument element : body->getArguments())
        mapping.map(element, store.getValueToStore());
      for (Operation &op : body->without_terminator()) {
        OperationState state(op.getLoc(), op.getName());
        for (Value operand : op.getOperands())
          state.addOperands(mapping.lookup(operand));
        state.addAttributes(op.getAttrs());
        state.addTypes(
            VectorType::get(type.getShape(), op.getResult(0).getType()));
        mapping.map(op.getResult(0), rewriter.create(state)->getResult(0));
      }
      Value result = mapping.lookup(
          cast<linalg::YieldOp>(body->getTerminator()).getValues().front());
      rewriter.modifyOpInPlace(
          store, [&] { store.getValueToStoreMutable().assign(result); });
    }
    rewriter.eraseOp(epilogue);
  }

  /// The `linalg.fill` of `mm`'s output with a constant right before it
  /// (`getFillOfOutput`'s, of the accumulators' type), or null.
  static linalg::FillOp outputFill(linalg::LinalgOp mm) {
    linalg::FillOp fill = getFillOfOutput(mm);
    if (!fill || !fill.value().getDefiningOp<arith::ConstantOp>())
      return {};
    return fill;
  }

  /// Starts `launch`'s accumulators from the constant `fill` (of its
  /// output, right before its matmul) instead of reading them, and erases
  /// the fill: the kernel writes every output element, so the fill's
  /// kernel and the accumulators' reads of what it wrote go. Only where
  /// every read of the output in the launch is outside the k loop (the
  /// accumulators carried in registers, or one k step): a read in the loop
  /// reads the partial sums of the steps before it, and the fill stays.
  static void startFromFill(RewriterBase &rewriter, gpu::LaunchOp launch,
                            linalg::FillOp fill) {
    Value output = rootBuffer(fill.getOutputs()[0]);
    SmallVector<vector::TransferReadOp> reads;
    bool otherUse = false;
    forEachOutputAccess(launch, output, [&](Operation *op, Value) {
      auto read = dyn_cast<vector::TransferReadOp>(op);
      if (read && !inKLoop(op, launch))
        reads.push_back(read);
      else if (!isa<vector::TransferWriteOp>(op))
        otherUse = true;
    });
    if (otherUse || reads.empty())
      return;
    auto value = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
    for (vector::TransferReadOp read : reads) {
      rewriter.setInsertionPoint(read);
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          read, DenseElementsAttr::get(read.getVectorType(),
                                       cast<TypedAttr>(value.getValue())));
    }
    rewriter.eraseOp(fill);
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
    SmallVector<scf::ForOp> loops;
    launch.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      hoistAccumulatorsOfViews(rewriter, loop);
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
};

} // namespace
