//===- TileAndVectorize.cpp - CPU code generation for contractions --------===//
//
// The `amp-cpu-tile-and-vectorize` pass: 2-D convolutions become im2col +
// contraction, every statically shaped contraction is tiled for the caches
// and for the registers, and the register tile is vectorized into a
// `vector.contract`. Everything is done with upstream linalg/SCF/vector
// utilities; this file only chooses what to apply and the tile sizes.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "CpuTarget.h"
#include "OnednnMatch.h"
#include "VectorizeTiles.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/X86Vector/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUTILEANDVECTORIZE
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Default tile sizes for the innermost (m, n, k) dimensions, the best of a
/// sweep on an AVX2 machine (bench/gemm.py): a 6x16 f32 accumulator (12 of
/// the 16 AVX2 registers, leaving two for the B row and one for the A
/// broadcast: 8x16 spills), k unrolled by 8; the cache tile keeps a 256x128
/// B panel (128 KiB f32) in L2.
constexpr int64_t kDefaultCacheTile[3] = {128, 128, 256};
constexpr int64_t kDefaultRegisterTile[3] = {6, 16, 8};

/// Contractions below this many flops (2 * iteration-space size) run on
/// one thread even with `parallel`: starting a parallel region costs
/// microseconds to tens of microseconds, more than such a contraction takes (the
/// small convolutions of mobilenet_v2 ran 2x slower threaded).
constexpr int64_t kMinParallelFlops = int64_t(1) << 25;

/// A matmul whose B operand (K x N) holds at least this many bytes gets it
/// packed into panels (see packRhsPanels): smaller ones stay in L2 as they
/// are.
constexpr int64_t kMinPackedRhsBytes = int64_t(256) << 10;

/// Marks the register tiles between tiling and vectorization (peeling and
/// canonicalization clone and rebuild them). Its value is the kind of tile:
/// unit for the FMA tiles, kDotTile for the AVX512-BF16 ones.
constexpr StringLiteral kRegisterTileMarker = "__amp_register_tile__";
constexpr StringLiteral kDotTile = "bf16-dot";

/// Marks a bf16 x bf16 -> f32 contraction packed for AVX512-BF16
/// (packForBf16Dot) until it is tiled.
constexpr StringLiteral kDotContractionMarker = amp::kBf16DotContractionMarker;

/// Tile sizes (m, n, k) of the AVX512-BF16 contractions (k in elements, two
/// per VNNI pair): the register tile holds 6 x 64 f32 accumulators (24 of
/// the 32 zmm registers: 6 rows of four 16-lane vdpbf16ps), leaving four
/// for the B row and the broadcast A pair; one k pair per step (LLVM
/// unrolls). n_r is also the width of B's packed panels.
constexpr int64_t kDotCacheTile[3] = {128, 128, 256};
constexpr int64_t kDotRegisterTile[3] = {6, 64, 2};
/// AMX register tiles (amp-cpu-amx-tiles): a block of 2 x 2 tiles of C, 32
/// rows x 32 f32, and 16 pairs of k per tdpbf16ps (A: 32 rows of 64 bytes;
/// B: 16 rows of 32 pairs); B's panels are 32 columns wide (16 where that
/// pads N much less).
constexpr int64_t kAmxTileRows = 32;
constexpr int64_t kAmxTileColumns = 32;
constexpr int64_t kAmxTilePairs = 16;

/// Tile sizes for `op` whose dimension groups (m, n, k) may hold several
/// dimensions (a packed contraction): each group's target is spread over
/// its dimensions from the innermost out, each taking the largest divisor
/// of its extent within what is left of the target (cache tiles must
/// divide: a partial cache tile has a dynamic size, and its register tiles
/// could not be vectorized). An extent whose divisors are all far below the
/// target (a prime such as 257 output channels: 1) and that is at most 4
/// targets is one tile instead: its register tiles then have their full
/// size, where tiles of 1 row fell off the vector paths altogether.
SmallVector<int64_t> groupTileSizes(linalg::LinalgOp op,
                                    const linalg::ContractionDimensions &dims,
                                    ArrayRef<int64_t> mnk) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> sizes(ranges.size(), 1);
  auto spread = [&](ArrayRef<unsigned> group, int64_t target) {
    for (unsigned d : llvm::reverse(group)) {
      sizes[d] = amp::largestDivisorAtMost(ranges[d], target);
      if (sizes[d] * 8 < std::min(target, ranges[d]) &&
          ranges[d] <= 4 * target)
        sizes[d] = ranges[d];
      target = std::max<int64_t>(1, target / sizes[d]);
    }
  };
  spread(dims.m, mnk[0]);
  spread(dims.n, mnk[1]);
  spread(dims.k, mnk[2]);
  return sizes;
}

/// A mixed-precision matmul (f16/bf16 operands, f32 accumulator) converts
/// its operands in its payload, once per multiply: every element of A is
/// converted N / n_r times, every element of B M / m_r times. On a CPU
/// without f16/bf16 arithmetic a conversion (integer shifts for bf16) costs
/// as much as the FMA it feeds. Both operands are converted once instead
/// (an elementwise `arith.extf`, exact), as B is copied into panels anyway,
/// and the matmul is rebuilt on f32 operands: the same numbers. Returns the
/// matmul to pack. (Only the matmuls big enough to pack: widening the
/// operands of every contraction, im2col convolutions included, was
/// measured slower on resnet18 cpu/bf16, 6.1 -> 7.5 ms per inference: the
/// widened im2col patches are large and reused a few times only.)
linalg::MatmulOp extendOperandsToAccumulatorType(RewriterBase &rewriter,
                                                 linalg::MatmulOp op) {
  Value acc = op.getDpsInitOperand(0)->get();
  auto accElem = dyn_cast<FloatType>(getElementTypeOrSelf(acc.getType()));
  if (!accElem)
    return op;
  Location loc = op.getLoc();
  bool changed = false;
  SmallVector<Value> inputs;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    Value v = operand->get();
    auto type = cast<RankedTensorType>(v.getType());
    auto elem = dyn_cast<FloatType>(type.getElementType());
    if (!elem || elem.getWidth() >= accElem.getWidth()) {
      inputs.push_back(v);
      continue;
    }
    auto wideType = type.clone(accElem);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, wideType.getShape(), accElem);
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    inputs.push_back(
        linalg::GenericOp::create(
            rewriter, loc, wideType, ValueRange{v}, ValueRange{init},
            ArrayRef<AffineMap>{id, id}, parallel,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value ext = arith::ExtFOp::create(b, l, accElem, args[0]);
              linalg::YieldOp::create(b, l, ext);
            })
            .getResult(0));
    changed = true;
  }
  if (!changed)
    return op;
  // The rebuilt matmul keeps the integer cast kind (`cast_unsigned` widens
  // an integer A with uitofp) and the discardable attributes.
  SmallVector<NamedAttribute> discardable(op->getDiscardableAttrs());
  linalg::MatmulOp wideMatmul =
      op.getCastAttr()
          ? linalg::MatmulOp::create(rewriter, loc, op->getResultTypes(),
                                     inputs, ValueRange{acc}, op.getCastAttr(),
                                     discardable)
          : linalg::MatmulOp::create(rewriter, loc, op->getResultTypes(),
                                     inputs, ValueRange{acc}, discardable);
  // The transposed forms keep their maps (the builders set the default).
  wideMatmul.setIndexingMapsAttr(op.getIndexingMaps());
  rewriter.replaceOp(op, wideMatmul->getResults());
  return wideMatmul;
}

/// Replaces `unpack` by a tensor.collapse_shape of its source when it is
/// one: only the innermost dimension is tiled, without padding, and the
/// outer dimensions keep their order (the accumulator C of a packed
/// contraction, viewed as [batch] x M x N/n_r x n_r). Upstream's
/// lowerUnPack copies the collapsed tensor into the unpack's destination
/// (a full-size `linalg.copy` into a fresh buffer: for a 1024 x 1024 f32
/// weight gradient 4 MiB more at the step's peak, and a pass over it).
static bool unpackAsCollapse(RewriterBase &rewriter,
                             linalg::UnPackOp unpack) {
  RankedTensorType src = unpack.getSourceType();
  RankedTensorType dest = unpack.getDestType();
  int64_t rank = dest.getRank();
  ArrayRef<int64_t> outerPerm = unpack.getOuterDimsPerm();
  if (!src.hasStaticShape() || !dest.hasStaticShape() ||
      unpack.getInnerDimsPos() != ArrayRef<int64_t>{rank - 1} ||
      !(outerPerm.empty() || isIdentityPermutation(outerPerm)) ||
      src.getDimSize(rank - 1) * src.getDimSize(rank) !=
          dest.getDimSize(rank - 1))
    return false;
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank - 1; ++i)
    groups.push_back({i});
  groups.push_back({rank - 1, rank});
  rewriter.setInsertionPoint(unpack);
  rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
      unpack, dest, unpack.getSource(), groups);
  return true;
}

/// Lowers the linalg.pack ops feeding `op` and the linalg.unpack ops of its
/// result to pads, reshapes and transposes, which bufferize.
static LogicalResult lowerPacksAround(RewriterBase &rewriter,
                                      linalg::GenericOp op) {
  SmallVector<linalg::PackOp> packs;
  SmallVector<linalg::UnPackOp> unpacks;
  for (Value v : op->getOperands())
    if (auto pack = v.getDefiningOp<linalg::PackOp>())
      packs.push_back(pack);
  for (Operation *user : op->getResult(0).getUsers())
    if (auto unpack = dyn_cast<linalg::UnPackOp>(user))
      unpacks.push_back(unpack);
  for (linalg::PackOp pack : packs) {
    rewriter.setInsertionPoint(pack);
    if (failed(linalg::lowerPack(rewriter, pack)))
      return failure();
  }
  for (linalg::UnPackOp unpack : unpacks) {
    if (unpackAsCollapse(rewriter, unpack))
      continue;
    rewriter.setInsertionPoint(unpack);
    if (failed(linalg::lowerUnPack(rewriter, unpack)))
      return failure();
  }
  return success();
}

/// Whether the 2-D matmul `op` reads A transposed (K x M) and B transposed
/// (N x K): its maps are the default ones or MLIR 22's transposed-operand
/// forms (amp-fold-transpose-into-contraction's); nothing otherwise (a
/// broadcast operand).
std::optional<std::pair<bool, bool>> matmulTransposes(linalg::MatmulOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  auto is = [&](AffineMap map, AffineExpr a, AffineExpr b) {
    return map == AffineMap::get(3, 0, {a, b}, ctx);
  };
  if (maps.size() != 3 || !is(maps[2], m, n))
    return std::nullopt;
  bool aT = is(maps[0], k, m), bT = is(maps[1], n, k);
  if ((!aT && !is(maps[0], m, k)) || (!bT && !is(maps[1], k, n)))
    return std::nullopt;
  return std::make_pair(aT, bT);
}

/// Packs the B operand of the 2-D matmul `op` (C[M,N] += A[M,K] *
/// B[K,N]; A may be read transposed, K x M, and B too, N x K: the
/// transposed-operand maps) into panels of `nr` columns: B becomes
/// (N/nr) x K x nr, so that
/// the K x nr strip a register tile streams is contiguous, instead of nr
/// columns read at a stride of N elements (for N a power of two every row
/// of the strip falls into the same cache set, and the strip does not stay
/// in L1 or L2 between register tiles). C is viewed as M x (N/nr) x nr
/// (a reshape, no copy). Upstream `linalg::pack` and `packTranspose` do
/// the rewrite; the packs are lowered at once to reshapes and a transpose.
/// A transposed B (a Linear's weight, N x K) is packed from its stored
/// order by that one transpose ([N/nr, nr, K] -> [N/nr, K, nr], vectorized
/// in 8x8 blocks by amp-cpu-vectorize-transposes): no W^T copy first.
/// The packed contraction's loops are ordered (N/nr, M, K, nr), so that a
/// register tile's vector.contract has a leading unit dimension, which
/// vector canonicalization drops. Returns the packed contraction.
static bool vectorizePanelPack(RewriterBase &rewriter,
                               linalg::TransposeOp transpose, bool parallel);

FailureOr<linalg::LinalgOp> packRhsPanels(RewriterBase &rewriter,
                                          linalg::MatmulOp op, int64_t nr,
                                          bool parallel) {
  rewriter.setInsertionPoint(op);
  std::optional<std::pair<bool, bool>> transposes = matmulTransposes(op);
  if (!transposes)
    return failure();
  op = extendOperandsToAccumulatorType(rewriter, op);
  OpFoldResult zero = rewriter.getIndexAttr(0);
  FailureOr<linalg::PackResult> packed =
      linalg::pack(rewriter, op, {zero, rewriter.getIndexAttr(nr), zero});
  if (failed(packed))
    return failure();
  linalg::LinalgOp packedOp = packed->packedLinalgOp;
  if (!transposes->second) {
    Value rhs = packedOp.getDpsInputOperand(1)->get();
    auto rhsPack = rhs.getDefiningOp<linalg::PackOp>();
    if (!rhsPack)
      return failure();
    // (K/1) x (N/nr) x nr -> (N/nr) x K x nr. (A transposed B, N x K, is
    // packed to (N/nr) x K x nr already.)
    FailureOr<linalg::PackTransposeResult> transposed = linalg::packTranspose(
        rewriter, rhsPack, packedOp, /*maybeUnPackOp=*/nullptr,
        /*outerPerm=*/{1, 0}, /*innerPerm=*/{});
    if (failed(transposed))
      return failure();
    packedOp = transposed->transposedLinalgOp;
  }
  auto generic = dyn_cast<linalg::GenericOp>(packedOp.getOperation());
  if (!generic)
    return failure();
  // Loops (m, n/nr, k, nr) -> (n/nr, m, k, nr).
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, {1, 0, 2, 3});
  if (failed(interchanged))
    return failure();
  if (failed(lowerPacksAround(rewriter, *interchanged)))
    return failure();
  if (auto rhsTranspose = interchanged->getDpsInputOperand(1)
                              ->get()
                              .getDefiningOp<linalg::TransposeOp>())
    (void)vectorizePanelPack(rewriter, rhsTranspose, parallel);
  return cast<linalg::LinalgOp>(interchanged->getOperation());
}

/// True when `op` is a static 2-D matmul on tensors (operands possibly
/// transposed, see matmulTransposes) whose B operand is big enough to be
/// packed (see packRhsPanels) and has N divisible by `nr`.
bool shouldPackRhs(linalg::MatmulOp op, int64_t nr) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op->getNumResults() != 1)
    return false;
  std::optional<std::pair<bool, bool>> transposes = matmulTransposes(op);
  if (!transposes)
    return false;
  auto rhs = cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
  int64_t k = rhs.getDimSize(0), n = rhs.getDimSize(1);
  if (transposes->second)
    std::swap(k, n);
  // The size of the panels: an f16/bf16 B of an f32-accumulating matmul is
  // packed as f32 (see extendOperandsToAccumulatorType), so that an f32
  // model and its autocast version pack the same matmuls.
  int64_t bits = rhs.getElementTypeBitWidth();
  auto accType = cast<ShapedType>(op.getDpsInitOperand(0)->get().getType());
  if (isa<FloatType>(rhs.getElementType()) &&
      isa<FloatType>(accType.getElementType()))
    bits = std::max<int64_t>(bits, accType.getElementTypeBitWidth());
  int64_t bytes = k * n * bits / 8;
  return nr > 1 && n % nr == 0 && n > nr && bytes >= kMinPackedRhsBytes;
}

/// Gives the contraction `op` (one m and one k loop) its A operand in
/// (..., m, k) order when it reads it transposed (the weight gradient
/// dY^T @ X after amp-fold-transpose-into-contraction): a linalg.transpose
/// of A (vectorized in blocks by amp-cpu-vectorize-transposes) and the
/// matching map. The register tiles read A^T rows M elements apart: for a
/// 1024-wide M the k rows of a tile fall into one L1 set (4 KiB apart),
/// and the FMA tile ran at half speed (measured on 1024 x 1024 x 256
/// f32); the AVX512-BF16 packing copied A^T to pairs with scalar loops.
/// One transposed copy of A, as before the fold; B keeps its fold.
void untransposeLhs(RewriterBase &rewriter, linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->k.size() != 1)
    return;
  MLIRContext *ctx = op.getContext();
  OpOperand *lhs = op.getDpsInputOperand(0);
  AffineMap map = op.getMatchingIndexingMap(lhs);
  std::optional<unsigned> mPos =
      map.getResultPosition(getAffineDimExpr(dims->m.front(), ctx));
  std::optional<unsigned> kPos =
      map.getResultPosition(getAffineDimExpr(dims->k.front(), ctx));
  auto type = dyn_cast<RankedTensorType>(lhs->get().getType());
  if (!mPos || !kPos || *mPos < *kPos || !type || !type.hasStaticShape())
    return;
  // Result dimension i of the transpose is A's dimension perm[i].
  SmallVector<int64_t> perm =
      llvm::to_vector(llvm::seq<int64_t>(0, map.getNumResults()));
  std::swap(perm[*mPos], perm[*kPos]);
  SmallVector<AffineExpr> results;
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    results.push_back(map.getResult(p));
    shape.push_back(type.getDimSize(p));
  }
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value init =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  Value transposed =
      linalg::TransposeOp::create(rewriter, loc, lhs->get(), init, perm)
          ->getResult(0);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[lhs->getOperandNumber()] =
      AffineMap::get(map.getNumDims(), 0, results, ctx);
  ArrayAttr mapsAttr = rewriter.getAffineMapArrayAttr(maps);
  rewriter.modifyOpInPlace(op, [&] {
    lhs->set(transposed);
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
      matmul.setIndexingMapsAttr(mapsAttr);
    else if (auto batch = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
      batch.setIndexingMapsAttr(mapsAttr);
    else if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
      generic.setIndexingMapsAttr(mapsAttr);
  });
}

/// The (n, k) loops of `op` when it is a bf16 x bf16 -> f32 contraction
/// that the AVX512-BF16 path takes: static shapes on tensors, one m, n and
/// k loop and at most one batch loop (linalg.matmul and its transposed
/// forms, batch_matmul, such generics), every operand indexed by a
/// projected permutation.
std::optional<std::pair<unsigned, unsigned>> matchBf16Dot(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op->getNumResults() != 1 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op) ||
      llvm::is_contained(op.getStaticLoopRanges(), 0))
    return std::nullopt;
  auto elem = [&](Value v) { return getElementTypeOrSelf(v.getType()); };
  if (!elem(op.getDpsInputOperand(0)->get()).isBF16() ||
      !elem(op.getDpsInputOperand(1)->get()).isBF16() ||
      !elem(op.getDpsInitOperand(0)->get()).isF32())
    return std::nullopt;
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return std::nullopt;
  return std::make_pair(dims->n.front(), dims->k.front());
}

/// The panel width n_r for an n extent: the register tile's n (a multiple
/// of 16, the f32 lanes of a zmm register) unless a narrower multiple of
/// 16 pads N much less (N = 80 takes 16, not 64 with 48 columns of
/// zeros).
int64_t dotPanelWidth(int64_t n, int64_t nr) {
  auto padded = [&](int64_t w) { return llvm::divideCeil(n, w) * w; };
  int64_t best = padded(16);
  for (int64_t w = nr; w > 16; w -= 16)
    if (padded(w) * 8 <= best * 9)
      return w;
  return 16;
}

/// The float cast that `value` is, when it is an elementwise one: a
/// linalg.generic of identity maps whose body is one `arith.truncf` (f32 to
/// bf16: autocast's weight cast) or `arith.extf` (bf16/f16 to f32: a
/// mixed-precision B widened for the FMA path, see
/// extendOperandsToAccumulatorType) of its input; null otherwise.
static Operation *floatCastOf(Value value) {
  auto cast = value.getDefiningOp<linalg::GenericOp>();
  if (!cast || cast.getNumDpsInputs() != 1 || cast.getNumDpsInits() != 1 ||
      cast->getNumResults() != 1 || cast.getNumReductionLoops() != 0 ||
      !llvm::all_of(cast.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  Block &body = cast.getRegion().front();
  Operation *op = &body.front();
  if (!isa<arith::TruncFOp, arith::ExtFOp>(op) ||
      op->getOperand(0) != body.getArgument(0) ||
      op != body.getTerminator()->getPrevNode() ||
      body.getTerminator()->getOperand(0) != op->getResult(0) ||
      !isa<FloatType>(op->getOperand(0).getType()))
    return nullptr;
  return op;
}

/// Writes the panel packing `transpose` of a contraction's B as vector code
/// (`parallel`: the panels as an scf.forall when they hold at least
/// kMinPackedRhsBytes). Four forms, each an expand_shape of B transposed:
///   - AVX512-BF16 VNNI panels of a transposed B (N x K, a Linear's W):
///     bf16 [N/n_r, n_r, K/2, 2] -> [N/n_r, K/2, n_r, 2]. Its pairs are
///     4-byte units, which linalg.transpose does not know (it keeps the
///     innermost dimension of 2: amp-cpu-vectorize-transposes left it and
///     its loops moved one bf16 at a time): blocks of 8 rows x 8 pairs,
///     read as 8 rows of 16 bf16, bitcast to 8 x 8 i32, one
///     vector.transpose, written as 8 rows of 8 pairs.
///   - VNNI panels of a plain B (K x N): [K/2, 2, N/n_r, n_r] ->
///     [N/n_r, K/2, n_r, 2]: per pair row, the two k rows of 32 (16)
///     columns interleaved by a 2 x 32 vector.transpose.
///   - f32 panels of a plain B: [K, N/n_r, n_r] -> [N/n_r, K, n_r]: row
///     copies (8 rows of n_r per step). Lowered to loops, they read B
///     column panel by column panel, each row N elements apart.
///   - f32 panels of a transposed B: [N/n_r, n_r, K] -> [N/n_r, K, n_r]:
///     8 x 8 blocks and a vector.transpose (what amp-cpu-vectorize-transposes
///     did, now inside the panels' parallel loop).
/// When B is an elementwise float cast of another tensor (autocast's f32 ->
/// bf16 weight cast before a VNNI pack; a bf16 B widened to f32 before an
/// f32 pack on the FMA path), the pack reads that tensor and casts each
/// vector (the same `arith.truncf` / `arith.extf`): no full-size copy of B
/// in B's type is made for the pack, and the cast disappears once every
/// reader is a pack. Returns false (nothing changed) for other shapes.
static bool vectorizePanelPack(RewriterBase &rewriter,
                               linalg::TransposeOp transpose, bool parallel) {
  auto inType = cast<RankedTensorType>(transpose.getInput().getType());
  auto outType = cast<RankedTensorType>(transpose.getInit().getType());
  ArrayRef<int64_t> perm = transpose.getPermutation();
  if (!transpose.hasPureTensorSemantics() || !inType.hasStaticShape())
    return false;
  enum class Form { VnniT, VnniN, F32N, F32T } form;
  Type elem = inType.getElementType();
  if (elem.isBF16() && perm == ArrayRef<int64_t>{0, 2, 1, 3} &&
      outType.getDimSize(3) == 2)
    form = Form::VnniT;
  else if (elem.isBF16() && perm == ArrayRef<int64_t>{2, 0, 3, 1} &&
           outType.getDimSize(3) == 2)
    form = Form::VnniN;
  else if (elem.isF32() && perm == ArrayRef<int64_t>{1, 0, 2})
    form = Form::F32N;
  else if (elem.isF32() && perm == ArrayRef<int64_t>{0, 2, 1})
    form = Form::F32T;
  else
    return false;
  int64_t panels = outType.getDimSize(0), rows = outType.getDimSize(1),
          cols = outType.getDimSize(2);
  // Block sizes (rows: k or k pairs; cols: n within the panel).
  int64_t blockK = 1, blockN = cols;
  switch (form) {
  case Form::VnniT:
  case Form::F32T:
    blockK = amp::largestDivisorAtMost(rows, 8);
    blockN = amp::largestDivisorAtMost(cols, 8);
    break;
  case Form::VnniN:
    blockN = cols % 32 == 0 ? 32 : amp::largestDivisorAtMost(cols, 16);
    break;
  case Form::F32N:
    blockK = amp::largestDivisorAtMost(rows, 8);
    break;
  }
  if (blockN < 4)
    return false;

  Location loc = transpose.getLoc();
  rewriter.setInsertionPoint(transpose);
  // B a cast of another tensor: read that tensor through an expand_shape of
  // its own (lowerPack pads B even where nothing is padded).
  Value source = transpose.getInput();
  Operation *castOp = nullptr;
  Type readElem = elem;
  if (auto expand = source.getDefiningOp<tensor::ExpandShapeOp>()) {
    Value cast = expand.getSrc();
    if (auto padOp = cast.getDefiningOp<tensor::PadOp>();
        padOp && padOp.hasZeroLowPad() && padOp.hasZeroHighPad())
      cast = padOp.getSource();
    if ((castOp = floatCastOf(cast))) {
      Value from = cast.getDefiningOp<linalg::GenericOp>()
                       .getDpsInputOperand(0)
                       ->get();
      readElem = castOp->getOperand(0).getType();
      source = tensor::ExpandShapeOp::create(
          rewriter, loc, inType.clone(readElem), from,
          expand.getReassociationIndices());
    }
  }
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value zero = index(0), numRows = index(rows), numCols = index(cols),
        stepK = index(blockK), stepN = index(blockN);
  Value pad = arith::ConstantOp::create(rewriter, loc, readElem,
                                        rewriter.getZeroAttr(readElem));
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  Type bf16 = rewriter.getBF16Type(), i32 = rewriter.getI32Type();
  // B's cast applied to a vector read of its source.
  auto round = [&](OpBuilder &b, Location l, Value v) -> Value {
    if (!castOp)
      return v;
    auto type = cast<VectorType>(v.getType()).clone(elem);
    Operation *c =
        isa<arith::TruncFOp>(castOp)
            ? arith::TruncFOp::create(b, l, type, v).getOperation()
            : arith::ExtFOp::create(b, l, type, v).getOperation();
    c->setAttrs(castOp->getAttrs());
    return c->getResult(0);
  };
  auto read = [&](OpBuilder &b, Location l, ArrayRef<int64_t> shape,
                  ValueRange indices, AffineMap map) -> Value {
    return vector::TransferReadOp::create(
        b, l, VectorType::get(shape, readElem), source, indices, pad, map,
        SmallVector<bool>(shape.size(), true));
  };
  auto write = [&](OpBuilder &b, Location l, Value v, Value out,
                   ValueRange indices) -> Value {
    int64_t rank = cast<VectorType>(v.getType()).getRank();
    int64_t outRank = cast<RankedTensorType>(out.getType()).getRank();
    return vector::TransferWriteOp::create(
               b, l, v, out, indices,
               AffineMap::getMinorIdentityMap(outRank, rank, ctx),
               SmallVector<bool>(rank, true))
        .getResult();
  };
  // One block: panel `p` of the source, written at panel `q` of `out` (the
  // panel's own slice in the scf.forall, `out` itself otherwise).
  auto block = [&](OpBuilder &b, Location l, Value p, Value q, Value k,
                   Value n, Value out) -> Value {
    switch (form) {
    case Form::VnniT: {
      Value v = read(b, l, {blockN, blockK, 2}, {p, n, k, zero},
                     AffineMap::get(4, 0, {d1, d2, d3}, ctx));
      v = vector::ShapeCastOp::create(
          b, l, VectorType::get({blockN, 2 * blockK}, readElem), v);
      v = round(b, l, v);
      v = vector::BitCastOp::create(b, l,
                                    VectorType::get({blockN, blockK}, i32), v);
      v = vector::TransposeOp::create(b, l, v, ArrayRef<int64_t>{1, 0});
      v = vector::BitCastOp::create(
          b, l, VectorType::get({blockK, 2 * blockN}, bf16), v);
      v = vector::ShapeCastOp::create(
          b, l, VectorType::get({blockK, blockN, 2}, bf16), v);
      return write(b, l, v, out, {q, k, n, zero});
    }
    case Form::VnniN: {
      Value v = read(b, l, {2, blockN}, {k, zero, p, n},
                     AffineMap::get(4, 0, {d1, d3}, ctx));
      v = round(b, l, v);
      v = vector::TransposeOp::create(b, l, v, ArrayRef<int64_t>{1, 0});
      return write(b, l, v, out, {q, k, n, zero});
    }
    case Form::F32N: {
      Value v = read(b, l, {blockK, blockN}, {k, p, n},
                     AffineMap::get(3, 0, {d0, d2}, ctx));
      return write(b, l, round(b, l, v), out, {q, k, n});
    }
    case Form::F32T: {
      Value v = read(b, l, {blockN, blockK}, {p, n, k},
                     AffineMap::get(3, 0, {d1, d2}, ctx));
      v = round(b, l, v);
      v = vector::TransposeOp::create(b, l, v, ArrayRef<int64_t>{1, 0});
      return write(b, l, v, out, {q, k, n});
    }
    }
    llvm_unreachable("form");
  };
  // The k and n loops of one panel.
  auto panel = [&](OpBuilder &b, Location l, Value p, Value q,
                   Value out) -> Value {
    auto kLoop = scf::ForOp::create(
        b, l, zero, numRows, stepK, ValueRange{out},
        [&](OpBuilder &b, Location l, Value k, ValueRange args) {
          auto nLoop = scf::ForOp::create(
              b, l, zero, numCols, stepN, args,
              [&](OpBuilder &b, Location l, Value n, ValueRange args) {
                scf::YieldOp::create(b, l,
                                     block(b, l, p, q, k, n, args.front()));
              });
          scf::YieldOp::create(b, l, nLoop.getResults());
        });
    return kLoop.getResult(0);
  };
  Value init = transpose.getInit();
  int64_t bytes = outType.getNumElements() * outType.getElementTypeBitWidth() / 8;
  if (parallel && panels > 1 && bytes >= kMinPackedRhsBytes) {
    auto forall = scf::ForallOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(panels)},
        ValueRange{init}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    Value p = forall.getInductionVars().front();
    SmallVector<OpFoldResult> offsets(outType.getRank(),
                                      rewriter.getIndexAttr(0));
    offsets[0] = p;
    SmallVector<OpFoldResult> sizes, strides(outType.getRank(),
                                             rewriter.getIndexAttr(1));
    for (int64_t d : outType.getShape())
      sizes.push_back(rewriter.getIndexAttr(d));
    sizes[0] = rewriter.getIndexAttr(1);
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, loc, forall.getRegionIterArgs().front(), offsets, sizes,
        strides);
    Value packed = panel(rewriter, loc, p, zero, slice);
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, packed,
                                          forall.getRegionIterArgs().front(),
                                          offsets, sizes, strides);
    rewriter.replaceOp(transpose, forall.getResults());
    return true;
  }
  auto loops = scf::ForOp::create(
      rewriter, loc, zero, index(panels), index(1), ValueRange{init},
      [&](OpBuilder &b, Location l, Value p, ValueRange args) {
        scf::YieldOp::create(b, l, panel(b, l, p, p, args.front()));
      });
  rewriter.replaceOp(transpose, loops.getResults());
  return true;
}

/// Packs the bf16 x bf16 -> f32 contraction `op` (loops `nDim`, `kDim`) for
/// AVX512-BF16 `vdpbf16ps`, which multiplies pairs of consecutive k: B
/// becomes [batch] x N/n_r x K/2 x n_r x 2 (VNNI: the two k of a pair next
/// to each other, each K/2 x n_r x 2 panel contiguous), A keeps its layout
/// with K split into K/2 x 2 (a reshape; a transposed A is transposed by
/// the pack, its pairs must be contiguous too), C is viewed as
/// [batch] x M x N/n_r x n_r. An odd K and an N that n_r does not divide
/// are padded with zeros (upstream `linalg::pack` with a zero padding
/// value; the padded part of C is dropped by the unpack). The packed
/// contraction's loops are ordered (batch, N/n_r, M, n_r, K/2, 2): the
/// order of the vector.contract that upstream's
/// populateVectorContractToPackedTypeDotProductPatterns takes once the
/// register tile is unrolled to 1 x 16 x 1 x 2.
FailureOr<linalg::LinalgOp> packForBf16Dot(RewriterBase &rewriter,
                                           linalg::LinalgOp op, unsigned nDim,
                                           unsigned kDim, int64_t nr,
                                           bool parallel) {
  rewriter.setInsertionPoint(op);
  unsigned numLoops = op.getNumLoops();
  SmallVector<OpFoldResult> sizes(numLoops, rewriter.getIndexAttr(0));
  sizes[nDim] = rewriter.getIndexAttr(nr);
  sizes[kDim] = rewriter.getIndexAttr(2);
  // Everything needed of `op`, which linalg::pack replaces.
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return failure();
  MLIRContext *ctx = rewriter.getContext();
  AffineMap rhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap lhsMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  int64_t rank = rhsMap.getNumResults();
  int64_t nPos = *rhsMap.getResultPosition(getAffineDimExpr(nDim, ctx));
  int64_t kPos = *rhsMap.getResultPosition(getAffineDimExpr(kDim, ctx));
  int64_t mPos =
      *lhsMap.getResultPosition(getAffineDimExpr(dims->m.front(), ctx));
  int64_t kPosA = *lhsMap.getResultPosition(getAffineDimExpr(kDim, ctx));
  FailureOr<linalg::PackResult> packed = linalg::pack(rewriter, op, sizes);
  if (failed(packed))
    return failure();
  linalg::LinalgOp packedOp = packed->packedLinalgOp;
  // B's pack: outer dims (batch, n, k) in that order, inner tiles (n_r, 2).
  auto rhsPack =
      packedOp.getDpsInputOperand(1)->get().getDefiningOp<linalg::PackOp>();
  if (!rhsPack)
    return failure();
  SmallVector<int64_t> outerPerm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != nPos && i != kPos)
      outerPerm.push_back(i);
  outerPerm.push_back(nPos);
  outerPerm.push_back(kPos);
  SmallVector<int64_t> innerPerm = {0, 1};
  if (rhsPack.getStaticInnerTiles().front() == 2 && nr != 2)
    innerPerm = {1, 0};
  FailureOr<linalg::PackTransposeResult> transposed =
      linalg::packTranspose(rewriter, rhsPack, packedOp,
                            /*maybeUnPackOp=*/nullptr, outerPerm, innerPerm);
  if (failed(transposed))
    return failure();
  packedOp = transposed->transposedLinalgOp;
  // A's pack: outer dims (batch, m, k), so that a transposed A (K x M) is
  // read as the M x K/2 x 2 that upstream's VNNI patterns recognise.
  if (mPos > kPosA) {
    auto lhsPack =
        packedOp.getDpsInputOperand(0)->get().getDefiningOp<linalg::PackOp>();
    if (!lhsPack)
      return failure();
    SmallVector<int64_t> lhsPerm;
    for (int64_t i = 0, e = lhsMap.getNumResults(); i < e; ++i)
      if (i != mPos && i != kPosA)
        lhsPerm.push_back(i);
    lhsPerm.append({mPos, kPosA});
    FailureOr<linalg::PackTransposeResult> lhsTransposed =
        linalg::packTranspose(rewriter, lhsPack, packedOp,
                              /*maybeUnPackOp=*/nullptr, lhsPerm,
                              /*innerPerm=*/{});
    if (failed(lhsTransposed))
      return failure();
    packedOp = lhsTransposed->transposedLinalgOp;
  }
  auto generic = dyn_cast<linalg::GenericOp>(packedOp.getOperation());
  if (!generic)
    return failure();
  // Loops: the original ones, then the inner n_r and 2 in the order of
  // their original loops. Reorder to (batch, N/n_r, M, n_r, K/2, 2).
  unsigned nInner = numLoops + (nDim < kDim ? 0 : 1);
  unsigned kInner = numLoops + (nDim < kDim ? 1 : 0);
  SmallVector<unsigned> order;
  for (unsigned b : dims->batch)
    order.push_back(b);
  order.append({nDim, dims->m.front(), nInner, kDim, kInner});
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(interchanged))
    return failure();
  if (failed(lowerPacksAround(rewriter, *interchanged)))
    return failure();
  if (auto rhsTranspose = interchanged->getDpsInputOperand(1)
                              ->get()
                              .getDefiningOp<linalg::TransposeOp>())
    (void)vectorizePanelPack(rewriter, rhsTranspose, parallel);
  (*interchanged)->setAttr(kDotContractionMarker, rewriter.getUnitAttr());
  return cast<linalg::LinalgOp>(interchanged->getOperation());
}

/// The shape that the AVX512-BF16 register tile's vector ops are unrolled
/// to: the vector.contract to 1 x 16 x 1 x 2 (one vdpbf16ps), B's reads to
/// 1 x 16 x 2 (one zmm register of 16 VNNI pairs), A's to 1 x 1 x 2 (the
/// pair that is broadcast), the accumulator's to 1 x 16.
std::optional<SmallVector<int64_t>> dotUnrollShape(Operation *op) {
  if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
    SmallVector<int64_t> shape(contract.getIteratorTypes().size(), 1);
    // Loops (m, n, k/2, 2) as packForBf16Dot ordered them.
    if (shape.size() != 4)
      return std::nullopt;
    shape[1] = 16;
    shape[3] = 2;
    return shape;
  }
  VectorType type;
  if (auto read = dyn_cast<vector::TransferReadOp>(op))
    type = read.getVectorType();
  else if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    type = write.getVectorType();
  if (!type || type.getRank() < 2)
    return std::nullopt;
  SmallVector<int64_t> shape(type.getRank(), 1);
  if (type.getElementType().isBF16()) {
    shape.back() = 2;
    shape[shape.size() - 2] =
        std::min<int64_t>(16, type.getShape().drop_back().back());
  } else {
    shape.back() = 16;
  }
  return shape;
}

/// True for the vector ops of an AVX512-BF16 register tile: its
/// vector.contract (bf16 operands, f32 accumulator, 4 loops, a last
/// reduction of 2) and the transfers that feed it and store its result.
bool isDotTileVectorOp(Operation *op) {
  auto isDotContract = [](Operation *user) {
    auto contract = dyn_cast_or_null<vector::ContractionOp>(user);
    return contract && contract.getLhsType().getElementType().isBF16() &&
           getElementTypeOrSelf(contract.getAccType()).isF32() &&
           contract.getIteratorTypes().size() == 4 &&
           contract.getRhsType().getShape().back() == 2;
  };
  if (isDotContract(op))
    return true;
  if (auto read = dyn_cast<vector::TransferReadOp>(op))
    return llvm::any_of(read->getUsers(), isDotContract);
  if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    return isDotContract(write.getVector().getDefiningOp());
  return false;
}

/// The readers of `value`: the inputs of linalg.generic ops, directly or
/// through tensor reshapes (the collapse that is a packed C's unpack, the
/// expand of a batch folded into a matmul's rows), which go to `reshapes`
/// (producers first). False when some other op uses it.
static bool collectReaders(Value value, SmallVectorImpl<Operation *> &reshapes,
                           SmallVectorImpl<OpOperand *> &readers) {
  if (value.use_empty())
    return false;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user)) {
      reshapes.push_back(user);
      if (!collectReaders(user->getResult(0), reshapes, readers))
        return false;
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || !generic.isDpsInput(&use))
      return false;
    readers.push_back(&use);
  }
  return true;
}

/// The narrow float type that every reader of `value` rounds it to first:
/// each reader (see collectReaders) uses the operand only in `arith.truncf`
/// to that type (autocast's consumers of an f32-accumulated contraction:
/// `truncf %acc : f32 to bf16` then bf16 math, PyTorch's bf16 matmul
/// output). Null when a reader needs the f32 value.
static Type narrowTypeAllReadersRoundTo(Value value) {
  SmallVector<Operation *> reshapes;
  SmallVector<OpOperand *> readers;
  if (!collectReaders(value, reshapes, readers))
    return {};
  Type narrow;
  for (OpOperand *use : readers) {
    auto generic = cast<linalg::GenericOp>(use->getOwner());
    BlockArgument arg = generic.getMatchingBlockArgument(use);
    for (Operation *user : arg.getUsers()) {
      auto trunc = dyn_cast<arith::TruncFOp>(user);
      if (!trunc || trunc.getRoundingmodeAttr() ||
          (narrow && narrow != trunc.getType()))
        return {};
      narrow = trunc.getType();
    }
  }
  return narrow;
}

/// The contraction tiled by `forall` (its one shared output a zero-filled
/// f32 accumulator: `linalg.fill`, or a reshape of one) has readers that
/// all round its result to `narrow` (see narrowTypeAllReadersRoundTo). Each
/// tile then accumulates in a tile-sized f32 tensor of its own (filled with
/// the fill's value) and is rounded to `narrow` as it is inserted into the
/// shared output, which becomes a `narrow` tensor; the readers take the
/// rounded value and their `truncf` folds away. The numbers are the same
/// (each element is still rounded once, after the whole k sum), but the
/// full-size f32 accumulator is gone: for a bf16 matmul, C takes half the
/// bytes and one pass less. Returns false (nothing changed) when the
/// forall does not have that form.
static bool roundAccumulatorPerTile(RewriterBase &rewriter,
                                    scf::ForallOp forall, Type narrow) {
  SmallVector<Operation *> reshapes;
  SmallVector<OpOperand *> readers;
  if (forall.getNumResults() != 1 ||
      !collectReaders(forall.getResult(0), reshapes, readers))
    return false;
  Value init = forall.getOutputs()[0];
  auto initType = dyn_cast<RankedTensorType>(init.getType());
  if (!initType || !initType.hasStaticShape() ||
      !initType.getElementType().isF32())
    return false;
  // The fill, through the reshapes, the (identity) transpose and the
  // zero-width pad of C's lowered pack: every element holds its value.
  Value filled = init;
  linalg::FillOp fill;
  while (!(fill = filled.getDefiningOp<linalg::FillOp>())) {
    Operation *def = filled.getDefiningOp();
    if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
      filled = expand.getSrc();
    else if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def))
      filled = collapse.getSrc();
    else if (auto transpose = dyn_cast_or_null<linalg::TransposeOp>(def))
      filled = transpose.getInput();
    else if (auto pad = dyn_cast_or_null<tensor::PadOp>(def);
             pad && pad.hasZeroLowPad() && pad.hasZeroHighPad())
      filled = pad.getSource();
    else
      return false;
  }
  Value fillValue = fill.getInputs()[0];
  BlockArgument shared = forall.getRegionIterArgs()[0];
  tensor::ExtractSliceOp slice;
  tensor::ParallelInsertSliceOp insert;
  for (Operation *user : shared.getUsers()) {
    if (auto s = dyn_cast<tensor::ExtractSliceOp>(user); s && !slice)
      slice = s;
    else if (auto i = dyn_cast<tensor::ParallelInsertSliceOp>(user);
             i && !insert && i.getDest() == shared)
      insert = i;
    else
      return false;
  }
  if (!slice || !insert || !slice.getType().hasStaticShape() ||
      slice.getType().getRank() != initType.getRank() ||
      cast<RankedTensorType>(insert.getSource().getType()) != slice.getType())
    return false;
  Location loc = forall.getLoc();
  RankedTensorType tileType = slice.getType();
  auto narrowTile = tileType.clone(narrow);
  // The tile's own accumulator.
  rewriter.setInsertionPoint(slice);
  Value tileInit =
      linalg::FillOp::create(
          rewriter, loc, fillValue,
          ValueRange{tensor::EmptyOp::create(rewriter, loc, tileType.getShape(),
                                             tileType.getElementType())})
          .getResult(0);
  rewriter.replaceOp(slice, tileInit);
  // The shared output, the forall's result and its readers become narrow.
  rewriter.setInsertionPoint(forall);
  Value narrowInit =
      tensor::EmptyOp::create(rewriter, loc, initType.getShape(), narrow);
  auto narrowType = initType.clone(narrow);
  rewriter.modifyOpInPlace(forall, [&] {
    forall.getOutputsMutable()[0].assign(narrowInit);
    shared.setType(narrowType);
    forall.getResult(0).setType(narrowType);
  });
  // Rounded as it is inserted, into the tile's place of the shared output
  // (its slice is the rounding's destination: bufferized in place, where a
  // tile-sized temporary was a strided copy per tile).
  rewriter.setInsertionPoint(forall.getTerminator());
  Value place = tensor::ExtractSliceOp::create(
      rewriter, loc, narrowTile, shared, insert.getMixedOffsets(),
      insert.getMixedSizes(), insert.getMixedStrides());
  AffineMap id = rewriter.getMultiDimIdentityMap(tileType.getRank());
  SmallVector<utils::IteratorType> parallelIters(tileType.getRank(),
                                                 utils::IteratorType::parallel);
  Value rounded =
      linalg::GenericOp::create(
          rewriter, loc, narrowTile, ValueRange{insert.getSource()},
          ValueRange{place}, ArrayRef<AffineMap>{id, id}, parallelIters,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value t = arith::TruncFOp::create(b, l, narrow, args[0]);
            linalg::YieldOp::create(b, l, t);
          })
          .getResult(0);
  rewriter.modifyOpInPlace(insert,
                           [&] { insert.getSourceMutable().assign(rounded); });
  for (Operation *reshape : reshapes)
    rewriter.modifyOpInPlace(reshape, [&] {
      Value result = reshape->getResult(0);
      result.setType(cast<RankedTensorType>(result.getType()).clone(narrow));
    });
  for (OpOperand *use : readers) {
    auto generic = cast<linalg::GenericOp>(use->getOwner());
    BlockArgument arg = generic.getMatchingBlockArgument(use);
    rewriter.modifyOpInPlace(generic, [&] { arg.setType(narrow); });
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers()))
      rewriter.replaceOp(user, arg);
  }
  return true;
}

/// Tiles `op` with `sizes` (0: not tiled) into loops of `loopType`; returns
/// the tiled op, and the loops (outermost first) in `loops` when given.
FailureOr<TilingInterface>
tile(RewriterBase &rewriter, TilingInterface op, ArrayRef<int64_t> sizes,
     scf::SCFTilingOptions::LoopType loopType =
         scf::SCFTilingOptions::LoopType::ForOp,
     SmallVectorImpl<LoopLikeOpInterface> *loops = nullptr) {
  SmallVector<OpFoldResult> ofr =
      llvm::map_to_vector(sizes, [&](int64_t s) -> OpFoldResult {
        return rewriter.getIndexAttr(s);
      });
  scf::SCFTilingOptions options;
  options.setTileSizes(ofr).setLoopType(loopType);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, op, options);
  if (failed(result) || result->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, result->replacements);
  if (loops)
    loops->assign(result->loops.begin(), result->loops.end());
  return cast<TilingInterface>(result->tiledOps.front());
}

struct AmpCpuTileAndVectorizePass
    : public amp::impl::AmpCpuTileAndVectorizeBase<AmpCpuTileAndVectorizePass> {
  using Base::Base;

  /// The canonicalization patterns of every loaded dialect and registered
  /// op, as the canonicalize pass collects them; built once per pass
  /// instance, used to fold peeled loop bounds into tile shapes.
  FrozenRewritePatternSet canonicalization;

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet patterns(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    canonicalization = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  LogicalResult readTile(const ListOption<int64_t> &option, const int64_t (&defaults)[3],
                         SmallVectorImpl<int64_t> &out, StringRef name) {
    if (option.empty()) {
      out.assign(std::begin(defaults), std::end(defaults));
      return success();
    }
    if (option.size() != 3 || llvm::any_of(option, [](int64_t v) { return v < 1; }))
      return emitError(getOperation().getLoc())
             << "amp-cpu-tile-and-vectorize: '" << name
             << "' takes three positive sizes (m, n, k)";
    out.assign(option.begin(), option.end());
    return success();
  }

  /// Tiles the contraction `op` for the caches (an scf.forall over its
  /// parallel dimensions when `parallel` and it is large enough) and for the
  /// registers, peels partial register tiles, and marks the register tiles
  /// for vectorization. `kPairs` (non-zero for an AMX tile) is the register
  /// tile's size along the outer k dimension, K/2 of a VNNI-packed
  /// contraction (its inner one, the pair, has `reg[2]`).
  void tileContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                       ArrayRef<int64_t> cache, ArrayRef<int64_t> reg,
                       Attribute marker, int64_t kPairs = 0) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims))
      return;
    SmallVector<int64_t> outer = groupTileSizes(op, *dims, cache);
    // Register tiles have the requested sizes (at most the cache tile's);
    // where they do not divide the cache tile, the loop is peeled below, so
    // every tile still has a static shape. In a packed contraction the
    // inner (panel) dimension of a group has the register size already.
    SmallVector<int64_t> inner(outer.size(), 1);
    auto setInnermost = [&](ArrayRef<unsigned> group, int64_t target) {
      if (!group.empty())
        inner[group.back()] = std::min(outer[group.back()], target);
    };
    setInnermost(dims->m, reg[0]);
    setInnermost(dims->n, reg[1]);
    setInnermost(dims->k, reg[2]);
    if (kPairs && dims->k.size() == 2)
      inner[dims->k.front()] = std::min(outer[dims->k.front()], kPairs);
    // `op` is replaced by the first tiling: keep what is needed of it.
    Location loc = op.getLoc();
    FailureOr<TilingInterface> tiled =
        cast<TilingInterface>(op.getOperation());
    double flops = 2;
    for (int64_t r : op.getStaticLoopRanges())
      flops *= static_cast<double>(r);
    if (parallel && flops >= static_cast<double>(kMinParallelFlops)) {
      // The cache tiles of the parallel dimensions become an scf.forall
      // (one task per tile); the k dimensions, a reduction, stay a
      // sequential loop inside each task.
      SmallVector<int64_t> parallelPart = outer, reductionPart(outer.size(), 0);
      for (unsigned d : dims->k) {
        parallelPart[d] = 0;
        reductionPart[d] = outer[d];
      }
      // Readers that round the result (autocast's bf16 consumers of an f32
      // accumulator) get it rounded per cache tile instead (before tiling,
      // while `op`'s result still has them as users).
      Type narrow = roundAccumulatorTiles
                        ? narrowTypeAllReadersRoundTo(op->getResult(0))
                        : Type();
      SmallVector<LoopLikeOpInterface> forallLoops;
      tiled = tile(rewriter, *tiled, parallelPart,
                   scf::SCFTilingOptions::LoopType::ForallOp, &forallLoops);
      if (succeeded(tiled) && narrow && forallLoops.size() == 1)
        if (auto forall =
                dyn_cast<scf::ForallOp>(forallLoops.front().getOperation()))
          (void)roundAccumulatorPerTile(rewriter, forall, narrow);
      if (succeeded(tiled))
        tiled = tile(rewriter, *tiled, reductionPart);
    } else {
      tiled = tile(rewriter, *tiled, outer);
    }
    SmallVector<LoopLikeOpInterface> registerLoops;
    if (succeeded(tiled))
      tiled = tile(rewriter, *tiled, inner,
                   scf::SCFTilingOptions::LoopType::ForOp, &registerLoops);
    if (failed(tiled)) {
      emitWarning(loc, "amp-cpu-tile-and-vectorize: could not tile this "
                       "contraction; it is lowered to scalar loops");
      return;
    }
    tiled->getOperation()->setAttr(kRegisterTileMarker, marker);
    // Peel the partial last iteration of each register loop, innermost
    // first, so that the peeled copies of outer loops contain the already
    // peeled inner ones: every tile then has a static shape.
    for (LoopLikeOpInterface loop : llvm::reverse(registerLoops)) {
      scf::ForOp partial;
      if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
        (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
    }
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<int64_t> cache, reg;
    if (failed(readTile(cacheTile, kDefaultCacheTile, cache, "cache-tile")) ||
        failed(readTile(registerTile, kDefaultRegisterTile, reg, "register-tile")))
      return signalPassFailure();

    // 1. Convolutions to im2col + contraction. Not the depthwise NHWC one:
    // upstream's rewrite of linalg.depthwise_conv_2d_nhwc_hwc (in
    // populateConvertConv2DToImg2ColPatterns) indexes the filter with the
    // combined batch*channel index, which reads out of bounds for a batch
    // above 1 (MLIR 22.1); depthwise convolutions stay loops.
    IRRewriter rewriter(ctx);
    SmallVector<Operation *> convs;
    func.walk([&](Operation *op) {
      if (isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcFhwcOp,
              linalg::Conv2DNchwFchwOp>(op) &&
          !op->hasAttr(amp::kOnednnMarker))
        convs.push_back(op);
    });
    for (Operation *conv : convs) {
      rewriter.setInsertionPoint(conv);
      // A convolution the rewrite does not take (dynamic shapes, ...) stays
      // as it is and becomes loops.
      (void)TypeSwitch<Operation *, LogicalResult>(conv)
          .Case<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcFhwcOp,
                linalg::Conv2DNchwFchwOp>([&](auto op) {
            return linalg::rewriteInIm2Col(rewriter, op);
          });
    }

    // 2a. On a CPU with AVX512-BF16, bf16 x bf16 -> f32 contractions get
    // B packed in VNNI layout for vdpbf16ps (x86vector.avx512.dot).
    FailureOr<amp::CpuTarget> target = amp::getCpuTarget(
        cpuFeatures, getOperation(), "amp-cpu-tile-and-vectorize");
    if (failed(target))
      return signalPassFailure();
    SmallVector<int64_t> dotCache, dotReg;
    if (failed(readTile(dotCacheTile, kDotCacheTile, dotCache,
                        "dot-cache-tile")) ||
        failed(readTile(dotRegisterTile, kDotRegisterTile, dotReg,
                        "dot-register-tile")))
      return signalPassFailure();
    if (dotReg[1] % 16 != 0 || dotReg[2] != 2) {
      emitError(func.getLoc())
          << "amp-cpu-tile-and-vectorize: 'dot-register-tile' takes an n "
             "that is a multiple of 16 and a k of 2";
      return signalPassFailure();
    }
    if (target->avx512bf16) {
      SmallVector<std::pair<linalg::LinalgOp, std::pair<unsigned, unsigned>>>
          dots;
      func.walk([&](linalg::LinalgOp op) {
        if (op->hasAttr(amp::kOnednnMarker))
          return;
        if (auto nk = matchBf16Dot(op))
          dots.push_back({op, *nk});
      });
      for (auto [op, nk] : dots) {
        untransposeLhs(rewriter, op);
        int64_t n = op.getStaticLoopRanges()[nk.first];
        (void)packForBf16Dot(
            rewriter, op, nk.first, nk.second,
            dotPanelWidth(n, target->amx ? kAmxTileColumns : dotReg[1]),
            parallel);
      }
    }

    // 2b. Large matmuls get their B operand packed into register-wide panels.
    SmallVector<linalg::MatmulOp> matmuls;
    func.walk([&](linalg::MatmulOp op) {
      if (packRhs && !op->hasAttr(amp::kOnednnMarker) &&
          shouldPackRhs(op, reg[1]))
        matmuls.push_back(op);
    });
    for (linalg::MatmulOp op : matmuls) {
      untransposeLhs(rewriter, op);
      (void)packRhsPanels(rewriter, op, reg[1], parallel);
    }

    // 3. Tile every static contraction twice and vectorize the register tile.
    SmallVector<linalg::LinalgOp> contractions;
    func.walk([&](linalg::LinalgOp op) {
      // Empty iteration spaces have nothing to tile (and tiling a zero-size
      // reduction crashes upstream tiling).
      if (op.hasPureTensorSemantics() && !op.hasDynamicShape() &&
          !op->hasAttr(amp::kOnednnMarker) &&
          op->getNumResults() == 1 && linalg::isaContractionOpInterface(op) &&
          !llvm::is_contained(op.getStaticLoopRanges(), 0))
        contractions.push_back(op);
    });
    for (linalg::LinalgOp op : contractions) {
      if (op->removeAttr(kDotContractionMarker)) {
        // n_r is the panel width the packing chose.
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        SmallVector<int64_t> tileReg = {target->amx ? kAmxTileRows : dotReg[0],
                                        ranges[ranges.size() - 3], 2};
        tileContraction(rewriter, op, dotCache, tileReg,
                        rewriter.getStringAttr(kDotTile),
                        target->amx ? kAmxTilePairs : 0);
      } else {
        tileContraction(rewriter, op, cache, reg, rewriter.getUnitAttr());
      }
    }

    // 4. Fold the peeled loops' bounds into the tiles' shapes, then
    // vectorize every register tile.
    if (failed(applyPatternsGreedily(func, canonicalization)))
      return signalPassFailure();
    SmallVector<std::pair<linalg::LinalgOp, bool>> registerTiles;
    bool anyDotTile = false;
    func.walk([&](linalg::LinalgOp op) {
      Attribute marker = op->removeAttr(kRegisterTileMarker);
      if (!marker)
        return;
      bool dot = isa<StringAttr>(marker);
      anyDotTile |= dot;
      registerTiles.push_back({op, dot});
    });
    for (auto [tileOp, dot] : registerTiles) {
      rewriter.setInsertionPoint(tileOp);
      // A packed contraction's register tile has unit loops (one panel):
      // drop them, so that it vectorizes to the same 2-D contraction as a
      // plain matmul's tile (rank-reducing slices, no reshapes).
      if (auto generic = dyn_cast<linalg::GenericOp>(tileOp.getOperation());
          generic && llvm::is_contained(generic.getStaticLoopRanges(), 1)) {
        linalg::ControlDropUnitDims control;
        control.rankReductionStrategy = linalg::ControlDropUnitDims::
            RankReductionStrategy::ExtractInsertSlice;
        // An AVX512-BF16 tile keeps its K/2 loop (of 1): upstream's
        // packed-type dot-product patterns recognise the VNNI layout by
        // its two reduction dimensions.
        if (dot)
          control.controlFn = [](Operation *op) {
            SmallVector<unsigned> parallelDims;
            auto g = cast<linalg::GenericOp>(op);
            for (auto [i, type] : llvm::enumerate(g.getIteratorTypesArray()))
              if (type == utils::IteratorType::parallel)
                parallelDims.push_back(i);
            return parallelDims;
          };
        FailureOr<linalg::DropUnitDimsResult> dropped =
            linalg::dropUnitDims(rewriter, generic, control);
        if (succeeded(dropped)) {
          rewriter.replaceOp(generic, dropped->replacements);
          tileOp = cast<linalg::LinalgOp>(dropped->resultOp.getOperation());
          rewriter.setInsertionPoint(tileOp);
        }
      }
      FailureOr<linalg::VectorizationResult> vec = failure();
      if (!tileOp.hasDynamicShape())
        vec = linalg::vectorize(rewriter, tileOp);
      if (failed(vec)) {
        tileOp->emitWarning("amp-cpu-tile-and-vectorize: could not vectorize "
                            "this tile; it is lowered to scalar loops");
        continue;
      }
      rewriter.replaceOp(tileOp, vec->replacements);
    }

    // 5. Clean up: fold the tiles' slices into the transfers, turn permuted
    // and broadcasting transfers into plain ones folded into the
    // vector.contract's indexing maps, canonicalize.
    RewritePatternSet patterns(ctx);
    linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateSinkVectorOpsPatterns(patterns);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    // The accumulator's write of every register tile: step 5 lowered its
    // rank-reducing map (a packed contraction's C tile, M x 1 x n_r of
    // M x N/n_r x n_r) into a broadcast and transpose of the result, while
    // its read kept the map; loop-invariant-subset-hoisting pairs only a
    // read and write of the same subset, and without the pair the
    // accumulators were loaded and stored on every k step (the
    // AVX512-BF16 tile's 24 registers, and the FMA tile's 6 of every
    // packed f32 matmul). Fold them back into the map.
    func.walk([&](vector::TransferWriteOp write) {
      auto transpose = write.getVector().getDefiningOp<vector::TransposeOp>();
      // A minor identity too: a batch_matmul's tile writes 6 x 1 x n_r
      // into its 1 x 6 x 1 x n_r slice of C's view (the batch dimension
      // dropped by the map).
      if (!transpose || !write.getPermutationMap().isMinorIdentity() ||
          write.getMask())
        return;
      auto broadcast =
          transpose.getVector().getDefiningOp<vector::BroadcastOp>();
      if (!broadcast)
        return;
      auto source = dyn_cast<VectorType>(broadcast.getSourceType());
      auto contract = dyn_cast_or_null<vector::ContractionOp>(
          broadcast.getSource().getDefiningOp());
      if (!source || !contract)
        return;
      int64_t lead =
          broadcast.getResultVectorType().getRank() - source.getRank();
      // The broadcast only adds leading unit dimensions.
      if (broadcast.getResultVectorType().getShape().drop_front(lead) !=
              source.getShape() ||
          llvm::any_of(
              broadcast.getResultVectorType().getShape().take_front(lead),
              [](int64_t d) { return d != 1; }))
        return;
      ArrayRef<int64_t> perm = transpose.getPermutation();
      int64_t rank = write.getShapedType().getRank();
      int64_t dropped = rank - static_cast<int64_t>(perm.size());
      SmallVector<AffineExpr> results(source.getRank());
      SmallVector<int64_t> order;
      for (auto [r, p] : llvm::enumerate(perm)) {
        if (p < lead)
          continue;
        order.push_back(p - lead);
        results[p - lead] = rewriter.getAffineDimExpr(dropped + r);
      }
      // Keep it a plain projection (source dims in increasing order).
      if (!llvm::is_sorted(order))
        return;
      AffineMap map = AffineMap::get(rank, 0, results, ctx);
      rewriter.setInsertionPoint(write);
      SmallVector<bool> inBounds(source.getRank(), true);
      rewriter.replaceOpWithNewOp<vector::TransferWriteOp>(
          write, broadcast.getSource(), write.getBase(), write.getIndices(),
          AffineMapAttr::get(map), rewriter.getBoolArrayAttr(inBounds));
    });

    // 6. AVX512-BF16 register tiles: unroll the vector.contract and its
    // transfers to one vdpbf16ps each (upstream vector unrolling), then
    // upstream's packed-type dot-product patterns turn each 1 x 16 x 1 x 2
    // contraction into a broadcast of A's pair and x86vector.avx512.dot.
    if (anyDotTile) {
      // The vectorizer extends the bf16 operands to f32 before the
      // contraction; vdpbf16ps takes them as bf16.
      func.walk([&](vector::ContractionOp contract) {
        if (contract.getIteratorTypes().size() != 4 ||
            !getElementTypeOrSelf(contract.getAccType()).isF32())
          return;
        auto lhs = contract.getLhs().getDefiningOp<arith::ExtFOp>();
        auto rhs = contract.getRhs().getDefiningOp<arith::ExtFOp>();
        if (!lhs || !rhs ||
            !getElementTypeOrSelf(lhs.getIn().getType()).isBF16() ||
            !getElementTypeOrSelf(rhs.getIn().getType()).isBF16() ||
            contract.getRhsType().getShape().back() != 2)
          return;
        rewriter.modifyOpInPlace(contract, [&] {
          contract.getLhsMutable().assign(lhs.getIn());
          contract.getRhsMutable().assign(rhs.getIn());
        });
      });
      // A tile written into a slice of the accumulator that is then
      // inserted back where it was extracted (a batch_matmul's tile:
      // upstream's insert_slice-of-transfer_write folding needs the ranks
      // to match, and the tile's write drops the batch dimension) is
      // written into the accumulator directly, at the slice's offsets: the
      // same values, and the accumulator's reads and writes become pairs
      // of one subset that loop-invariant-subset-hoisting keeps in
      // registers across the k loop (they were stored on every k step).
      SmallVector<vector::TransferWriteOp> sliceWrites;
      func.walk([&](vector::TransferWriteOp write) {
        if (write.getBase().getDefiningOp<tensor::ExtractSliceOp>())
          sliceWrites.push_back(write);
      });
      for (vector::TransferWriteOp write : sliceWrites) {
        auto slice = write.getBase().getDefiningOp<tensor::ExtractSliceOp>();
        if (!slice || write.getMask() || !write.hasPureTensorSemantics() ||
            !isDotTileVectorOp(write) || !write.getResult().hasOneUse() ||
            !slice.hasUnitStride() ||
            slice.getSourceType().getRank() != slice.getType().getRank())
          continue;
        auto insert =
            dyn_cast<tensor::InsertSliceOp>(*write.getResult().user_begin());
        if (!insert || insert.getDest() != slice.getSource() ||
            !mlir::detail::sameOffsetsSizesAndStrides(
                insert, slice, isEqualConstantIntOrValue))
          continue;
        rewriter.setInsertionPoint(insert);
        Location loc = write.getLoc();
        AffineExpr d0, d1;
        bindDims(ctx, d0, d1);
        SmallVector<Value> indices;
        for (auto [offset, index] :
             llvm::zip(slice.getMixedOffsets(), write.getIndices()))
          indices.push_back(getValueOrCreateConstantIndexOp(
              rewriter, loc,
              affine::makeComposedFoldedAffineApply(
                  rewriter, loc, d0 + d1, {offset, OpFoldResult(index)})));
        rewriter.replaceOpWithNewOp<vector::TransferWriteOp>(
            insert, write.getVector(), slice.getSource(), indices,
            write.getPermutationMapAttr(), write.getInBoundsAttr());
        rewriter.eraseOp(write);
      }
      // The ops to unroll, collected first: once the contraction is
      // unrolled its transfers no longer feed it directly. With AMX, the
      // register tiles that fit a tile stay whole contractions, for
      // amp-cpu-amx-tiles after bufferization.
      llvm::DenseSet<Operation *> amxContracts;
      if (target->amx)
        amxContracts = amp::selectAmxContractions(func);
      auto isAmx = [&](Operation *user) {
        return user && amxContracts.contains(user);
      };
      llvm::DenseSet<Operation *> toUnroll;
      func.walk([&](Operation *op) {
        if (!isDotTileVectorOp(op) || isAmx(op))
          return;
        if (auto read = dyn_cast<vector::TransferReadOp>(op);
            read && llvm::any_of(read->getUsers(), isAmx))
          return;
        if (auto write = dyn_cast<vector::TransferWriteOp>(op);
            write && isAmx(write.getVector().getDefiningOp()))
          return;
        toUnroll.insert(op);
      });
      RewritePatternSet unroll(ctx);
      vector::populateVectorUnrollPatterns(
          unroll, vector::UnrollVectorOptions()
                      .setNativeShapeFn(dotUnrollShape)
                      .setFilterConstraint([&](Operation *op) {
                        return success(toUnroll.contains(op));
                      }));
      if (failed(applyPatternsGreedily(func, std::move(unroll))) ||
          failed(applyPatternsGreedily(func, canonicalization)))
        return signalPassFailure();
      RewritePatternSet dotPatterns(ctx);
      x86vector::populateVectorContractToPackedTypeDotProductPatterns(
          dotPatterns);
      if (failed(applyPatternsGreedily(func, std::move(dotPatterns))) ||
          failed(applyPatternsGreedily(func, canonicalization)))
        return signalPassFailure();
    }
  }
};

} // namespace
