//===- AmxTiles.cpp - AMX tiles for bf16 register tiles -------------------===//
//
// The `amp-cpu-amx-tiles` pass: on a CPU with AMX (AMX-TILE and AMX-BF16),
// the bf16 x bf16 -> f32 register tiles that amp-cpu-tile-and-vectorize
// left as `vector.contract`s in VNNI layout (A: M x K/2 x 2, B: K/2 x N x 2,
// C: M x N, at most 16 rows of 64 bytes each) become AMX tile operations:
// `amx.tile_load` of A and B straight from their buffers, one
// `amx.tile_mulf` (tdpbf16ps: 16 x 16 x 32 multiply-adds), and the
// accumulator kept in a tile register across the k loop (the loop carries
// an `!amx.tile`, which LLVM keeps in one tmm register: the accumulator is
// loaded before the loop and stored after it, not on every k step).
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

/// An AMX tile holds at most 16 rows of 64 bytes.
constexpr int64_t kMaxTileRows = 16;
constexpr int64_t kMaxTileRowBytes = 64;

/// True when `type` fits in a tile: its first dimension as rows, the others
/// (a VNNI pair dimension included) flattened into columns.
bool fitsTile(VectorType type) {
  if (type.getRank() != 2 && type.getRank() != 3)
    return false;
  int64_t cols = 1;
  for (int64_t d : type.getShape().drop_front())
    cols *= d;
  return type.getDimSize(0) <= kMaxTileRows &&
         cols * type.getElementTypeBitWidth() / 8 <= kMaxTileRowBytes;
}

/// The tile type that holds `type` (which fitsTile).
amx::TileType tileTypeFor(VectorType type) {
  int64_t cols = 1;
  for (int64_t d : type.getShape().drop_front())
    cols *= d;
  return amx::TileType::get({type.getDimSize(0), cols}, type.getElementType());
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
      lhsType.getDimSize(2) != 2 || rhsType.getDimSize(2) != 2 ||
      !fitsTile(lhsType) || !fitsTile(rhsType) || !fitsTile(accType))
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
  int64_t m = dims->m.front(), n = dims->n.front();
  int64_t k = dim(maps[0], 1), pair = dim(maps[0], 2);
  return dim(maps[0], 0) == m && k >= 0 && pair >= 0 && k != pair &&
         llvm::is_contained(dims->k, k) && llvm::is_contained(dims->k, pair) &&
         dim(maps[1], 0) == k && dim(maps[1], 1) == n &&
         dim(maps[1], 2) == pair && dim(maps[2], 0) == m &&
         dim(maps[2], 1) == n;
}

/// The AMX tile shape (rows, bytes per row) of a contraction operand.
static std::pair<int64_t, int64_t> amxTileShape(VectorType type) {
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  for (int64_t d : type.getShape().drop_front())
    bytes *= d;
  return {type.getDimSize(0), bytes};
}

llvm::DenseSet<Operation *>
mlir::amp::selectAmxContractions(func::FuncOp func) {
  constexpr int64_t kTileRegisters = 8;
  SmallVector<vector::ContractionOp> whole, partial;
  func.walk([&](vector::ContractionOp contract) {
    if (!isAmxContraction(contract))
      return;
    bool full = llvm::all_of(ArrayRef<Type>{contract.getLhsType(),
                                            contract.getRhsType(),
                                            contract.getAccType()},
                             [](Type t) {
                               return amxTileShape(cast<VectorType>(t)) ==
                                      std::pair<int64_t, int64_t>{16, 64};
                             });
    (full ? whole : partial).push_back(contract);
  });
  std::map<std::pair<int64_t, int64_t>, int64_t> registers;
  llvm::DenseSet<Operation *> selected;
  for (vector::ContractionOp contract :
       llvm::concat<vector::ContractionOp>(whole, partial)) {
    std::map<std::pair<int64_t, int64_t>, int64_t> uses;
    for (Type t : {Type(contract.getLhsType()), Type(contract.getRhsType()),
                   contract.getAccType()})
      ++uses[amxTileShape(cast<VectorType>(t))];
    std::map<std::pair<int64_t, int64_t>, int64_t> merged = registers;
    for (auto [shape, count] : uses)
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

/// The row stride, in elements, of a tile read or written directly by the
/// transfer `xfer`, when it can be: no mask, in bounds, on a memref, its
/// vector dimensions mapped to increasing buffer dimensions, the last one
/// the buffer's innermost (unit stride) and, for a VNNI vector (rows x
/// cols x 2), the cols dimension the next one out covering the whole pair
/// dimension (rows of cols x 2 contiguous elements). Null otherwise.
Value directRowStride(RewriterBase &rewriter, VectorTransferOpInterface xfer) {
  auto memrefType = dyn_cast<MemRefType>(xfer.getShapedType());
  VectorType vectorType = xfer.getVectorType();
  if (!memrefType || xfer.getMask() || xfer.hasOutOfBoundsDim() ||
      !fitsTile(vectorType))
    return nullptr;
  AffineMap map = xfer.getPermutationMap();
  int64_t rank = memrefType.getRank(), vecRank = vectorType.getRank();
  if (map.getNumResults() != vecRank)
    return nullptr;
  SmallVector<int64_t> memDims;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || (!memDims.empty() && d.getPosition() <= memDims.back()))
      return nullptr;
    memDims.push_back(d.getPosition());
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memrefType.getStridesAndOffset(strides, offset)))
    return nullptr;
  if (memDims.back() != rank - 1 || strides[rank - 1] != 1)
    return nullptr;
  if (vecRank == 3) {
    int64_t pairs = vectorType.getDimSize(2);
    if (memDims[1] != rank - 2 || memrefType.getDimSize(rank - 1) != pairs ||
        strides[rank - 2] != pairs)
      return nullptr;
  }
  int64_t rowDim = memDims.front();
  Location loc = xfer.getLoc();
  if (!ShapedType::isDynamic(strides[rowDim]))
    return arith::ConstantIndexOp::create(rewriter, loc, strides[rowDim]);
  auto metadata =
      memref::ExtractStridedMetadataOp::create(rewriter, loc, xfer.getBase());
  return metadata.getStrides()[rowDim];
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

/// A tile holding the vector `value`, an operand of `user` (the insertion
/// point), loaded at `user`: every tile lives from its load to its one use.
/// (A tile loaded where loop-invariant code motion hoisted its read would
/// hold one of the 8 tile registers across the loops; LLVM does not spill
/// AMX tiles and stops with "ran out of registers".) Loaded from the
/// buffer that `value` was read from when its transfer_read allows
/// (directRowStride) and nothing may write that buffer until `user`; else
/// `value` is copied to a stack buffer where it is defined and the tile
/// loaded from there.
Value loadTile(RewriterBase &rewriter, Location loc, Value value,
               Operation *user, const DenseMap<Value, Value> &tiles,
               AliasAnalysis &aliases) {
  if (Value tile = tiles.lookup(value))
    return tile;
  auto type = cast<VectorType>(value.getType());
  amx::TileType tileType = tileTypeFor(type);
  if (auto read = value.getDefiningOp<vector::TransferReadOp>();
      read && read.hasPureBufferSemantics()) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(read);
    if (unchangedUntil(read, user, aliases)) {
      if (Value stride = directRowStride(rewriter, read)) {
        // The stride and indices are defined before `read`, so before
        // `user`.
        rewriter.setInsertionPoint(user);
        return amx::TileLoadOp::create(rewriter, loc, tileType, read.getBase(),
                                       read.getIndices(), stride);
      }
    }
  }
  auto bufferType =
      MemRefType::get(tileType.getShape(), tileType.getElementType());
  Value buffer = stackBuffer(rewriter, loc, bufferType, value);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    // After `value`, and after the buffer for an argument of its block.
    rewriter.setInsertionPointAfterValue(value);
    if (isa<BlockArgument>(value) &&
        buffer.getParentBlock() == value.getParentBlock())
      rewriter.setInsertionPointAfterValue(buffer);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value flat = vector::ShapeCastOp::create(
        rewriter, loc,
        VectorType::get(tileType.getShape(), tileType.getElementType()), value);
    vector::TransferWriteOp::create(rewriter, loc, flat, buffer,
                                    ValueRange{zero, zero});
  }
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  return amx::TileLoadOp::create(rewriter, loc, tileType, buffer,
                                 ValueRange{zero, zero});
}

/// Replaces `result`, a vector, by the contents of `tile`: stored straight
/// into the buffer of its one transfer_write user when that allows
/// (directRowStride), else through a stack buffer read back as a vector,
/// which `tiles` maps to `tile` (a later contraction that takes it as its
/// accumulator, the peeled remainder of a k loop, takes the tile itself;
/// the pass removes the stack copy when nothing else reads it).
void storeTile(RewriterBase &rewriter, Location loc, Value result, Value tile,
               DenseMap<Value, Value> &tiles) {
  if (result.hasOneUse()) {
    auto write = dyn_cast<vector::TransferWriteOp>(*result.user_begin());
    if (write && write.hasPureBufferSemantics()) {
      rewriter.setInsertionPoint(write);
      if (Value stride = directRowStride(rewriter, write)) {
        amx::TileStoreOp::create(rewriter, write.getLoc(), write.getBase(),
                                 write.getIndices(), tile, stride);
        rewriter.eraseOp(write);
        return;
      }
    }
  }
  auto tileType = cast<amx::TileType>(tile.getType());
  auto bufferType =
      MemRefType::get(tileType.getShape(), tileType.getElementType());
  Value buffer = stackBuffer(rewriter, loc, bufferType, tile);
  rewriter.setInsertionPointAfterValue(tile);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  amx::TileStoreOp::create(rewriter, loc, buffer, ValueRange{zero, zero}, tile);
  Value vector = vector::TransferReadOp::create(
      rewriter, loc, cast<VectorType>(result.getType()), buffer,
      ValueRange{zero, zero}, /*padding=*/std::nullopt,
      ArrayRef<bool>{true, true});
  rewriter.replaceAllUsesWith(result, vector);
  tiles[vector] = tile;
}

/// The tdpbf16ps of `contract` on the accumulator tile `acc`.
Value multiply(RewriterBase &rewriter, vector::ContractionOp contract,
               Value acc, const DenseMap<Value, Value> &tiles,
               AliasAnalysis &aliases) {
  Location loc = contract.getLoc();
  rewriter.setInsertionPoint(contract);
  Value lhs =
      loadTile(rewriter, loc, contract.getLhs(), contract, tiles, aliases);
  Value rhs =
      loadTile(rewriter, loc, contract.getRhs(), contract, tiles, aliases);
  return amx::TileMulFOp::create(rewriter, loc, acc.getType(), lhs, rhs, acc);
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

/// Rewrites the loop around `contract` to carry its accumulator as a tile
/// (see loopCarriedAccumulator): loaded before the loop, multiplied into on
/// every step, stored after it.
void convertLoop(RewriterBase &rewriter, vector::ContractionOp contract,
                 int64_t index, DenseMap<Value, Value> &tiles,
                 AliasAnalysis &aliases) {
  auto loop = cast<scf::ForOp>(contract->getParentOp());
  Location loc = loop.getLoc();
  auto vectorType = cast<VectorType>(contract.getAccType());
  rewriter.setInsertionPoint(loop);
  Value init =
      loadTile(rewriter, loc, loop.getInitArgs()[index], loop, tiles, aliases);
  SmallVector<Value> inits = llvm::to_vector(loop.getInitArgs());
  inits[index] = init;
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
  SmallVector<Value> args(body->getArguments().begin(),
                          body->getArguments().end());
  Value tileArg = args[index + 1];
  args[index + 1] = placeholder;
  rewriter.mergeBlocks(loop.getBody(), body, args);
  Value product = multiply(rewriter, contract, tileArg, tiles, aliases);
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(index, product); });
  rewriter.eraseOp(contract);
  rewriter.eraseOp(placeholder.getDefiningOp());
  // Results: the others as they were, the accumulator stored from its tile.
  for (auto [i, result] : llvm::enumerate(loop.getResults()))
    if (static_cast<int64_t>(i) != index)
      rewriter.replaceAllUsesWith(result, newLoop.getResult(i));
  storeTile(rewriter, loc, loop.getResult(index), newLoop.getResult(index),
            tiles);
  rewriter.eraseOp(loop);
}

struct AmpCpuAmxTilesPass
    : public amp::impl::AmpCpuAmxTilesBase<AmpCpuAmxTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<amp::CpuTarget> target = amp::getCpuTarget(cpuFeatures);
    if (failed(target)) {
      emitError(getOperation().getLoc())
          << "amp-cpu-amx-tiles: cpu-features must be host, generic, "
             "avx512bf16 or amx, got '"
          << cpuFeatures << "'";
      return signalPassFailure();
    }
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
    // Vectors read back from a tile stored on the stack, and the tile.
    DenseMap<Value, Value> tiles;
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
      Value acc = loadTile(rewriter, contract.getLoc(), contract.getAcc(),
                           contract, tiles, aliases);
      Value product = multiply(rewriter, contract, acc, tiles, aliases);
      storeTile(rewriter, contract.getLoc(), contract.getResult(), product,
                tiles);
      rewriter.eraseOp(contract);
    }
    // Stack copies of tiles that only later contractions read (as tiles).
    for (auto [vector, tile] : tiles) {
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
