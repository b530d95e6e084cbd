//===- Staging.cpp - shared-memory tiles, cp.async ------------------------===//
//
// The A and B tiles of a tensor-core launch's k steps in shared memory
// (stageInSharedMemory) and their copies pipelined with cp.async over
// several stages (pipelineTileCopies), for amp-gpu-tensor-core-contractions.
//
//===----------------------------------------------------------------------===//

#include "TensorCore.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/ScopeExit.h"

#include <functional>

using namespace mlir;
using namespace mlir::amp::tensor_core;

namespace {

/// Marks the global loads of a k step's shared-tile copies (between
/// stageInSharedMemory and pipelineTileCopies).
constexpr StringLiteral kTileCopy = "amp.tile_copy";

/// The copy of a rows x cols tile of an operand to shared memory by a
/// block's threads: each moves rows * cols / threads elements, `width` at a
/// time (up to 8: 16 bytes of f16/bf16), chunk i * threads + thread of the
/// tile row by row, so that consecutive threads copy consecutive chunks of
/// a row.
struct TileCopy {
  Value global, shared;
  int64_t rows, cols, width, chunks;

  /// The copy of `global`'s tiles, or nothing when the threads cannot
  /// share the tile evenly.
  static std::optional<TileCopy> plan(Value global, int64_t rows, int64_t cols,
                                      int64_t threads) {
    int64_t perThread = rows * cols / threads;
    int64_t width = std::min<int64_t>({8, perThread, cols});
    if (perThread < 1 || (rows * cols) % (threads * width) || cols % width)
      return std::nullopt;
    return TileCopy{global, Value(), rows,
                    cols,   width,   rows * cols / (threads * width)};
  }
};

} // namespace

LogicalResult mlir::amp::tensor_core::stageInSharedMemory(
    RewriterBase &rewriter, gpu::LaunchOp launch, TileConfig &config) {
  SmallVector<scf::ForOp> loops;
  launch.getBody().walk([&](scf::ForOp loop) { loops.push_back(loop); });
  SmallVector<vector::ContractionOp> contracts;
  launch.getBody().walk(
      [&](vector::ContractionOp contract) { contracts.push_back(contract); });
  if (loops.size() > 1 || contracts.size() != 1)
    return failure();
  // The k steps' block: the k loop's body, or the launch's when there is
  // one k step (the loop is folded away).
  Block *step =
      loops.empty() ? &launch.getBody().front() : loops.front().getBody();
  vector::ContractionOp contract = contracts.front();
  vector::TransferReadOp readA = getPlainRead(contract.getLhs());
  vector::TransferReadOp readB = getPlainRead(contract.getRhs());
  if (!readA || !readB || readA->getBlock() != step ||
      readB->getBlock() != step ||
      readA.getVectorType().getShape() !=
          ArrayRef<int64_t>{config.warpM, config.blockK} ||
      readB.getVectorType().getShape() !=
          ArrayRef<int64_t>{config.blockK, config.warpN})
    return failure();
  // The k offset of the step, as the reads have it: defined before the
  // step's block (the loop's induction variable), or a constant (one step).
  auto kOffset = [&](Value k) -> std::optional<OpFoldResult> {
    if (k.getParentBlock() != step || isa<BlockArgument>(k))
      return OpFoldResult(k);
    if (std::optional<int64_t> c = getConstantIntValue(k))
      return OpFoldResult(rewriter.getIndexAttr(*c));
    return std::nullopt;
  };
  std::optional<OpFoldResult> kA = kOffset(readA.getIndices()[1]);
  std::optional<OpFoldResult> kB = kOffset(readB.getIndices()[0]);
  int64_t threads = config.threads();
  std::optional<TileCopy> copyA =
      TileCopy::plan(readA.getBase(), config.blockM, config.blockK, threads);
  std::optional<TileCopy> copyB =
      TileCopy::plan(readB.getBase(), config.blockK, config.blockN, threads);
  if (!kA || !kB || !copyA || !copyB)
    return failure();

  // Several stages: the k loop's bounds are constant (static shapes).
  std::optional<int64_t> lb, kStep;
  if (!loops.empty()) {
    lb = getConstantIntValue(loops.front().getLowerBound());
    kStep = getConstantIntValue(loops.front().getStep());
  }
  if (!lb || !kStep)
    config.stages = 1;
  // MLIR lowers gpu.dynamic_shared_memory to a shared variable that the
  // dynamic part follows: other shared variables of the kernel would
  // overlap it. A launch with workgroup attributions already (none from the
  // schedule) keeps its stages within static shared memory.
  Type elem = readA.getVectorType().getElementType();
  int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  if (!launch.getWorkgroupAttributions().empty())
    config.stages = std::max<int64_t>(
        1, std::min(config.stages,
                    kStaticSharedBytes / stageBytes(config, elemBytes)));
  int64_t stages = config.stages;

  MLIRContext *ctx = rewriter.getContext();
  Location loc = launch.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  AffineExpr d1 = rewriter.getAffineDimExpr(1);
  auto apply = [&](AffineExpr e, ArrayRef<OpFoldResult> operands) -> Value {
    return affine::makeComposedAffineApply(rewriter, loc, e, operands);
  };
  // Past kStaticSharedBytes the stages are views of the launch's dynamic
  // shared memory (A's stages, then B's), set up at the top of its body.
  int64_t sharedBytes = stages * stageBytes(config, elemBytes);
  Value dynamicShared;
  int64_t dynamicOffset = 0;
  if (stages > 1 && sharedBytes > kStaticSharedBytes) {
    rewriter.setInsertionPoint(launch);
    launch.getDynamicSharedMemorySizeMutable().assign(
        arith::ConstantIntOp::create(rewriter, loc, sharedBytes, 32));
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    dynamicShared = gpu::DynamicSharedMemoryOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                        MemRefLayoutAttrInterface(), workgroup));
  }
  // The k step's stage: ((k - lb) / step) mod stages, at the start of the
  // k loop's body.
  Value stage;
  if (stages > 1) {
    rewriter.setInsertionPointToStart(step);
    stage = apply(((d0 - *lb).floorDiv(*kStep)) % stages,
                  {loops.front().getInductionVar()});
  }
  // The rows x (cols + 8) tile of the k step: a workgroup buffer, or with
  // several stages its stage's part of a stages x rows x (cols + 8) one.
  auto sharedTile = [&](vector::TransferReadOp read, int64_t rows,
                        int64_t cols) -> Value {
    if (stages == 1)
      return launch.addWorkgroupAttribution(
          MemRefType::get({rows, cols + 8}, elem, MemRefLayoutAttrInterface(),
                          workgroup),
          loc);
    auto all = MemRefType::get({stages, rows, cols + 8}, elem,
                               MemRefLayoutAttrInterface(), workgroup);
    Value buffer;
    if (dynamicShared) {
      OpBuilder::InsertionGuard viewGuard(rewriter);
      rewriter.setInsertionPointAfterValue(dynamicShared);
      buffer = memref::ViewOp::create(
          rewriter, loc, all, dynamicShared,
          arith::ConstantIndexOp::create(rewriter, loc, dynamicOffset),
          ValueRange{});
      // A stage's rows are multiples of 16 bytes: B's view is aligned.
      dynamicOffset += all.getNumElements() * elemBytes;
    } else {
      buffer = launch.addWorkgroupAttribution(all, loc);
    }
    SmallVector<OpFoldResult> offsets = {stage, rewriter.getIndexAttr(0),
                                         rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(rows),
                                       rewriter.getIndexAttr(cols + 8)};
    SmallVector<OpFoldResult> strides(3, rewriter.getIndexAttr(1));
    auto type = memref::SubViewOp::inferRankReducedResultType(
        {rows, cols + 8}, all, offsets, sizes, strides);
    return memref::SubViewOp::create(rewriter, loc, cast<MemRefType>(type),
                                     buffer, offsets, sizes, strides);
  };
  copyA->shared = sharedTile(readA, config.blockM, config.blockK);
  copyB->shared = sharedTile(readB, config.blockK, config.blockN);

  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value blockY = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::y);
  Value blockX = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value threadX = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value threadY = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::y);
  // The first row of A and column of B the block computes (the schedule
  // maps m to blocks along y, n along x), and the thread's number in it.
  Value blockRow = apply(d0 * config.blockM, {blockY});
  Value blockCol = apply(d0 * config.blockN, {blockX});
  Value thread = apply(d0 + d1 * (32 * config.warpsN()), {threadX, threadY});

  // The thread's chunk i of `copy`: its row and column in the tile.
  auto chunkAt = [&](const TileCopy &copy, int64_t i) {
    AffineExpr chunk = d0 + i * threads;
    int64_t perRow = copy.cols / copy.width;
    return std::pair{apply(chunk.floorDiv(perRow), {thread}),
                     apply(chunk % perRow * copy.width, {thread})};
  };
  auto alignment = [](const TileCopy &copy) {
    Type elem = cast<MemRefType>(copy.global.getType()).getElementType();
    return llvm::MaybeAlign(copy.width * elem.getIntOrFloatBitWidth() / 8);
  };
  // Loads the thread's chunks of the tile at (row0, col0) of the operand.
  auto loadChunks = [&](const TileCopy &copy, OpFoldResult row0,
                        OpFoldResult col0, SmallVectorImpl<Value> &values) {
    Type elem = cast<MemRefType>(copy.global.getType()).getElementType();
    for (int64_t i = 0; i < copy.chunks; ++i) {
      auto [row, col] = chunkAt(copy, i);
      values.push_back(vector::LoadOp::create(
          rewriter, loc, VectorType::get({copy.width}, elem), copy.global,
          ValueRange{apply(d0 + d1, {row0, row}), apply(d0 + d1, {col0, col})},
          /*nontemporal=*/false, alignment(copy)));
    }
  };
  // Stores the thread's chunks (from loadChunks) to the shared tile.
  auto storeChunks = [&](const TileCopy &copy, ValueRange values) {
    for (int64_t i = 0; i < copy.chunks; ++i) {
      auto [row, col] = chunkAt(copy, i);
      vector::StoreOp::create(rewriter, loc, values[i], copy.shared,
                              ValueRange{row, col}, /*nontemporal=*/false,
                              alignment(copy));
    }
  };
  int64_t chunksA = copyA->chunks;

  if (loops.empty()) {
    // After the ids above, and after the operands' views (a batched
    // matmul's matrices) where the launch defines them.
    Operation *after = thread.getDefiningOp();
    for (const TileCopy *copy : {&*copyA, &*copyB})
      if (Operation *def = copy->global.getDefiningOp();
          def && def->getBlock() == after->getBlock() &&
          after->isBeforeInBlock(def))
        after = def;
    rewriter.setInsertionPointAfter(after);
  } else {
    // After the stage's tiles (the subviews), if any.
    rewriter.setInsertionPointToStart(step);
    if (stages > 1)
      rewriter.setInsertionPointAfter(
          copyB->shared.getDefiningOp<memref::SubViewOp>());
    // No thread overwrites the tiles while another still reads the last k
    // step's.
    gpu::BarrierOp::create(rewriter, loc);
  }
  SmallVector<Value> chunks;
  loadChunks(*copyA, blockRow, *kA, chunks);
  loadChunks(*copyB, *kB, blockCol, chunks);
  // Marked for pipelineTileCopies, once the k step's mma code is final.
  for (Value chunk : chunks)
    chunk.getDefiningOp()->setAttr(kTileCopy, rewriter.getUnitAttr());
  storeChunks(*copyA, ValueRange(chunks).take_front(chunksA));
  storeChunks(*copyB, ValueRange(chunks).drop_front(chunksA));
  // The tiles are complete before any warp reads them.
  gpu::BarrierOp::create(rewriter, loc);

  // The warps' reads, from the shared tiles.
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // Each read's shared tile position: its row (A) or column (B) less the
  // block's first, computed at the read (where its indices are defined).
  auto fromShared = [&](vector::TransferReadOp read, Value shared, bool isA) {
    rewriter.setInsertionPoint(read);
    Value row = isA ? apply(d0 - d1, {read.getIndices()[0], blockRow}) : zero;
    Value col = isA ? zero : apply(d0 - d1, {read.getIndices()[1], blockCol});
    rewriter.replaceOpWithNewOp<vector::TransferReadOp>(
        read, read.getVectorType(), shared, ValueRange{row, col},
        /*padding=*/std::nullopt,
        /*inBounds=*/SmallVector<bool>(2, true));
  };
  fromShared(readA, copyA->shared, /*isA=*/true);
  fromShared(readB, copyB->shared, /*isA=*/false);
  return success();
}

void mlir::amp::tensor_core::pipelineTileCopies(RewriterBase &rewriter,
                                                gpu::LaunchOp launch,
                                                int64_t stages) {
  SmallVector<vector::LoadOp> loads;
  launch.walk([&](vector::LoadOp load) {
    if (load->hasAttr(kTileCopy))
      loads.push_back(load);
  });
  llvm::scope_exit unmark([&] {
    launch.walk([&](vector::LoadOp load) { load->removeAttr(kTileCopy); });
  });
  if (loads.empty() || stages < 2)
    return;
  auto loop = dyn_cast<scf::ForOp>(loads.front()->getParentOp());
  if (!loop)
    return;
  Block *body = loop.getBody();
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0 || (*ub - *lb) / *step < stages)
    return;
  // Each load's one store, to shared memory, of 4, 8 or 16 bytes.
  SmallVector<vector::StoreOp> stores;
  for (vector::LoadOp load : loads) {
    auto store = load->hasOneUse()
                     ? dyn_cast<vector::StoreOp>(*load->getUsers().begin())
                     : vector::StoreOp();
    VectorType type = load.getVectorType();
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    if (load->getBlock() != body || !store || store->getBlock() != body ||
        store.getValueToStore() != load.getResult() ||
        !nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(
            store.getMemRefType()) ||
        type.getRank() != 1 || (bytes != 4 && bytes != 8 && bytes != 16))
      return;
    stores.push_back(store);
  }
  // The barriers around the copies: before the first load and right after
  // the last store.
  Operation *before = loads.front()->getPrevNode();
  while (before && !isa<gpu::BarrierOp>(before))
    before = before->getPrevNode();
  Operation *lastStore = stores.front();
  for (vector::StoreOp store : stores)
    if (lastStore->isBeforeInBlock(store))
      lastStore = store;
  Operation *complete = lastStore->getNextNode();
  if (!before || !complete || !isa<gpu::BarrierOp>(complete))
    return;
  // The copies' operands defined in the loop: pure index arithmetic only
  // (checked before anything changes), cloned with the copies.
  std::function<bool(Operation *)> clonable = [&](Operation *op) {
    return llvm::all_of(op->getOperands(), [&](Value operand) {
      Operation *def = operand.getDefiningOp();
      return !def || def->getBlock() != body || (isPure(def) && clonable(def));
    });
  };
  // (The stores' buffer and indices: the stage's subview of the tiles
  // depends on the induction variable.)
  auto clonableValue = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || def->getBlock() != body || (isPure(def) && clonable(def));
  };
  for (auto [load, store] : llvm::zip_equal(loads, stores))
    if (!clonable(load) || !clonableValue(store.getBase()) ||
        !llvm::all_of(store.getIndices(), clonableValue))
      return;

  // `v` with the loop's induction variable replaced as `mapping` says, the
  // pure ops in the loop it depends on (index arithmetic, the stage's
  // subview) cloned.
  std::function<Value(Value, IRMapping &)> remap = [&](Value v,
                                                       IRMapping &mapping) {
    Operation *def = v.getDefiningOp();
    if (mapping.contains(v) || !def || def->getBlock() != body)
      return mapping.lookupOrDefault(v);
    for (Value operand : def->getOperands())
      remap(operand, mapping);
    rewriter.clone(*def, mapping);
    return mapping.lookup(v);
  };
  Location loc = loop.getLoc();
  Value inductionVar = loop.getInductionVar();
  // One commit group of the thread's copies of the k step at `from` (the
  // loads' induction variable) to the stage of the step at `to` (the
  // stores'); returns its token.
  auto copyGroup = [&](Value from, Value to) {
    IRMapping source, destination;
    source.map(inductionVar, from);
    destination.map(inductionVar, to);
    SmallVector<Value> tokens;
    for (auto [load, store] : llvm::zip_equal(loads, stores)) {
      SmallVector<Value> srcIndices, dstIndices;
      for (Value index : load.getIndices())
        srcIndices.push_back(remap(index, source));
      for (Value index : store.getIndices())
        dstIndices.push_back(remap(index, destination));
      VectorType type = load.getVectorType();
      // 16-byte copies bypass L1 (cp.async.cg): A and B tiles are read
      // once per block, their reuse is in shared memory.
      bool bypassL1 =
          type.getNumElements() * type.getElementTypeBitWidth() == 128;
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
          rewriter, loc,
          nvgpu::DeviceAsyncTokenType::get(rewriter.getContext()),
          remap(store.getBase(), destination), dstIndices,
          remap(load.getBase(), source), srcIndices,
          rewriter.getIndexAttr(type.getNumElements()),
          /*srcElements=*/Value(),
          bypassL1 ? rewriter.getUnitAttr() : UnitAttr()));
    }
    return nvgpu::DeviceAsyncCreateGroupOp::create(
        rewriter, loc, nvgpu::DeviceAsyncTokenType::get(rewriter.getContext()),
        tokens);
  };
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // The prologue: steps 0 .. stages - 2.
  rewriter.setInsertionPoint(loop);
  Value group;
  for (int64_t s = 0; s + 1 < stages; ++s) {
    Value k = index(*lb + s * *step);
    group = copyGroup(k, k);
  }
  // The loop: wait for step i's group, then (after the barrier) issue step
  // i + stages - 1's. `cp.async.wait_group` counts the thread's groups;
  // its token operand is nominal.
  rewriter.setInsertionPoint(before);
  nvgpu::DeviceAsyncWaitOp::create(rewriter, loc, group,
                                   rewriter.getI32IntegerAttr(stages - 2));
  rewriter.setInsertionPointAfter(before);
  Value ahead = arith::AddIOp::create(rewriter, loc, inductionVar,
                                      index((stages - 1) * *step));
  Value last = arith::MinUIOp::create(rewriter, loc, ahead, index(*ub - *step));
  copyGroup(last, ahead);
  // Nothing pending at the end (the last groups reload the last step).
  rewriter.setInsertionPointAfter(loop);
  nvgpu::DeviceAsyncWaitOp::create(rewriter, loc, group,
                                   rewriter.getI32IntegerAttr(0));
  for (vector::StoreOp store : stores)
    rewriter.eraseOp(store);
  for (vector::LoadOp load : loads)
    rewriter.eraseOp(load);
  rewriter.eraseOp(complete);
}
