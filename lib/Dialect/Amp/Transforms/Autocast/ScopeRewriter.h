//===- ScopeRewriter.h - rewriting one autocast scope -----------*- C++ -*-===//
//
// ScopeRewriter applies the cast policy to one autocast scope (an
// amp.autocast region or a decorated function's body): it decides each op's
// compute type (eager: op by op; graph: from GraphPainter's colours),
// retypes the op (Retype.h) and inserts the amp.cast ops its operands need.
// Its member functions live in one file per stage: ScopeRewriter.cpp (the
// per-op decision and rewrite), EagerLoops.cpp, CarryLowValues.cpp and
// CastCache.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_SCOPEREWRITER_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_SCOPEREWRITER_H

#include "Decision.h"
#include "GraphPainter.h"

#include "../Retype.h"

#include "amp/Dialect/Amp/Policy/CastPolicy.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::amp::autocast {

/// The type every retyped value had before the pass. Nearly every op of a
/// scope records its results, while only keep ops and regions the pass does
/// not process ask: records are appended to a list, and the map is built at
/// the first question.
class OriginalTypes {
public:
  void record(Value v, Type type) {
    if (index.empty())
      records.emplace_back(v, type);
    else
      index[v] = type;
  }

  /// The type `v` had before the pass, or null when the pass did not retype
  /// it.
  Type lookup(Value v) {
    if (index.empty() && !records.empty()) {
      index.reserve(records.size());
      for (auto [value, type] : records)
        index[value] = type;
      records.clear();
    }
    return index.lookup(v);
  }

  void clear() {
    records.clear();
    index.clear();
  }

private:
  SmallVector<std::pair<Value, Type>> records;
  DenseMap<Value, Type> index;
};

/// Applies the cast policy to one scope (see the file comment). One
/// rewriter serves one scope; the pass runs one per scope, outermost first.
class ScopeRewriter {
public:
  ScopeRewriter(const Scope &scope, Mode mode, bool annotate,
                const CastPolicyOverrides &overrides, Counters &counters,
                OriginalTypes &originalTypes, RetypeVerifier &verifier)
      : scope(scope), mode(scope.config.getEnabled() ? mode : Mode::eager),
        enabled(scope.config.getEnabled()),
        cacheEnabled(scope.config.getCacheEnabled()), annotate(annotate),
        low(scope.config.getLowerPrecisionType()),
        f32(Float32Type::get(scope.owner->getContext())),
        policy(scope.config.getDeviceType(), overrides), counters(counters),
        originalTypes(originalTypes), verifier(verifier) {}

  /// Rewrites the scope: graph mode paints its ops first, then every op is
  /// decided and retyped in program order; graph mode ends by carrying low
  /// values through loops and branches. Fails only when a retyped op
  /// cannot be rebuilt (a diagnostic is emitted).
  LogicalResult run();

  /// The ops with regions that this scope holds and did not process op by
  /// op (nested autocast ops, structured ops, unknown ops; the bodies of
  /// structural ops are processed): the nested scopes can only be found in
  /// them, once the scope is rewritten.
  ArrayRef<Operation *> getUnprocessedRegionOps() const {
    return unprocessedRegionOps;
  }

private:
  //===--- Deciding and rewriting op by op (ScopeRewriter.cpp)

  /// Collects the ops of the scope that the policy decides, in program order.
  void collect(Region &region, SmallVectorImpl<Operation *> &ops,
               SmallVectorImpl<CastCategory> &cats);

  /// Graph mode: collects and paints the scope's decided ops (GraphPainter).
  void paintGraph();

  /// Graph mode: the category and colour painted for `op`, if it was
  /// painted. processRegion meets the existing ops in the order collect()
  /// listed them (both walk blocks in dominance order), so the painted ops
  /// come up one after another at a cursor; any other op was not painted.
  std::optional<std::pair<CastCategory, Paint>> findDecision(Operation *op);

  /// The value of `v` when a constant op defines it, else null; remembered
  /// (one epsilon constant feeds every block of a stack). Only for operands
  /// of the region's ops: their constants stay until the pass erases dead
  /// helpers, while a payload's constants go with a rebuilt op.
  Attribute getConstantValue(Value v);

  /// isSource, remembered for fills: the answer looks at every use, and a
  /// fill shared by the inits of a whole transformer stack has thousands.
  /// (Fills are not erased while a scope is rewritten, so no entry goes
  /// stale.)
  bool isSourceOp(Operation *op);

  /// Meets the ops in the order collect() lists them.
  LogicalResult processRegion(Region &region);

  /// Remembers `op` for getUnprocessedRegionOps when it has regions.
  void noteRegions(Operation *op);

  /// Decides and rewrites one op: sources are left for their users,
  /// terminators keep their successors' types, structural ops are entered,
  /// every other op the policy decides is retyped.
  LogicalResult processOp(Operation *op);

  /// A remark on a structured op that works on f32/f16/bf16 memrefs: the
  /// policy does not decide it (buffers are not retyped), say so.
  void remarkOnBuffers(Operation *op);

  /// The compute type of a decided op, before constant-range checks.
  /// `paint` is its graph-mode colour (none in eager mode).
  FloatType decideComputeType(Operation *op, CastCategory cat, Paint paint);

  /// Retypes a decided op to its compute type, falling back to f32 (with a
  /// remark or warning) when a constant does not fit or the retyped op does
  /// not verify, and records statistics.
  LogicalResult processDecided(Operation *op, CastCategory cat, Paint paint);

  /// A `keep` op reads its operands, and the values its regions capture, at
  /// the types they were written with.
  LogicalResult processKeep(Operation *op);

  /// Gives `operand` (used by `user` or an op nested in it) back the type
  /// its value had before the pass retyped it.
  void restoreOriginalType(OpOperand &operand, Operation *user);

  /// The regions of ops the pass does not process op by op (tensor.generate,
  /// scf.forall, affine.for, unknown ops, keep ops) read captured values at
  /// their written types.
  void restoreCapturedTypes(Operation *op);

  /// Values flowing into region arguments keep those arguments' types.
  void castEntryOperands(Operation *op);

  /// Terminators forward values at the types their successors declare:
  /// loop-carried values, scf.if results, the region's results, and a
  /// decorated function's results do not change type.
  LogicalResult processTerminator(Operation *op);

  //===--- Eager mode: scf.for, iteration by iteration (EagerLoops.cpp)

  /// What a processed scf.for's body yields for its carried values, before
  /// the casts the pass put at the yield (back to the carried types).
  SmallVector<Value> producedValues(scf::ForOp loop);

  SmallVector<Type> producedTypes(scf::ForOp loop);

  /// Eager mode, an scf.for. PyTorch runs each iteration on what the one
  /// before produced: the first on the initial values as they arrive (bf16
  /// after a matmul, say), and a carried value that the body turns from f32
  /// into f16 is f16 from the second iteration on, as is the loop's result.
  /// So the carried values first take the types their initial values have,
  /// and the loop is processed: that is its first iteration. When the body
  /// produces other types than it was given and the trip count is a
  /// constant, the first iteration is peeled: the processed body is inlined
  /// before the loop (iteration variable = lower bound, no casts at its
  /// yield), and, for two trips or more, a copy of the unprocessed loop
  /// runs the remaining iterations carrying the types the first one
  /// produced. A loop of unknown trip count carries its first iteration's
  /// types, with a remark (exact in the first iteration only); so does the
  /// copy, with a remark, if its body changes the types again.
  LogicalResult processEagerLoop(scf::ForOp loop);

  /// Gives the iteration arguments and results of `loop` the float types
  /// `types` (where they differ), recording the results' written types.
  void setCarriedTypes(scf::ForOp loop, TypeRange types);

  /// Moves the processed body of `loop` before it, as its first iteration
  /// (the iteration variable is the lower bound, the carried values the
  /// initial ones), and returns the values its yield carried, without the
  /// casts the pass put there.
  SmallVector<Value> inlineFirstIteration(scf::ForOp loop);

  /// Points the users of `loop`'s results at `values`, recording the
  /// results' written types for the ones of another type.
  void replaceCarriedValues(scf::ForOp loop, ValueRange values);

  //===--- Graph mode: low values through loops and branches
  //(CarryLowValues.cpp)

  /// Graph mode, after the rewrite: a value that an scf.for carries or an
  /// scf.if returns takes the low type when it is low on every path, which
  /// removes the casts at the loop edge and in the branches (fewer casts,
  /// same values). The rewrite above kept loop-carried values and branch
  /// results at their written types, casting around them. Only where the
  /// same values reach every use:
  /// - scf.for value i: the body yields `amp.cast %v : low -> f32`; every
  ///   use of the iteration argument casts it to low, unless the init is
  ///   itself a cast from low (then other uses get a cast back to f32); and
  ///   every use of the loop result casts it to low, unless the init is a
  ///   cast from low or the loop runs at least once (a loop that does not
  ///   run returns the init unrounded).
  /// - scf.if result i: both branches yield a cast from low; other uses of
  ///   the result get a cast back to f32.
  /// Loops are visited innermost first. scf.while keeps its types.
  void carryLowValues();

  /// `x` when `v` is `amp.cast %x` from the low type to f32.
  Value castFromLow(Value v) const;

  bool isCastToLow(OpOperand &use) const;

  /// Gives `v` (an f32 value being retyped to low) to its uses: casts to low
  /// take `v` itself, other uses an f32 cast of it made by `makeUpCast`.
  void replaceUsesOfLow(Value v, function_ref<Value()> makeUpCast);

  /// An f32 cast of the low value `v`, made at `b`'s insertion point.
  Value castUpAt(OpBuilder &b, Value v);

  /// An f32 cast of `result` (low) right after its op.
  Value castUpAfter(Operation *op, Value result);

  /// Erases a cast that this rewrite made and no longer needs.
  void eraseCast(Operation *cast);

  /// Sets operand `i` of `yield` to `lowValue`, erasing the cast it replaces
  /// when nothing else uses it.
  void yieldLow(Operation *yield, unsigned i, Value lowValue);

  void carryLowThroughLoop(scf::ForOp forOp);

  void carryLowThroughIf(scf::IfOp ifOp);

  //===--- Casts: the weight-cast cache and where casts go (CastCache.cpp)

  Value castToType(Value v, Type type, Operation *user);

  /// Where the cached cast of `v` goes: right after its definition inside
  /// the region, or at region entry for values from outside (weights).
  void setCastInsertionPoint(OpBuilder &b, Value v);

  /// `v` converted to element type `elem`, valid at `user`.
  Value castTo(Value v, FloatType elem, Operation *user);

  //===--- State

  const Scope &scope;
  Mode mode;
  bool enabled, cacheEnabled, annotate;
  FloatType low, f32;
  CastPolicy policy;
  Counters &counters;
  /// isSourceOp's answers for fills.
  DenseMap<Operation *, bool> sourceFills;
  /// Graph mode: the scf.for and scf.if ops of this scope, in the order
  /// processOp met them (an op before the ops nested in it), for
  /// carryLowValues.
  SmallVector<Operation *> carryCandidates;
  /// See getUnprocessedRegionOps.
  SmallVector<Operation *> unprocessedRegionOps;
  /// getConstantValue's answers.
  DenseMap<Value, Attribute> constantValues;
  /// Graph mode: the painted ops in program order, their categories and
  /// colours (see findDecision).
  SmallVector<Operation *> paintedOps;
  SmallVector<CastCategory> paintedCategories;
  SmallVector<Paint> paintedColours;
  size_t nextPainted = 0;
  /// (value, element type) -> the value converted, for the cache.
  DenseMap<std::pair<Value, Type>, Value> castCache;
  OriginalTypes &originalTypes;
  RetypeVerifier &verifier;
};

} // namespace mlir::amp::autocast

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_SCOPEREWRITER_H
