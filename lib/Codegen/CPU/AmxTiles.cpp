//===- AmxTiles.cpp - AMX tiles for bf16 register tiles -------------------===//
//
// The `amp-cpu-amx-tiles` pass: on a CPU with AMX (AMX-TILE and AMX-BF16),
// the bf16 x bf16 -> f32 register tiles that amp-cpu-tile-and-vectorize
// left as `vector.contract`s in VNNI layout (A: M x K/2 x 2, B: K/2 x N x 2,
// C: M x N; M and N at most 32, K/2 at most 16) become AMX tile operations
// on a block of up to 2 x 2 tiles of C (16 x 16 f32 each): `amx.tile_load`
// of A's row tiles and B's column tiles straight from their buffers, one
// `amx.tile_mulf` (tdpbf16ps: 16 x 16 x 32 multiply-adds) per C tile (each
// A and B tile serves two), and the accumulators kept in tile registers
// across the k loop (the loop carries `!amx.tile`s, which LLVM keeps in tmm
// registers: loaded before the loop and stored after it, not on every k
// step).
//
// Upstream's convert-vector-to-amx (MLIR 22) lowers one contraction at a
// time, with the accumulator loaded and stored around each tdpbf16ps when
// it is loop-carried (through a stack buffer), and loads tiles directly
// from memory only through minor-identity transfers; a packed C tile, a
// rank-reducing read of M x N/16 x 16, went through the stack too. This
// pass reads any transfer whose vector dimensions map to increasing buffer
// dimensions with contiguous columns (the row stride explicit), and goes
// through a stack buffer only for other operands.
//
//===----------------------------------------------------------------------===//

#include "CpuTarget.h"
#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <map>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUAMXTILES
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// An AMX tile holds at most 16 rows of 64 bytes; a register tile is a
/// block of at most 2 x 2 of them (C: 32 x 32 f32; A: 32 rows of 16 pairs;
/// B: 16 pair rows of 32 columns).
constexpr int64_t kMaxTileRows = 16;
constexpr int64_t kMaxTileRowBytes = 64;
constexpr int64_t kMaxBlockTiles = 2;

/// The chunks (offset, size) that `extent` splits into, of at most `size`.
SmallVector<std::pair<int64_t, int64_t>> chunks(int64_t extent, int64_t size) {
  SmallVector<std::pair<int64_t, int64_t>> result;
  for (int64_t offset = 0; offset < extent; offset += size)
    result.push_back({offset, std::min(size, extent - offset)});
  return result;
}

/// The VNNI pair count of an operand type (1 for C).
int64_t pairsOf(VectorType type) {
  return type.getRank() == 3 ? type.getDimSize(2) : 1;
}

/// The tile type of the `rows` x `cols` part of an operand of `type` (cols
/// in its own units: pairs of k for A, columns for B and C).
amx::TileType subTileType(VectorType type, int64_t rows, int64_t cols) {
  return amx::TileType::get({rows, cols * pairsOf(type)},
                            type.getElementType());
}

} // namespace

bool mlir::amp::isAmxContraction(vector::ContractionOp contract) {
  auto accType = dyn_cast<VectorType>(contract.getAccType());
  VectorType lhsType = contract.getLhsType(), rhsType = contract.getRhsType();
  if (!accType || contract.getKind() != vector::CombiningKind::ADD ||
      isa<vector::MaskOp>(contract->getParentOp()) || accType.getRank() != 2 ||
      lhsType.getRank() != 3 || rhsType.getRank() != 3 ||
      !lhsType.getElementType().isBF16() ||
      !rhsType.getElementType().isBF16() || !accType.getElementType().isF32() ||
      lhsType.getDimSize(2) != 2 || rhsType.getDimSize(2) != 2)
    return false;
  // A: M x K/2 x 2, B: K/2 x N x 2, C: M x N (shapes checked with the maps
  // below); K/2 pairs of bf16 fill at most one tile row (64 bytes), M and
  // N at most two tiles.
  int64_t m = accType.getDimSize(0), n = accType.getDimSize(1);
  int64_t pairs = lhsType.getDimSize(1);
  if (m > kMaxBlockTiles * kMaxTileRows ||
      n * 4 > kMaxBlockTiles * kMaxTileRowBytes || pairs > kMaxTileRows ||
      pairs * 4 > kMaxTileRowBytes)
    return false;
  SmallVector<AffineMap> maps = contract.getIndexingMapsArray();
  if (maps[0].getNumDims() != 4)
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(maps);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 2 || !dims->batch.empty())
    return false;
  auto dim = [](AffineMap map, unsigned result) -> int64_t {
    auto expr = dyn_cast<AffineDimExpr>(map.getResult(result));
    return expr ? static_cast<int64_t>(expr.getPosition()) : -1;
  };
  int64_t mDim = dims->m.front(), nDim = dims->n.front();
  int64_t k = dim(maps[0], 1), pair = dim(maps[0], 2);
  return dim(maps[0], 0) == mDim && k >= 0 && pair >= 0 && k != pair &&
         llvm::is_contained(dims->k, k) && llvm::is_contained(dims->k, pair) &&
         dim(maps[1], 0) == k && dim(maps[1], 1) == nDim &&
         dim(maps[1], 2) == pair && dim(maps[2], 0) == mDim &&
         dim(maps[2], 1) == nDim;
}

llvm::DenseSet<Operation *>
mlir::amp::selectAmxContractions(func::FuncOp func) {
  constexpr int64_t kTileRegisters = 8;
  using Shape = std::pair<int64_t, int64_t>; // rows, bytes per row
  // The tiles of one contraction, by shape: its C tiles, B's column tiles
  // and A's row tiles.
  auto tilesOf = [](vector::ContractionOp contract) {
    std::map<Shape, int64_t> uses;
    auto acc = cast<VectorType>(contract.getAccType());
    int64_t pairs = contract.getLhsType().getDimSize(1);
    auto rows = chunks(acc.getDimSize(0), kMaxTileRows);
    auto cols = chunks(acc.getDimSize(1), kMaxTileRows);
    for (auto [r0, rn] : rows) {
      ++uses[{rn, pairs * 4}];
      for (auto [c0, cn] : cols)
        ++uses[{rn, cn * 4}];
    }
    for (auto [c0, cn] : cols)
      ++uses[{pairs, cn * 4}];
    return uses;
  };
  SmallVector<vector::ContractionOp> whole, partial;
  func.walk([&](vector::ContractionOp contract) {
    if (!isAmxContraction(contract))
      return;
    std::map<Shape, int64_t> uses = tilesOf(contract);
    bool full = uses.size() == 1 && uses.begin()->first == Shape{16, 64};
    (full ? whole : partial).push_back(contract);
  });
  std::map<Shape, int64_t> registers;
  llvm::DenseSet<Operation *> selected;
  for (vector::ContractionOp contract :
       llvm::concat<vector::ContractionOp>(whole, partial)) {
    std::map<Shape, int64_t> merged = registers;
    for (auto [shape, count] : tilesOf(contract))
      merged[shape] = std::max(merged[shape], count);
    int64_t total = 0;
    for (auto [shape, count] : merged)
      total += count;
    if (total > kTileRegisters)
      continue;
    registers = std::move(merged);
    selected.insert(contract);
  }
  return selected;
}

namespace {

/// Where the tiles of an operand block are loaded from or stored to: a
/// buffer, the indices of the block's first element, the buffer dimensions
/// its rows and columns advance along (`colScale` elements per column: the
/// pairs of a VNNI operand copied to a flat stack buffer), and the row
/// stride in elements.
struct TileBlock {
  Value base;
  SmallVector<Value> indices;
  int64_t rowDim = 0, colDim = 0, colScale = 1;
  Value stride;

  /// The indices of the tile at (`row`, `col`) of the block.
  SmallVector<Value> at(RewriterBase &rewriter, Location loc, int64_t row,
                        int64_t col) const {
    SmallVector<Value> result = indices;
    auto shift = [&](int64_t dim, int64_t by) {
      if (by)
        result[dim] = arith::AddIOp::create(
            rewriter, loc, result[dim],
            arith::ConstantIndexOp::create(rewriter, loc, by));
    };
    shift(rowDim, row);
    shift(colDim, col * colScale);
    return result;
  }
  Value load(RewriterBase &rewriter, Location loc, amx::TileType type,
             int64_t row, int64_t col) const {
    return amx::TileLoadOp::create(rewriter, loc, type, base,
                                   at(rewriter, loc, row, col), stride);
  }
  void store(RewriterBase &rewriter, Location loc, Value tile, int64_t row,
             int64_t col) const {
    amx::TileStoreOp::create(rewriter, loc, base, at(rewriter, loc, row, col),
                             tile, stride);
  }
};

/// The block that the transfer `xfer` reads or writes, when its tiles can
/// be loaded or stored there directly: no mask, in bounds, on a memref, its
/// vector dimensions mapped to increasing buffer dimensions, the last one
/// the buffer's innermost (unit stride) and, for a VNNI vector (rows x
/// cols x 2), the cols dimension the next one out covering the whole pair
/// dimension (rows of cols x 2 contiguous elements). The stride is created
/// at the insertion point.
std::optional<TileBlock> directBlock(RewriterBase &rewriter,
                                     VectorTransferOpInterface xfer) {
  auto memrefType = dyn_cast<MemRefType>(xfer.getShapedType());
  VectorType vectorType = xfer.getVectorType();
  if (!memrefType || xfer.getMask() || xfer.hasOutOfBoundsDim())
    return std::nullopt;
  AffineMap map = xfer.getPermutationMap();
  int64_t rank = memrefType.getRank(), vecRank = vectorType.getRank();
  if (map.getNumResults() != vecRank || (vecRank != 2 && vecRank != 3))
    return std::nullopt;
  SmallVector<int64_t> memDims;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || (!memDims.empty() && d.getPosition() <= memDims.back()))
      return std::nullopt;
    memDims.push_back(d.getPosition());
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memrefType.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  if (memDims.back() != rank - 1 || strides[rank - 1] != 1)
    return std::nullopt;
  if (vecRank == 3) {
    int64_t pairs = vectorType.getDimSize(2);
    if (memDims[1] != rank - 2 || memrefType.getDimSize(rank - 1) != pairs ||
        strides[rank - 2] != pairs)
      return std::nullopt;
  }
  TileBlock block;
  block.base = xfer.getBase();
  block.indices = llvm::to_vector(xfer.getIndices());
  block.rowDim = memDims[0];
  block.colDim = memDims[1];
  Location loc = xfer.getLoc();
  if (!ShapedType::isDynamic(strides[block.rowDim])) {
    block.stride =
        arith::ConstantIndexOp::create(rewriter, loc, strides[block.rowDim]);
  } else {
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, xfer.getBase());
    block.stride = metadata.getStrides()[block.rowDim];
  }
  return block;
}

/// True when `base` is a view of a constant global (a weight folded into
/// the module): nothing writes it.
bool isConstantGlobal(Value base) {
  while (auto view = base.getDefiningOp<ViewLikeOpInterface>())
    base = view.getViewSource();
  auto get = base.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return false;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstant();
}

/// True when nothing that runs between `read` and `user` (the ops after
/// `read` in its block up to the one holding `user`, nested ones included)
/// may write the buffer `read` reads: a tile loaded at `user` then holds
/// what `read` read. Tile loads count as reads (their declared write
/// effect only keeps them apart for register allocation).
bool unchangedUntil(vector::TransferReadOp read, Operation *user,
                    AliasAnalysis &aliases) {
  Operation *last = read->getBlock()->findAncestorOpInBlock(*user);
  if (!last || !read->isBeforeInBlock(last))
    return false;
  Value base = read.getBase();
  if (isConstantGlobal(base))
    return true;
  for (Operation *op = read->getNextNode();; op = op->getNextNode()) {
    WalkResult result = op->walk([&](Operation *nested) {
      if (nested == user || isa<amx::TileLoadOp>(nested))
        return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
      if (!effects)
        return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &effect : instances) {
        if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
          continue;
        Value written = effect.getValue();
        if (!written || !aliases.alias(written, base).isNo())
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return false;
    if (op == last)
      return true;
  }
}

/// A stack buffer of `type` for `value`: allocated at the start of the
/// allocation scope `value` is defined in (an alloca in a loop body would
/// grow the stack on every iteration; the body of an scf.forall, a scope of
/// its own, gets one per thread).
Value stackBuffer(RewriterBase &rewriter, Location loc, MemRefType type,
                  Value value) {
  Operation *scope = value.getParentBlock()->getParentOp();
  if (!scope->hasTrait<OpTrait::AutomaticAllocationScope>())
    scope = scope->getParentWithTrait<OpTrait::AutomaticAllocationScope>();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&scope->getRegion(0).front());
  return memref::AllocaOp::create(rewriter, loc, type);
}

/// A flat stack buffer for a block of `type`: rows x (cols x pairs).
TileBlock stackBlock(RewriterBase &rewriter, Location loc, VectorType type,
                     Value value, Value &buffer) {
  int64_t cols = type.getDimSize(1) * pairsOf(type);
  auto bufferType =
      MemRefType::get({type.getDimSize(0), cols}, type.getElementType());
  buffer = stackBuffer(rewriter, loc, bufferType, value);
  TileBlock block;
  block.base = buffer;
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  block.indices = {zero, zero};
  block.rowDim = 0;
  block.colDim = 1;
  block.colScale = pairsOf(type);
  block.stride = arith::ConstantIndexOp::create(rewriter, loc, cols);
  return block;
}

/// Where the operand `value` of `user` (the insertion point) is loaded
/// from, tile by tile, at `user`: every tile lives from its load to its
/// use. (A tile loaded where loop-invariant code motion hoisted its read
/// would hold one of the 8 tile registers across the loops; LLVM does not
/// spill AMX tiles and stops with "ran out of registers".) The buffer that
/// `value` was read from when its transfer_read allows (directBlock) and
/// nothing may write that buffer until `user`; else a stack copy of
/// `value` made where it is defined.
TileBlock loadBlock(RewriterBase &rewriter, Location loc, Value value,
                    Operation *user, AliasAnalysis &aliases) {
  if (auto read = value.getDefiningOp<vector::TransferReadOp>();
      read && read.hasPureBufferSemantics() &&
      unchangedUntil(read, user, aliases))
    if (std::optional<TileBlock> block = directBlock(rewriter, read))
      return *block;
  auto type = cast<VectorType>(value.getType());
  Value buffer;
  TileBlock block = stackBlock(rewriter, loc, type, value, buffer);
  OpBuilder::InsertionGuard guard(rewriter);
  // After `value`, and after the buffer for an argument of its block.
  rewriter.setInsertionPointAfterValue(value);
  if (isa<BlockArgument>(value) &&
      buffer.getParentBlock() == value.getParentBlock())
    rewriter.setInsertionPointAfterValue(buffer);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value flat = vector::ShapeCastOp::create(
      rewriter, loc,
      VectorType::get(cast<MemRefType>(buffer.getType()).getShape(),
                      type.getElementType()),
      value);
  vector::TransferWriteOp::create(rewriter, loc, flat, buffer,
                                  ValueRange{zero, zero});
  return block;
}

/// The accumulator tiles (row-major over the block) of `acc`, an operand of
/// `user`: the tiles themselves when `tiles` has them (a vector read back
/// from tiles stored on the stack), else loaded at `user` (loadBlock).
SmallVector<Value> loadAccumulator(
    RewriterBase &rewriter, Location loc, Value acc, Operation *user,
    const DenseMap<Value, SmallVector<Value>> &tiles, AliasAnalysis &aliases) {
  auto it = tiles.find(acc);
  if (it != tiles.end())
    return it->second;
  auto type = cast<VectorType>(acc.getType());
  TileBlock block = loadBlock(rewriter, loc, acc, user, aliases);
  SmallVector<Value> result;
  for (auto [r0, rn] : chunks(type.getDimSize(0), kMaxTileRows))
    for (auto [c0, cn] : chunks(type.getDimSize(1), kMaxTileRows))
      result.push_back(
          block.load(rewriter, loc, subTileType(type, rn, cn), r0, c0));
  return result;
}

/// Replaces `result`, a vector, by the contents of the C tiles `acc`
/// (row-major over the block): stored straight into the buffer of its one
/// transfer_write user when that allows (directBlock), else to a stack
/// buffer read back as a vector, which `tiles` maps to the tiles (a later
/// contraction that takes it as its accumulator, the peeled remainder of a
/// k loop, takes the tiles themselves; the pass removes the stack copy when
/// nothing else reads it).
void storeAccumulator(RewriterBase &rewriter, Location loc, Value result,
                      ArrayRef<Value> acc,
                      DenseMap<Value, SmallVector<Value>> &tiles) {
  auto type = cast<VectorType>(result.getType());
  auto storeAll = [&](const TileBlock &block) {
    int64_t i = 0;
    for (auto [r0, rn] : chunks(type.getDimSize(0), kMaxTileRows))
      for (auto [c0, cn] : chunks(type.getDimSize(1), kMaxTileRows))
        block.store(rewriter, loc, acc[i++], r0, c0);
  };
  if (result.hasOneUse()) {
    auto write = dyn_cast<vector::TransferWriteOp>(*result.user_begin());
    if (write && write.hasPureBufferSemantics()) {
      rewriter.setInsertionPoint(write);
      if (std::optional<TileBlock> block = directBlock(rewriter, write)) {
        storeAll(*block);
        rewriter.eraseOp(write);
        return;
      }
    }
  }
  rewriter.setInsertionPointAfterValue(acc.back());
  Value buffer;
  TileBlock block = stackBlock(rewriter, loc, type, acc.back(), buffer);
  storeAll(block);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value vector = vector::TransferReadOp::create(
      rewriter, loc, type, buffer, ValueRange{zero, zero},
      /*padding=*/std::nullopt, ArrayRef<bool>{true, true});
  rewriter.replaceAllUsesWith(result, vector);
  tiles[vector] = llvm::to_vector(acc);
}

/// The tdpbf16ps of `contract` on the C tiles `acc` (row-major over the
/// block): B's column tiles loaded first, then each of A's row tiles and
/// its products (at most 4 C + 2 B + 1 A tiles live). Returns the new C
/// tiles.
SmallVector<Value> multiply(RewriterBase &rewriter,
                            vector::ContractionOp contract, ArrayRef<Value> acc,
                            AliasAnalysis &aliases) {
  Location loc = contract.getLoc();
  rewriter.setInsertionPoint(contract);
  VectorType lhsType = contract.getLhsType(), rhsType = contract.getRhsType();
  auto accType = cast<VectorType>(contract.getAccType());
  int64_t pairs = lhsType.getDimSize(1);
  TileBlock lhs =
      loadBlock(rewriter, loc, contract.getLhs(), contract, aliases);
  TileBlock rhs =
      loadBlock(rewriter, loc, contract.getRhs(), contract, aliases);
  auto rows = chunks(accType.getDimSize(0), kMaxTileRows);
  auto cols = chunks(accType.getDimSize(1), kMaxTileRows);
  SmallVector<Value> bTiles;
  for (auto [c0, cn] : cols)
    bTiles.push_back(
        rhs.load(rewriter, loc, subTileType(rhsType, pairs, cn), 0, c0));
  SmallVector<Value> result;
  int64_t i = 0;
  for (auto [r0, rn] : rows) {
    Value aTile =
        lhs.load(rewriter, loc, subTileType(lhsType, rn, pairs), r0, 0);
    for (Value bTile : bTiles) {
      result.push_back(amx::TileMulFOp::create(rewriter, loc, acc[i].getType(),
                                               aTile, bTile, acc[i]));
      ++i;
    }
  }
  return result;
}

/// The loop-carried accumulator of `contract`: the iter_arg of the
/// scf.for directly around it that is its accumulator, used by nothing
/// else, with the contraction's result, used by nothing else, yielded in
/// its place. -1 when there is none.
int64_t loopCarriedAccumulator(vector::ContractionOp contract) {
  auto loop = dyn_cast<scf::ForOp>(contract->getParentOp());
  auto arg = dyn_cast<BlockArgument>(contract.getAcc());
  if (!loop || !arg || arg.getOwner() != loop.getBody() ||
      arg.getArgNumber() == 0 || !arg.hasOneUse() ||
      !contract.getResult().hasOneUse())
    return -1;
  int64_t index = arg.getArgNumber() - 1;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (*contract.getResult().user_begin() != yield ||
      yield.getOperand(index) != contract.getResult())
    return -1;
  return index;
}

/// Rewrites the loop around `contract` to carry its accumulator as C tiles
/// (see loopCarriedAccumulator): loaded before the loop, multiplied into on
/// every step, stored after it.
void convertLoop(RewriterBase &rewriter, vector::ContractionOp contract,
                 int64_t index, DenseMap<Value, SmallVector<Value>> &tiles,
                 AliasAnalysis &aliases) {
  auto loop = cast<scf::ForOp>(contract->getParentOp());
  Location loc = loop.getLoc();
  auto vectorType = cast<VectorType>(contract.getAccType());
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> init = loadAccumulator(
      rewriter, loc, loop.getInitArgs()[index], loop, tiles, aliases);
  int64_t count = init.size();
  // The iter_args with the accumulator's tiles in its place.
  SmallVector<Value> inits = llvm::to_vector(loop.getInitArgs());
  inits.erase(inits.begin() + index);
  inits.insert(inits.begin() + index, init.begin(), init.end());
  auto newLoop =
      scf::ForOp::create(rewriter, loc, loop.getLowerBound(),
                         loop.getUpperBound(), loop.getStep(), inits);
  newLoop->setAttrs(loop->getAttrs());
  // The old body moves into the new loop; the vector accumulator argument,
  // whose one user is `contract`, is a placeholder until `contract` goes.
  // (With iter_args and no body builder, scf.for's builder makes an empty
  // body.)
  Block *body = newLoop.getBody();
  rewriter.setInsertionPointToStart(body);
  Value placeholder = ub::PoisonOp::create(rewriter, loc, vectorType);
  SmallVector<Value> args = {body->getArgument(0)};
  for (int64_t i = 0, e = loop.getNumRegionIterArgs(); i < e; ++i) {
    if (i < index)
      args.push_back(body->getArgument(1 + i));
    else if (i == index)
      args.push_back(placeholder);
    else
      args.push_back(body->getArgument(1 + i + count - 1));
  }
  auto tileArgs = llvm::to_vector(body->getArguments().slice(1 + index, count));
  SmallVector<Value> tileValues(tileArgs.begin(), tileArgs.end());
  rewriter.mergeBlocks(loop.getBody(), body, args);
  SmallVector<Value> products =
      multiply(rewriter, contract, tileValues, aliases);
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  SmallVector<Value> yielded = llvm::to_vector(yield.getOperands());
  yielded.erase(yielded.begin() + index);
  yielded.insert(yielded.begin() + index, products.begin(), products.end());
  rewriter.setInsertionPoint(yield);
  scf::YieldOp::create(rewriter, yield.getLoc(), yielded);
  rewriter.eraseOp(yield);
  rewriter.eraseOp(contract);
  rewriter.eraseOp(placeholder.getDefiningOp());
  // Results: the others as they were, the accumulator stored from its tiles.
  for (auto [i, result] : llvm::enumerate(loop.getResults())) {
    int64_t n = static_cast<int64_t>(i);
    if (n != index)
      rewriter.replaceAllUsesWith(
          result, newLoop.getResult(n < index ? n : n + count - 1));
  }
  SmallVector<Value> results(newLoop.getResults().slice(index, count));
  storeAccumulator(rewriter, loc, loop.getResult(index), results, tiles);
  rewriter.eraseOp(loop);
}

struct AmpCpuAmxTilesPass
    : public amp::impl::AmpCpuAmxTilesBase<AmpCpuAmxTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<amp::CpuTarget> target =
        amp::getCpuTarget(cpuFeatures, getOperation(), "amp-cpu-amx-tiles");
    if (failed(target))
      return signalPassFailure();
    if (!target->amx)
      return;
    // The contractions that fit tiles and the tile registers, in order.
    llvm::DenseSet<Operation *> selected =
        amp::selectAmxContractions(getOperation());
    SmallVector<vector::ContractionOp> contracts;
    getOperation().walk([&](vector::ContractionOp contract) {
      if (selected.contains(contract))
        contracts.push_back(contract);
    });
    IRRewriter rewriter(&getContext());
    // Vectors read back from tiles stored on the stack, and the tiles.
    DenseMap<Value, SmallVector<Value>> tiles;
    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    for (vector::ContractionOp contract : contracts) {
      int64_t index = loopCarriedAccumulator(contract);
      if (index >= 0) {
        convertLoop(rewriter, contract, index, tiles, aliases);
        continue;
      }
      // A single k step: the accumulator is loaded, multiplied into and
      // stored around this contraction alone.
      rewriter.setInsertionPoint(contract);
      SmallVector<Value> acc =
          loadAccumulator(rewriter, contract.getLoc(), contract.getAcc(),
                          contract, tiles, aliases);
      SmallVector<Value> products = multiply(rewriter, contract, acc, aliases);
      storeAccumulator(rewriter, contract.getLoc(), contract.getResult(),
                       products, tiles);
      rewriter.eraseOp(contract);
    }
    // Stack copies of tiles that only later contractions read (as tiles).
    for (auto &[vector, blockTiles] : tiles) {
      auto read = vector.getDefiningOp<vector::TransferReadOp>();
      if (!read || !read->use_empty())
        continue;
      Value buffer = read.getBase();
      rewriter.eraseOp(read);
      if (!llvm::all_of(buffer.getUsers(), [](Operation *user) {
            return isa<amx::TileStoreOp>(user);
          }))
        continue;
      for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
        rewriter.eraseOp(user);
      rewriter.eraseOp(buffer.getDefiningOp());
    }
  }
};

} // namespace
