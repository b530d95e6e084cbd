//===- ReductionKernels.cpp - partial reductions as GPU kernels -----------===//
//
// The `amp-gpu-reduction-kernels` pass: linalg reductions on buffers with
// parallel dimensions too (a row sum, a bias gradient, the per-row inf/NaN
// flags of loss scaling) become GPU kernels that split each output
// element's reduction across threads:
//
// - rows (the inputs' innermost dimension is reduced, more than 32 elements
//   per output, a combiner `gpu.all_reduce` has): one block per output
//   element; thread t folds the elements t, t + blockDim, ... (coalesced)
//   from the combiner's neutral element, `gpu.all_reduce` combines the
//   block, and thread 0 combines that with the output's value;
// - columns (the rest): blocks of 32 x TY threads; threadIdx.x walks 32
//   consecutive output elements (coalesced when the inputs' innermost
//   dimension is a parallel one), threadIdx.y splits each one's reduction
//   TY ways; the TY partial results meet in shared memory and row 0 of the
//   block combines them, in order, with the output's value.
//
// Where a linalg.fill of the output is the op right before (the zero of a
// sum, the -inf of a max, the `false` of an inf/NaN check), the kernel
// combines with the fill's value instead of loading the output, and the
// fill, a kernel of its own otherwise, goes.
//
// Passes.td has the why and the limits.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "GpuUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUREDUCTIONKERNELS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr int64_t kWarp = 32;
/// Threads of a row kernel's block, at most.
constexpr int64_t kMaxRowThreads = 256;
/// A column kernel splits reductions across threadIdx.y (up to 32 ways)
/// until its grid has this many threads, keeping at least
/// kMinColumnShare elements per thread.
constexpr int64_t kColumnThreadsTarget = 65536;
constexpr int64_t kMinColumnShare = 8;
constexpr int64_t kMaxGridX = std::numeric_limits<int32_t>::max();

/// The loop dimensions of a linalg op, by kind, each in loop order.
struct LoopSplit {
  SmallVector<unsigned> parallel, reduction;
};

LoopSplit splitLoops(linalg::LinalgOp op) {
  LoopSplit split;
  for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray()))
    (it == utils::IteratorType::parallel ? split.parallel : split.reduction)
        .push_back(i);
  return split;
}

/// Whether some memref input of `op` does not vary along a parallel
/// dimension: it is reused across output elements, as a matmul's or a
/// convolution's operands are. Those stay for the parallel-loop path (one
/// thread per output element), where the reuse is in cache.
bool isContractionLike(linalg::LinalgOp op, const LoopSplit &split) {
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    for (unsigned dim : split.parallel)
      if (!map.isFunctionOfDim(dim))
        return true;
  }
  return false;
}

/// Why the reduction `op` stays for the parallel-loop path, or nothing.
std::optional<std::string> whyNotKernel(linalg::LinalgOp op,
                                        const LoopSplit &split) {
  if (std::optional<std::string> why = whyNoKernel(op))
    return why;
  if (op.getNumDpsInits() != 1)
    return "more than one output";
  // One output element per parallel point: each is written by one thread.
  OpOperand &init = op.getDpsInitsMutable()[0];
  AffineMap outMap = op.getMatchingIndexingMap(&init);
  SmallVector<unsigned> outDims;
  for (AffineExpr e : outMap.getResults())
    if (auto d = dyn_cast<AffineDimExpr>(e))
      outDims.push_back(d.getPosition());
  llvm::sort(outDims);
  if (outMap.getNumResults() != split.parallel.size() ||
      outDims != split.parallel)
    return "the output is not indexed by the parallel dimensions, each once";
  // The threads read the inputs while others write outputs.
  if (mayReadOutputBuffer(op))
    return "an input on the output's buffer";
  return std::nullopt;
}

/// Whether the innermost (unit-stride) dimension of the largest memref
/// input is indexed by a reduction dimension alone.
bool isReductionInnermost(linalg::LinalgOp op) {
  OpOperand *largest = nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (type && type.getRank() > 0 &&
        (!largest ||
         type.getRank() > cast<MemRefType>(largest->get().getType()).getRank()))
      largest = input;
  }
  if (!largest)
    return false;
  auto type = cast<MemRefType>(largest->get().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  auto unit = llvm::find(strides, 1);
  if (unit == strides.end())
    return false;
  AffineExpr inner = op.getMatchingIndexingMap(largest).getResult(
      std::distance(strides.begin(), unit));
  auto dim = dyn_cast<AffineDimExpr>(inner);
  return dim && op.getIteratorTypesArray()[dim.getPosition()] ==
                    utils::IteratorType::reduction;
}

/// The static product of `ranges` at `dims`, or nothing if one is dynamic.
std::optional<int64_t> staticProduct(ArrayRef<int64_t> ranges,
                                     ArrayRef<unsigned> dims) {
  int64_t total = 1;
  for (unsigned d : dims) {
    if (ShapedType::isDynamic(ranges[d]))
      return std::nullopt;
    total *= ranges[d];
  }
  return total;
}

/// Threads per block of a row kernel: the reduction's size rounded up to a
/// power of two, between 64 and kMaxRowThreads.
int64_t rowThreads(std::optional<int64_t> reductionSize) {
  if (!reductionSize)
    return kMaxRowThreads;
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(*reductionSize), 2 * kWarp,
                             kMaxRowThreads);
}

/// threadIdx.y extent of a column kernel (see kColumnThreadsTarget).
int64_t columnRows(std::optional<int64_t> outputs,
                   std::optional<int64_t> reductionSize) {
  int64_t blocks = outputs ? llvm::divideCeil(*outputs, kWarp) : kMaxGridX;
  int64_t rows = 1;
  while (rows < kWarp &&
         (!reductionSize || *reductionSize >= 2 * rows * kMinColumnShare) &&
         blocks * kWarp * rows < kColumnThreadsTarget)
    rows *= 2;
  return rows;
}

/// `sizes[dims]`.
SmallVector<Value> select(ArrayRef<Value> sizes, ArrayRef<unsigned> dims) {
  return llvm::map_to_vector(dims, [&](unsigned d) { return sizes[d]; });
}

/// Writes the indices of `linear` in the space `sizes` (row-major) into
/// `ivs` at `dims`.
void delinearizeInto(OpBuilder &b, Location loc, Value linear,
                     ArrayRef<Value> sizes, ArrayRef<unsigned> dims,
                     SmallVectorImpl<Value> &ivs) {
  if (dims.size() == 1) {
    ivs[dims.front()] = linear;
    return;
  }
  auto op = affine::AffineDelinearizeIndexOp::create(b, loc, linear, sizes,
                                                     /*hasOuterBound=*/true);
  for (auto [d, v] : llvm::zip(dims, op.getResults()))
    ivs[d] = v;
}

struct AmpGpuReductionKernelsPass
    : public amp::impl::AmpGpuReductionKernelsBase<AmpGpuReductionKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::tuple<linalg::LinalgOp, ReductionCombiner, LoopSplit>> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics() || op.getNumParallelLoops() == 0 ||
          op.getNumReductionLoops() == 0 ||
          op->getParentOfType<gpu::LaunchOp>())
        return;
      LoopSplit split = splitLoops(op);
      if (isContractionLike(op, split))
        return;
      auto remark = [&](StringRef why) {
        op.emitRemark() << "amp-gpu-reduction-kernels: this reduction stays "
                           "on the parallel-loop path ("
                        << why << ")";
      };
      if (std::optional<std::string> why = whyNotKernel(op, split))
        return remark(*why);
      std::string why;
      FailureOr<ReductionCombiner> combiner = matchReductionCombiner(op, why);
      if (failed(combiner))
        return remark(why);
      ops.emplace_back(op, *combiner, split);
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, combiner, split] : ops) {
      rewriter.setInsertionPoint(op);
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      std::optional<int64_t> outputs = staticProduct(ranges, split.parallel);
      std::optional<int64_t> reductionSize =
          staticProduct(ranges, split.reduction);
      bool rows = combiner.allReduce && isReductionInnermost(op) &&
                  (!reductionSize || *reductionSize > kWarp) &&
                  (!outputs || *outputs <= kMaxGridX);
      // A fill of the output right before: the kernel starts from its
      // value, and the fill goes.
      linalg::FillOp fill = getFillOfOutput(op);
      Value filled = fill ? fill.value() : Value();
      if (rows)
        buildRowKernel(rewriter, op, combiner, split, rowThreads(reductionSize),
                       filled);
      else
        buildColumnKernel(rewriter, op, combiner, split,
                          columnRows(outputs, reductionSize), filled);
      rewriter.eraseOp(op);
      if (fill)
        rewriter.eraseOp(fill);
    }
  }

  /// The loop folding the reduction indices lb, lb + step, ... < ub of the
  /// output element at the parallel indices in `ivs` (the reduction
  /// positions are filled in) from the neutral element. Returns the folded
  /// value.
  Value foldShare(OpBuilder &b, Location loc, linalg::LinalgOp op,
                  const ReductionCombiner &combiner, const LoopSplit &split,
                  ArrayRef<Value> sizes, SmallVector<Value> ivs, Value lb,
                  Value ub, Value step) {
    Value start = arith::ConstantOp::create(b, loc, combiner.neutral);
    SmallVector<Value> reductionSizes = select(sizes, split.reduction);
    auto loop = scf::ForOp::create(
        b, loc, lb, ub, step, ValueRange{start},
        [&](OpBuilder &nested, Location l, Value linear, ValueRange acc) {
          delinearizeInto(nested, l, linear, reductionSizes, split.reduction,
                          ivs);
          IRMapping mapping;
          mapping.map(combiner.out, acc.front());
          SmallVector<Value> yielded = inlineBody(nested, l, op, ivs, mapping);
          scf::YieldOp::create(nested, l, yielded);
        });
    return loop.getResult(0);
  }

  /// Rows: see the file comment. `filled`: the value of the output's fill
  /// (`getFillOfOutput`), which the result is combined with instead of the
  /// output's element, or null.
  void buildRowKernel(OpBuilder &b, linalg::LinalgOp op,
                      const ReductionCombiner &combiner, const LoopSplit &split,
                      int64_t threads, Value filled) {
    Location loc = op.getLoc();
    SmallVector<Value> sizes = loopSizes(b, loc, op);
    Value outputs = product(b, loc, select(sizes, split.parallel));
    Value reductionSize = product(b, loc, select(sizes, split.reduction));
    OpBuilder::InsertionGuard guard(b);
    gpu::LaunchOp kernel = createLaunch(b, loc, outputs, threads);
    Value tid = kernel.getThreadIds().x;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<Value> ivs(op.getNumLoops(), zero);
    delinearizeInto(b, loc, kernel.getBlockIds().x,
                    select(sizes, split.parallel), split.parallel, ivs);
    Value step = arith::ConstantIndexOp::create(b, loc, threads);
    Value share = foldShare(b, loc, op, combiner, split, sizes, ivs, tid,
                            reductionSize, step);
    Value all = combiner.allReduceInBlock(b, loc, share);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    auto store = scf::IfOp::create(b, loc, first);
    b.setInsertionPointToStart(store.thenBlock());
    combiner.combineIntoOutput(b, loc, op, ivs, all, filled);
  }

  /// Columns: see the file comment; `filled` as for rows.
  void buildColumnKernel(OpBuilder &b, linalg::LinalgOp op,
                         const ReductionCombiner &combiner,
                         const LoopSplit &split, int64_t rows, Value filled) {
    Location loc = op.getLoc();
    SmallVector<Value> sizes = loopSizes(b, loc, op);
    Value outputs = product(b, loc, select(sizes, split.parallel));
    Value reductionSize = product(b, loc, select(sizes, split.reduction));
    AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
    Value blocks = getValueOrCreateConstantIndexOp(
        b, loc,
        affine::makeComposedFoldedAffineApply(
            b, loc, (d0 + kWarp - 1).floorDiv(kWarp), {OpFoldResult(outputs)}));
    SmallVector<Type> workgroup;
    if (rows > 1)
      workgroup.push_back(MemRefType::get(
          {rows, kWarp}, combiner.type, MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(
              b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace())));
    OpBuilder::InsertionGuard guard(b);
    gpu::LaunchOp kernel = createLaunch(b, loc, blocks, kWarp, rows, workgroup);
    gpu::KernelDim3 thread = kernel.getThreadIds();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value linear = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(2, 0, d0 * kWarp + d1),
        ValueRange{kernel.getBlockIds().x, thread.x});
    // Threads past the last output element fold nothing (an empty loop)
    // at a valid index, and take part in the barrier.
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          linear, outputs);
    Value at = arith::SelectOp::create(b, loc, inRange, linear, zero);
    Value ub = arith::SelectOp::create(b, loc, inRange, reductionSize, zero);
    SmallVector<Value> ivs(op.getNumLoops(), zero);
    delinearizeInto(b, loc, at, select(sizes, split.parallel), split.parallel,
                    ivs);
    Value step = arith::ConstantIndexOp::create(b, loc, rows);
    Value share =
        foldShare(b, loc, op, combiner, split, sizes, ivs, thread.y, ub, step);
    Value partials;
    if (rows > 1) {
      partials = kernel.getWorkgroupAttributions().front();
      memref::StoreOp::create(b, loc, share, partials,
                              ValueRange{thread.y, thread.x});
      // Every partial result is in shared memory before row 0 reads them.
      gpu::BarrierOp::create(b, loc);
    }
    Value rowZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread.y, zero);
    Value writes = arith::AndIOp::create(b, loc, inRange, rowZero);
    auto store = scf::IfOp::create(b, loc, writes);
    b.setInsertionPointToStart(store.thenBlock());
    Value total = share;
    if (rows > 1) {
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value end = arith::ConstantIndexOp::create(b, loc, rows);
      auto fold = scf::ForOp::create(
          b, loc, one, end, one, ValueRange{share},
          [&](OpBuilder &nested, Location l, Value y, ValueRange acc) {
            Value partial = memref::LoadOp::create(nested, l, partials,
                                                   ValueRange{y, thread.x});
            scf::YieldOp::create(
                nested, l, combiner.combine(nested, acc.front(), partial));
          });
      total = fold.getResult(0);
    }
    combiner.combineIntoOutput(b, loc, op, ivs, total, filled);
  }
};

} // namespace
