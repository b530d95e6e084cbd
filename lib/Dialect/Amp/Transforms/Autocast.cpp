//===- Autocast.cpp - autocast type propagation ---------------------------===//
//
// The `amp-autocast` pass: for every enabled autocast region (amp.autocast op
// or decorated function), decide each op's compute type from the cast policy
// (eager: op by op as PyTorch; graph: dataflow painting as OneFlow and
// TensorFlow), insert amp.cast where a value changes type (once per value and
// type with the weight-cast cache), rebuild the ops at their new types, and
// inline the region. The algorithm is documented step by step in
// docs/Autocast.md.
//
//===----------------------------------------------------------------------===//

#include "Retype.h"

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Dialect/Amp/Policy/CastPolicy.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Support/Statistics.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <deque>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPAUTOCAST
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

enum class Mode { graph, eager };

/// An autocast region: the body of an amp.autocast op or of a decorated
/// function.
struct Scope {
  Operation *owner;
  Region *region;
  AutocastAttr config;
};

/// Statistics of one pass run, shared by its scopes (see recordStatistics).
struct Counters {
  uint64_t opsF16 = 0, opsBF16 = 0, opsF32 = 0, castsCached = 0,
           castsHoisted = 0, constantsNarrowed = 0, keptF32 = 0;
  /// The amp.cast ops the pass made that are still there: some are erased
  /// again (a cast the loop-carried rewrite or the dead-helper cleanup no
  /// longer needs).
  DenseSet<Operation *> insertedCasts;
};

/// Sources carry no compute: constants and shape-only tensors are converted
/// (at compile time) where their users need another type. A constant fill
/// that only initialises structured ops' accumulators is one too: each user
/// rebuilds it at its own compute type.
bool isSource(Operation *op) {
  if (isa<arith::ConstantOp, tosa::ConstOp, tensor::EmptyOp>(op))
    return true;
  auto fill = dyn_cast<linalg::FillOp>(op);
  if (!fill || !isRematerializableInit(fill.getResult(0)))
    return false;
  return llvm::all_of(fill.getResult(0).getUses(), [](OpOperand &use) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    return dps && DpsInitRange(dps).contains(use);
  });
}

/// The blocks of `region`, each after the blocks that dominate it: a value
/// is retyped before its uses are met, whatever order the blocks are
/// written in (a use may be listed before its definition).
SmallVector<Block *> getBlocksInDominanceOrder(Region &region) {
  if (region.hasOneBlock())
    return {&region.front()};
  return llvm::to_vector(getBlocksSortedByDominance(region));
}

/// Whether `name` is one of `Ops`.
template <typename... Ops> bool isOneOf(OperationName name) {
  return ((name.getTypeID() == TypeID::get<Ops>()) || ...);
}

/// Ops whose regions belong to the enclosing autocast region: their bodies
/// are processed op by op, their region arguments and results keep types.
bool isStructural(OperationName name) {
  return isOneOf<scf::ForOp, scf::WhileOp, scf::IfOp, scf::ExecuteRegionOp,
                 scf::IndexSwitchOp>(name);
}
bool isStructural(Operation *op) { return isStructural(op->getName()); }

/// Why the cast policy never decides ops named `name` (so that a policy
/// option naming them has no effect), or nothing: terminators, control flow
/// whose bodies autocast processes, functions and modules, constants
/// (converted where their users need), autocast regions.
std::optional<StringRef> whyNeverDecided(OperationName name) {
  if (name.hasTrait<OpTrait::IsTerminator>())
    return StringRef("a terminator");
  if (isStructural(name))
    return StringRef("control flow whose body autocast processes op by op");
  if (name.hasTrait<OpTrait::SymbolTable>() ||
      name.hasInterface<FunctionOpInterface>())
    return StringRef("a module or function");
  if (isOneOf<arith::ConstantOp, tosa::ConstOp, tensor::EmptyOp>(name))
    return StringRef("a constant, converted where its users need it");
  if (isOneOf<AutocastOp, CastOp>(name))
    return StringRef("an amp op");
  return std::nullopt;
}

/// Zero points and pad constants of tosa ops (one-element tensors): they
/// carry none of the op's input data and have no counterpart in PyTorch, so
/// they do not decide the widest input type. Retyping casts them with the
/// op.
bool isTosaZeroPointOrPadConst(OpOperand &operand) {
  return TypeSwitch<Operation *, bool>(operand.getOwner())
      .Case([&](tosa::NegateOp op) {
        return &operand == &op.getInput1ZpMutable() ||
               &operand == &op.getOutputZpMutable();
      })
      .Case([&](tosa::AvgPool2dOp op) {
        return &operand == &op.getInputZpMutable() ||
               &operand == &op.getOutputZpMutable();
      })
      .Case(
          [&](tosa::PadOp op) { return &operand == &op.getPadConstMutable(); })
      .Case([&](tosa::MatMulOp op) {
        return &operand == &op.getAZpMutable() ||
               &operand == &op.getBZpMutable();
      })
      .Case<tosa::Conv2DOp, tosa::Conv3DOp, tosa::DepthwiseConv2DOp,
            tosa::TransposeConv2DOp>([&](auto op) {
        return &operand == &op.getInputZpMutable() ||
               &operand == &op.getWeightZpMutable();
      })
      .Default(false);
}

/// Float data operands of `op` that decide "the widest input type": tensor
/// operands when there are any (scalars do not promote tensors, as Python
/// scalars do not in PyTorch), else scalars; never tosa zero points or pad
/// constants. Inits of structured ops count only when the payload reads
/// them and they carry data; a `tensor.empty` (a pooling window, say)
/// carries none. The destination of any other destination-style op
/// (`tensor.insert_slice`, `tensor.insert`) is data: its elements outside
/// the inserted part are the result's, as a slice assignment into a tensor
/// keeps the tensor's dtype in PyTorch.
SmallVector<Value> getDataOperands(Operation *op) {
  SmallVector<Value> tensors, scalars;
  auto linalgOp = getStructuredOp(op);
  std::optional<DpsInitRange> inits;
  if (linalgOp)
    inits.emplace(cast<DestinationStyleOpInterface>(op));
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (!isAutocastFloat(v.getType()) || v.getDefiningOp<tensor::EmptyOp>() ||
        isTosaZeroPointOrPadConst(operand))
      continue;
    if (inits && inits->contains(operand)) {
      if (!linalgOp.payloadUsesValueFromOperand(&operand) ||
          isRematerializableInit(v))
        continue;
    }
    (isa<ShapedType>(v.getType()) ? tensors : scalars).push_back(v);
  }
  return tensors.empty() ? scalars : tensors;
}

FloatType widestOf(ArrayRef<Value> values) {
  FloatType widest;
  for (Value v : values)
    widest = widestFloatType(
        widest, cast<FloatType>(getElementTypeOrSelf(v.getType())));
  return widest;
}

/// The first float constant feeding `op` (directly, through a fill init, or
/// inside its payload) that does not fit in `type`. `constantOf(v)` is the
/// value of an operand of `op` that a constant op defines, else null (the
/// caller may remember it); constants inside the payload are matched here.
Attribute findNonFittingConstant(Operation *op, FloatType type,
                                 function_ref<Attribute(Value)> constantOf) {
  auto matchConstant = [](Value v) {
    Attribute attr;
    matchPattern(v, m_Constant(&attr));
    return attr;
  };
  auto check = [&](Value v, auto lookup) -> Attribute {
    if (!isAutocastFloat(v.getType()))
      return {};
    if (Attribute attr = lookup(v))
      return constantFitsIn(attr, type) ? Attribute() : attr;
    if (auto fill = v.getDefiningOp<linalg::FillOp>())
      if (Attribute attr = lookup(fill.value()))
        if (!constantFitsIn(attr, type))
          return attr;
    return {};
  };
  for (Value v : op->getOperands())
    if (Attribute bad = check(v, constantOf))
      return bad;
  Attribute bad;
  for (Region &region : op->getRegions())
    region.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!bad)
          bad = check(v, matchConstant);
      return bad ? WalkResult::interrupt() : WalkResult::advance();
    });
  return bad;
}

//===----------------------------------------------------------------------===//
// Graph-mode painting
//===----------------------------------------------------------------------===//

/// Colours of graph mode (TensorFlow: allow / deny).
enum class Paint { none, low, f32 };

/// Dataflow painting over the ops of one region, after TensorFlow's
/// auto_mixed_precision (see docs/Autocast.md for the steps).
class GraphPainter {
public:
  GraphPainter(ArrayRef<Operation *> ops, ArrayRef<CastCategory> categories,
               Operation *terminator)
      : categories(categories) {
    DenseMap<Operation *, unsigned> index;
    index.reserve(ops.size());
    for (auto [i, op] : llvm::enumerate(ops))
      index[op] = i;
    // Edges (producer, consumer), then both adjacency lists in compressed
    // form: one array each instead of two small vectors per node keeps the
    // graph of a 1e5-op function in a few megabytes.
    SmallVector<std::pair<unsigned, unsigned>> edges;
    edges.reserve(2 * ops.size());
    for (auto [i, op] : llvm::enumerate(ops))
      for (Value v : getEdgeOperands(op))
        if (Operation *def = v.getDefiningOp())
          if (auto it = index.find(def); it != index.end())
            edges.emplace_back(it->second, i);
    buildAdjacency(edges, /*forward=*/true, succBegin, succList);
    buildAdjacency(edges, /*forward=*/false, predBegin, predList);
    if (terminator)
      for (Value v : terminator->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (auto it = index.find(def); it != index.end())
            sinkPreds.push_back(it->second);
    // Ops whose results reach an op outside the graph: the region's
    // terminator, an scf.yield or scf.for init (the value leaves through
    // the loop's or the branch's results), an op of another region.
    escapes.assign(ops.size(), false);
    for (auto [i, op] : llvm::enumerate(ops))
      escapes[i] = llvm::any_of(op->getUsers(), [&](Operation *user) {
        return !index.contains(user);
      });
  }

  SmallVector<Paint> paint() {
    size_t n = categories.size();
    SmallVector<Paint> colour(n, Paint::none);
    auto is = [&](unsigned i, auto... cats) {
      return ((categories[i] == cats) || ...);
    };
    using CC = CastCategory;
    // Promote ops let the painting through like infer ops; at rewrite time
    // they still run at the widest type of their inputs (never narrowing).
    auto isFlow = [&](unsigned i) {
      return is(i, CC::infer, CC::clear, CC::promote);
    };
    auto nodesOf = [&](auto... cats) {
      SmallVector<unsigned> result;
      for (unsigned i = 0; i < n; ++i)
        if (is(i, cats...))
          result.push_back(i);
      return result;
    };

    // 1. Lower ops are low.
    for (unsigned i : nodesOf(CC::lower))
      colour[i] = Paint::low;

    // 2. fp32 spreads forward: mark infer/fp32 ops and the clear ops that
    //    feed them (walking back through clear ops only), then paint f32
    //    every marked infer/clear op reachable forward from an fp32 op.
    SmallVector<bool> upstreamOfF32OrInfer(n, false);
    SmallVector<unsigned> seeds = nodesOf(CC::fp32, CC::infer);
    for (unsigned i : seeds)
      upstreamOfF32OrInfer[i] = true;
    flood(seeds, Direction::backward, [&](unsigned p) {
      if (!is(p, CC::clear) || upstreamOfF32OrInfer[p])
        return false;
      return upstreamOfF32OrInfer[p] = true;
    });
    SmallVector<bool> forcedF32(n, false);
    flood(nodesOf(CC::fp32), Direction::forward, [&](unsigned s) {
      if (!isFlow(s) || !upstreamOfF32OrInfer[s] || forcedF32[s])
        return false;
      colour[s] = Paint::f32;
      return forcedF32[s] = true;
    });

    // 3. Infer/clear ops on a path between lower ops (or from a lower op to
    //    the region's results) are low: mark what lies downstream of a lower
    //    op, then paint back from lower ops and the results.
    SmallVector<bool> downstreamOfLower(n, false);
    flood(nodesOf(CC::lower), Direction::forward, [&](unsigned s) {
      if (!isFlow(s) || forcedF32[s] || downstreamOfLower[s])
        return false;
      return downstreamOfLower[s] = true;
    });
    auto paintBack = [&](unsigned i) {
      if (colour[i] != Paint::none || !downstreamOfLower[i])
        return false;
      colour[i] = Paint::low;
      return true;
    };
    SmallVector<unsigned> lowSeeds = nodesOf(CC::lower);
    for (unsigned i : sinkPreds)
      if (paintBack(i))
        lowSeeds.push_back(i);
    flood(lowSeeds, Direction::backward, paintBack);

    // 4. Clear ops next to a low op move data in low precision: after it
    //    (its data is low already), and before it where every user of the
    //    clear op is low and its value does not leave the graph (otherwise
    //    the f32 users, the region's results, a branch's or loop's results
    //    would read rounded data; a cast after the clear op serves the low
    //    users).
    SmallVector<unsigned> low;
    for (unsigned i = 0; i < n; ++i)
      if (colour[i] == Paint::low)
        low.push_back(i);
    auto paintClearAfter = [&](unsigned j) {
      if (!is(j, CC::clear) || colour[j] != Paint::none)
        return false;
      colour[j] = Paint::low;
      return true;
    };
    flood(low, Direction::forward, paintClearAfter);
    low.clear();
    for (unsigned i = 0; i < n; ++i)
      if (colour[i] == Paint::low)
        low.push_back(i);
    auto paintClearBefore = [&](unsigned j) {
      if (!is(j, CC::clear) || colour[j] != Paint::none || escapes[j] ||
          !llvm::all_of(neighbours(succBegin, succList, j),
                        [&](unsigned s) { return colour[s] == Paint::low; }))
        return false;
      colour[j] = Paint::low;
      return true;
    };
    flood(low, Direction::backward, paintClearBefore);
    return colour;
  }

private:
  /// Operands that carry data from another op: every operand but shape-only
  /// inits (an i1 from a comparison links it to the select that reads it).
  static SmallVector<Value> getEdgeOperands(Operation *op) {
    SmallVector<Value> result;
    std::optional<DpsInitRange> inits;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      inits.emplace(dps);
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (inits && inits->contains(operand) && isRematerializableInit(v))
        continue;
      result.push_back(v);
    }
    return result;
  }

  enum class Direction { forward, backward, both };

  /// Visits the nodes reachable from `seeds` along successor and/or
  /// predecessor edges; `enter(node)` marks a node and says whether to go on
  /// from it.
  template <typename EnterFn>
  void flood(ArrayRef<unsigned> seeds, Direction direction, EnterFn enter) {
    SmallVector<unsigned> work(seeds);
    while (!work.empty()) {
      unsigned i = work.pop_back_val();
      if (direction != Direction::backward)
        for (unsigned j : neighbours(succBegin, succList, i))
          if (enter(j))
            work.push_back(j);
      if (direction != Direction::forward)
        for (unsigned j : neighbours(predBegin, predList, i))
          if (enter(j))
            work.push_back(j);
    }
  }

  /// Compressed adjacency: the neighbours of node i are
  /// list[begin[i] .. begin[i + 1]), successors (`forward`) or predecessors.
  void buildAdjacency(ArrayRef<std::pair<unsigned, unsigned>> edges,
                      bool forward, SmallVectorImpl<unsigned> &begin,
                      SmallVectorImpl<unsigned> &list) {
    begin.assign(categories.size() + 1, 0);
    for (auto [from, to] : edges)
      ++begin[(forward ? from : to) + 1];
    for (size_t i = 1; i < begin.size(); ++i)
      begin[i] += begin[i - 1];
    list.resize(edges.size());
    SmallVector<unsigned> next(begin.begin(), begin.end() - 1);
    for (auto [from, to] : edges)
      list[next[forward ? from : to]++] = forward ? to : from;
  }

  static ArrayRef<unsigned> neighbours(ArrayRef<unsigned> begin,
                                       ArrayRef<unsigned> list, unsigned i) {
    return list.slice(begin[i], begin[i + 1] - begin[i]);
  }

  ArrayRef<CastCategory> categories;
  SmallVector<unsigned> succBegin, succList, predBegin, predList;
  SmallVector<unsigned> sinkPreds;
  /// Whether each op's results are used outside the graph (see the
  /// constructor).
  SmallVector<bool> escapes;
};

//===----------------------------------------------------------------------===//
// Scope rewriting
//===----------------------------------------------------------------------===//

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

  LogicalResult run() {
    if (mode == Mode::graph)
      paintGraph();
    if (failed(processRegion(*scope.region)))
      return failure();
    if (mode == Mode::graph)
      carryLowValues();
    return success();
  }

  /// The ops with regions that this scope holds and did not process op by
  /// op (nested autocast ops, structured ops, unknown ops; the bodies of
  /// structural ops are processed): the nested scopes can only be found in
  /// them, once the scope is rewritten.
  ArrayRef<Operation *> getUnprocessedRegionOps() const {
    return unprocessedRegionOps;
  }

private:
  /// Collects the ops of the scope that the policy decides, in program order.
  void collect(Region &region, SmallVectorImpl<Operation *> &ops,
               SmallVectorImpl<CastCategory> &cats) {
    for (Block *block : getBlocksInDominanceOrder(region))
      for (Operation &op : *block) {
        if (isa<AutocastOp>(op) || isSourceOp(&op) ||
            op.hasTrait<OpTrait::IsTerminator>())
          continue;
        if (isStructural(&op)) {
          for (Region &r : op.getRegions())
            collect(r, ops, cats);
          continue;
        }
        if (std::optional<CastCategory> cat = policy.classify(&op)) {
          ops.push_back(&op);
          cats.push_back(*cat);
        }
      }
  }

  void paintGraph() {
    SmallVector<Operation *> ops;
    SmallVector<CastCategory> cats;
    collect(*scope.region, ops, cats);
    Operation *terminator = scope.region->front().getTerminator();
    paintedColours = GraphPainter(ops, cats, terminator).paint();
    paintedOps = std::move(ops);
    paintedCategories = std::move(cats);
  }

  /// Graph mode: the category and colour painted for `op`, if it was
  /// painted. processRegion meets the existing ops in the order collect()
  /// listed them (both walk blocks in dominance order), so the painted ops
  /// come up one after another at a cursor; any other op was not painted.
  std::optional<std::pair<CastCategory, Paint>> findDecision(Operation *op) {
    if (nextPainted == paintedOps.size() || paintedOps[nextPainted] != op)
      return std::nullopt;
    size_t i = nextPainted++;
    return std::make_pair(paintedCategories[i], paintedColours[i]);
  }

  /// The value of `v` when a constant op defines it, else null; remembered
  /// (one epsilon constant feeds every block of a stack). Only for operands
  /// of the region's ops: their constants stay until the pass erases dead
  /// helpers, while a payload's constants go with a rebuilt op.
  Attribute getConstantValue(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || !def->hasTrait<OpTrait::ConstantLike>())
      return {};
    auto [it, inserted] = constantValues.try_emplace(v);
    if (inserted)
      matchPattern(v, m_Constant(&it->second));
    return it->second;
  }

  /// isSource, remembered for fills: the answer looks at every use, and a
  /// fill shared by the inits of a whole transformer stack has thousands.
  /// (Fills are not erased while a scope is rewritten, so no entry goes
  /// stale.)
  bool isSourceOp(Operation *op) {
    if (!isa<linalg::FillOp>(op))
      return isSource(op);
    auto [it, inserted] = sourceFills.try_emplace(op, false);
    if (inserted)
      it->second = isSource(op);
    return it->second;
  }

  /// Meets the ops in the order collect() lists them.
  LogicalResult processRegion(Region &region) {
    for (Block *block : getBlocksInDominanceOrder(region))
      for (Operation &op : llvm::make_early_inc_range(*block))
        if (failed(processOp(&op)))
          return failure();
    return success();
  }

  void noteRegions(Operation *op) {
    if (op->getNumRegions())
      unprocessedRegionOps.push_back(op);
  }

  LogicalResult processOp(Operation *op) {
    if (isa<AutocastOp>(op)) {
      noteRegions(op); // a scope of its own
      return success();
    }
    if (isSourceOp(op))
      return success(); // a fill's payload is a yield
    if (op->hasTrait<OpTrait::IsTerminator>())
      return processTerminator(op);
    if (isStructural(op)) {
      if (mode == Mode::graph && isa<scf::ForOp, scf::IfOp>(op))
        carryCandidates.push_back(op);
      if (mode == Mode::eager && enabled)
        if (auto forOp = dyn_cast<scf::ForOp>(op))
          return processEagerLoop(forOp);
      castEntryOperands(op);
      for (Region &region : op->getRegions())
        if (failed(processRegion(region)))
          return failure();
      return success();
    }
    // Graph mode classified the op already while painting.
    std::optional<CastCategory> cat;
    Paint paint = Paint::none;
    if (mode == Mode::graph) {
      if (std::optional<std::pair<CastCategory, Paint>> decision =
              findDecision(op))
        std::tie(cat, paint) = *decision;
    } else {
      cat = policy.classify(op);
    }
    if (!cat) {
      noteRegions(op);
      return success();
    }
    if (*cat == CastCategory::keep)
      return processKeep(op);
    return processDecided(op, *cat, paint);
  }

  /// The compute type of a decided op, before constant-range checks.
  /// `paint` is its graph-mode colour (none in eager mode).
  FloatType decideComputeType(Operation *op, CastCategory cat, Paint paint) {
    if (!enabled)
      return widestOf(getDataOperands(op)); // policy off: input types rule
    if (cat == CastCategory::lower)
      return low;
    if (cat == CastCategory::fp32)
      return f32;
    if (cat == CastCategory::promote || mode == Mode::eager)
      return widestOf(getDataOperands(op));
    // Graph mode, infer and clear: the painted colour; unpainted ops run in
    // f32 (they are not between low ops).
    return paint == Paint::low ? low : f32;
  }

  LogicalResult processDecided(Operation *op, CastCategory cat, Paint paint) {
    FloatType compute = decideComputeType(op, cat, paint);
    if (!compute) {
      noteRegions(op);
      return success(); // no float data: nothing to decide
    }
    if (compute != f32) {
      auto constantOf = [&](Value v) { return getConstantValue(v); };
      if (Attribute bad = findNonFittingConstant(op, compute, constantOf)) {
        emitRemark(op->getLoc())
            << "stays f32: constant " << bad << " does not fit in " << compute;
        ++counters.keptF32;
        compute = f32;
      }
    }
    SmallVector<Type> oldTypes(op->getResultTypes());
    auto castFn = [&](Value v, FloatType elem, Operation *user) {
      return castTo(v, elem, user);
    };
    FailureOr<Operation *> newOp = retypeOp(op, compute, castFn, verifier);
    if (failed(newOp) && compute != f32) {
      // Only a lower op is asked for low precision by the policy itself; an
      // infer or clear op painted low just stays f32.
      if (cat == CastCategory::lower)
        emitWarning(op->getLoc())
            << "'" << op->getName() << "' cannot be retyped to " << compute
            << " as the cast policy asks; it stays f32";
      ++counters.keptF32;
      compute = f32;
      newOp = retypeOp(op, compute, castFn, verifier);
    }
    if (failed(newOp)) {
      emitWarning(op->getLoc())
          << "'" << op->getName()
          << "' cannot be retyped; it keeps the types it was written with";
      return processKeep(op);
    }
    noteRegions(*newOp);
    if ((*newOp)->getNumRegions() &&
        !isa<linalg::LinalgOp, tensor::PadOp>(*newOp))
      restoreCapturedTypes(*newOp);
    for (auto [result, type] : llvm::zip((*newOp)->getResults(), oldTypes))
      if (result.getType() != type)
        originalTypes.record(result, type);
    if (annotate)
      (*newOp)->setAttr(AmpDialect::getComputeTypeAttrName(),
                        TypeAttr::get(compute));
    if (compute.isF16())
      ++counters.opsF16;
    else if (compute.isBF16())
      ++counters.opsBF16;
    else
      ++counters.opsF32;
    return success();
  }

  /// A `keep` op reads its operands, and the values its regions capture, at
  /// the types they were written with.
  LogicalResult processKeep(Operation *op) {
    noteRegions(op);
    for (OpOperand &operand : op->getOpOperands())
      restoreOriginalType(operand, op);
    restoreCapturedTypes(op);
    return success();
  }

  /// Gives `operand` (used by `user` or an op nested in it) back the type
  /// its value had before the pass retyped it.
  void restoreOriginalType(OpOperand &operand, Operation *user) {
    Value v = operand.get();
    Type original = originalTypes.lookup(v);
    if (!original || original == v.getType())
      return;
    operand.set(
        castTo(v, cast<FloatType>(getElementTypeOrSelf(original)), user));
  }

  /// The regions of ops the pass does not process op by op (tensor.generate,
  /// scf.forall, affine.for, unknown ops, keep ops) read captured values at
  /// their written types.
  void restoreCapturedTypes(Operation *op) {
    for (Region &region : op->getRegions())
      region.walk([&](Operation *nested) {
        for (OpOperand &operand : nested->getOpOperands())
          if (!op->isAncestor(operand.get().getParentRegion()->getParentOp()))
            restoreOriginalType(operand, op);
      });
  }

  /// What a processed scf.for's body yields for its carried values, before
  /// the casts the pass put at the yield (back to the carried types).
  SmallVector<Value> producedValues(scf::ForOp loop) {
    SmallVector<Value> values;
    for (Value v : loop.getBody()->getTerminator()->getOperands()) {
      auto cast = v.getDefiningOp<CastOp>();
      values.push_back(
          cast && counters.insertedCasts.contains(cast) ? cast.getIn() : v);
    }
    return values;
  }

  SmallVector<Type> producedTypes(scf::ForOp loop) {
    return llvm::to_vector(llvm::map_range(
        producedValues(loop), [](Value v) { return v.getType(); }));
  }

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
  LogicalResult processEagerLoop(scf::ForOp loop) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    // The copy for the rest has the written types (setCarriedTypes records
    // them as its results' original types).
    Operation *rest = trips && trips->uge(2) ? loop->clone() : nullptr;
    setCarriedTypes(loop, loop.getInitArgs().getTypes());
    auto dropRest = [&] {
      if (rest)
        rest->destroy();
    };
    if (failed(processRegion(loop.getRegion()))) {
      dropRest();
      return failure();
    }
    SmallVector<Type> produced = producedTypes(loop);
    // No trip: the results are the initial values, at their types.
    if (TypeRange(produced) == loop.getResultTypes() ||
        (trips && trips->isZero())) {
      dropRest();
      return success();
    }
    if (!trips) {
      emitRemark(loop.getLoc())
          << "amp-autocast: the body changes the type of a value this loop "
             "carries, and its trip count is not a constant: eager mode "
             "carries the types of the first iteration, which PyTorch "
             "matches in that iteration only";
      return success();
    }

    // The first iteration, inlined: its values replace the loop's results
    // (one trip) or start the rest of the loop.
    SmallVector<Value> first = inlineFirstIteration(loop);
    if (!rest) {
      replaceCarriedValues(loop, first);
      loop->erase();
      return success();
    }
    auto restLoop = cast<scf::ForOp>(rest);
    OpBuilder b(loop);
    b.insert(restLoop);
    Value next = arith::AddIOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                       loop.getStep());
    restLoop->moveAfter(next.getDefiningOp());
    restLoop.getLowerBoundMutable().assign(next);
    restLoop.getInitArgsMutable().assign(first);
    setCarriedTypes(restLoop, produced);
    replaceCarriedValues(loop, restLoop.getResults());
    loop->erase();
    if (failed(processRegion(restLoop.getRegion())))
      return failure();
    if (TypeRange(producedTypes(restLoop)) != restLoop.getResultTypes())
      emitRemark(restLoop.getLoc())
          << "amp-autocast: the body changes the type of a value this loop "
             "carries again in its second iteration: eager mode carries the "
             "type of the first, which PyTorch matches in the first two "
             "iterations only";
    return success();
  }

  /// Gives the iteration arguments and results of `loop` the float types
  /// `types` (where they differ), recording the results' written types.
  void setCarriedTypes(scf::ForOp loop, TypeRange types) {
    for (auto [arg, result, type] :
         llvm::zip(loop.getRegionIterArgs(), loop.getResults(), types)) {
      if (result.getType() == type || !isAutocastFloat(type))
        continue;
      if (!originalTypes.lookup(result))
        originalTypes.record(result, result.getType());
      arg.setType(type);
      result.setType(type);
    }
  }

  /// Moves the processed body of `loop` before it, as its first iteration
  /// (the iteration variable is the lower bound, the carried values the
  /// initial ones), and returns the values its yield carried, without the
  /// casts the pass put there.
  SmallVector<Value> inlineFirstIteration(scf::ForOp loop) {
    // Casts of the block arguments would outlive them in the cache.
    SmallVector<std::pair<Value, Type>> stale;
    for (auto &entry : castCache)
      if (auto arg = dyn_cast<BlockArgument>(entry.first.first);
          arg && arg.getOwner() == loop.getBody())
        stale.push_back(entry.first);
    for (auto key : stale)
      castCache.erase(key);
    Block *body = loop.getBody();
    Operation *yield = body->getTerminator();
    SmallVector<Value> args = {loop.getLowerBound()};
    llvm::append_range(args, loop.getInitArgs());
    SmallVector<Value> values = producedValues(loop);
    // A block argument (a carried value passed through) goes with the block.
    for (Value &v : values)
      if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body)
        v = args[arg.getArgNumber()];
    IRRewriter rewriter(loop->getContext());
    rewriter.inlineBlockBefore(body, loop, args);
    rewriter.eraseOp(yield);
    return values;
  }

  /// Points the users of `loop`'s results at `values`, recording the
  /// results' written types for the ones of another type.
  void replaceCarriedValues(scf::ForOp loop, ValueRange values) {
    for (auto [result, value] : llvm::zip(loop.getResults(), values)) {
      Type written = originalTypes.lookup(result);
      if (!written)
        written = result.getType();
      if (written != value.getType() && !originalTypes.lookup(value))
        originalTypes.record(value, written);
      result.replaceAllUsesWith(value);
    }
  }

  /// Values flowing into region arguments keep those arguments' types.
  void castEntryOperands(Operation *op) {
    auto branch = dyn_cast<RegionBranchOpInterface>(op);
    if (!branch)
      return;
    SmallVector<RegionSuccessor> successors;
    branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
    for (RegionSuccessor &successor : successors) {
      OperandRange operands = branch.getEntrySuccessorOperands(successor);
      if (operands.empty())
        continue;
      unsigned begin = operands.getBeginOperandIndex();
      for (auto [i, pair] : llvm::enumerate(
               llvm::zip(operands, successor.getSuccessorInputs()))) {
        auto [value, input] = pair;
        if (value.getType() != input.getType())
          op->setOperand(begin + i, castToType(value, input.getType(), op));
      }
    }
  }

  /// Terminators forward values at the types their successors declare:
  /// loop-carried values, scf.if results, the region's results, and a
  /// decorated function's results do not change type.
  LogicalResult processTerminator(Operation *op) {
    if (isa<func::ReturnOp>(op) && op->getParentOp() == scope.owner) {
      auto func = cast<FunctionOpInterface>(scope.owner);
      for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
        if (op->getOperand(i).getType() != type)
          op->setOperand(i, castToType(op->getOperand(i), type, op));
      return success();
    }
    auto term = dyn_cast<RegionBranchTerminatorOpInterface>(op);
    if (!term) {
      if (llvm::any_of(op->getOperandTypes(), isAutocastFloat))
        return processKeep(op);
      return success();
    }
    SmallVector<RegionSuccessor> successors;
    SmallVector<Attribute> noConstants(op->getNumOperands(), Attribute());
    term.getSuccessorRegions(noConstants, successors);
    for (RegionSuccessor &successor : successors) {
      MutableOperandRange operands =
          term.getMutableSuccessorOperands(successor);
      for (auto [i, input] : llvm::enumerate(successor.getSuccessorInputs())) {
        OpOperand &operand = operands[i];
        if (operand.get().getType() != input.getType())
          operand.set(castToType(operand.get(), input.getType(), op));
      }
    }
    return success();
  }

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
  void carryLowValues() {
    // processOp met them outer first: visit them inner first.
    for (Operation *op : llvm::reverse(carryCandidates)) {
      if (auto forOp = dyn_cast<scf::ForOp>(op))
        carryLowThroughLoop(forOp);
      else
        carryLowThroughIf(cast<scf::IfOp>(op));
    }
  }

  /// `x` when `v` is `amp.cast %x` from the low type to f32.
  Value castFromLow(Value v) const {
    auto cast = v.getDefiningOp<CastOp>();
    if (!cast || getElementTypeOrSelf(v.getType()) != f32 ||
        getElementTypeOrSelf(cast.getIn().getType()) != low)
      return {};
    return cast.getIn();
  }

  bool isCastToLow(OpOperand &use) const {
    auto cast = dyn_cast<CastOp>(use.getOwner());
    return cast && getElementTypeOrSelf(cast.getOut().getType()) == low;
  }

  /// Gives `v` (an f32 value being retyped to low) to its uses: casts to low
  /// take `v` itself, other uses an f32 cast of it made by `makeUpCast`.
  void replaceUsesOfLow(Value v, function_ref<Value()> makeUpCast) {
    Value up;
    for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
      if (isCastToLow(use)) {
        Operation *cast = use.getOwner();
        cast->getResult(0).replaceAllUsesWith(v);
        eraseCast(cast);
        continue;
      }
      if (!up)
        up = makeUpCast();
      if (use.getOwner() != up.getDefiningOp())
        use.set(up);
    }
  }

  /// An f32 cast of the low value `v`, made at `b`'s insertion point.
  Value castUpAt(OpBuilder &b, Value v) {
    Value up = convertElementType(b, v.getLoc(), v, f32);
    counters.insertedCasts.insert(up.getDefiningOp());
    return up;
  }

  /// An f32 cast of `result` (low) right after its op.
  Value castUpAfter(Operation *op, Value result) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    return castUpAt(b, result);
  }

  /// Erases a cast that this rewrite made and no longer needs.
  void eraseCast(Operation *cast) {
    counters.insertedCasts.erase(cast);
    cast->erase();
  }

  /// Sets operand `i` of `yield` to `lowValue`, erasing the cast it replaces
  /// when nothing else uses it.
  void yieldLow(Operation *yield, unsigned i, Value lowValue) {
    Operation *upCast = yield->getOperand(i).getDefiningOp();
    yield->setOperand(i, lowValue);
    if (upCast->use_empty())
      eraseCast(upCast);
  }

  void carryLowThroughLoop(scf::ForOp forOp) {
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    std::optional<APInt> trips = forOp.getStaticTripCount();
    // A loop that runs at most once executes its edge casts at most once:
    // carrying low values would only move them out.
    if (trips && trips->ule(1))
      return;
    bool runsOnce = trips && !trips->isZero();
    for (unsigned i = 0, e = forOp.getNumRegionIterArgs(); i < e; ++i) {
      BlockArgument arg = forOp.getRegionIterArg(i);
      Value result = forOp.getResult(i);
      Value init = forOp.getInitArgs()[i];
      Value yieldedLow = castFromLow(yield->getOperand(i));
      if (!yieldedLow || !isAutocastFloat(arg.getType()))
        continue;
      Value initLow = castFromLow(init);
      auto allCastToLow = [&](Value v) {
        return llvm::all_of(v.getUses(),
                            [&](OpOperand &use) { return isCastToLow(use); });
      };
      if (!initLow && !allCastToLow(arg))
        continue;
      if (!initLow && !runsOnce && !allCastToLow(result))
        continue;
      Type lowType = yieldedLow.getType();
      if (!initLow)
        initLow = castTo(init, low, forOp);
      forOp.getInitArgsMutable()[i].set(initLow);
      yieldLow(yield, i, yieldedLow);
      arg.setType(lowType);
      result.setType(lowType);
      replaceUsesOfLow(arg, [&] {
        OpBuilder b = OpBuilder::atBlockBegin(forOp.getBody());
        return castUpAt(b, arg);
      });
      replaceUsesOfLow(result, [&] { return castUpAfter(forOp, result); });
    }
  }

  void carryLowThroughIf(scf::IfOp ifOp) {
    if (ifOp.getElseRegion().empty())
      return; // no results
    auto thenYield = ifOp.thenYield();
    auto elseYield = ifOp.elseYield();
    for (unsigned i = 0, e = ifOp.getNumResults(); i < e; ++i) {
      Value thenLow = castFromLow(thenYield->getOperand(i));
      Value elseLow = castFromLow(elseYield->getOperand(i));
      if (!thenLow || !elseLow || thenLow.getType() != elseLow.getType())
        continue;
      Value result = ifOp.getResult(i);
      yieldLow(thenYield, i, thenLow);
      yieldLow(elseYield, i, elseLow);
      result.setType(thenLow.getType());
      replaceUsesOfLow(result, [&] { return castUpAfter(ifOp, result); });
    }
  }

  Value castToType(Value v, Type type, Operation *user) {
    auto elem = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (!elem || !isAutocastFloat(v.getType()))
      return v;
    return castTo(v, elem, user);
  }

  /// Where the cached cast of `v` goes: right after its definition inside
  /// the region, or at region entry for values from outside (weights).
  void setCastInsertionPoint(OpBuilder &b, Value v) {
    Region *region = scope.region;
    if (Operation *def = v.getDefiningOp()) {
      if (region->isAncestor(def->getParentRegion())) {
        b.setInsertionPointAfter(def);
        return;
      }
    } else if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (region->isAncestor(arg.getParentRegion())) {
        b.setInsertionPointToStart(arg.getOwner());
        return;
      }
    }
    b.setInsertionPointToStart(&region->front());
  }

  /// `v` converted to element type `elem`, valid at `user`.
  Value castTo(Value v, FloatType elem, Operation *user) {
    if (getElementTypeOrSelf(v.getType()) == elem)
      return v;
    // Keyed by element type: the cached value has `v`'s shape.
    auto key = std::make_pair(v, Type(elem));
    // Constants and shape-only tensors are rebuilt, never cast at run time:
    // sharing them is always right. Other values share a cast only with the
    // weight-cast cache on.
    bool cached = cacheEnabled || matchPattern(v, m_Constant()) ||
                  isRematerializableInit(v);
    if (cached) {
      if (Value hit = castCache.lookup(key)) {
        if (hit.getDefiningOp<CastOp>())
          ++counters.castsCached;
        return hit;
      }
    }
    OpBuilder b(user);
    if (cached)
      setCastInsertionPoint(b, v);
    Value result = convertElementType(b, user->getLoc(), v, elem);
    Operation *def = result.getDefiningOp();
    if (def && !isa<CastOp>(def)) {
      // Folded at compile time: a constant, or a rebuilt empty/filled tensor.
      if (matchPattern(result, m_Constant()) || isa<linalg::FillOp>(def))
        ++counters.constantsNarrowed;
      // Keep tosa constants tosa (tosa verifiers want tosa.const operands).
      Attribute value;
      if (v.getDefiningOp<tosa::ConstOp>() &&
          matchPattern(result, m_Constant(&value))) {
        result = tosa::ConstOp::create(b, def->getLoc(), result.getType(),
                                       cast<ElementsAttr>(value));
        def->erase();
      }
    } else {
      if (def)
        counters.insertedCasts.insert(def);
      LoopLikeOpInterface userLoop =
          user->getParentOfType<LoopLikeOpInterface>();
      if (def && userLoop && !userLoop->isAncestor(def))
        ++counters.castsHoisted;
    }
    if (cached)
      castCache[key] = result;
    return result;
  }

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

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AmpAutocastPass : public amp::impl::AmpAutocastBase<AmpAutocastPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    overrides.clear();
    conflict.clear();
    auto noteConflict = [&](const Twine &message) {
      if (conflict.empty())
        conflict = ("amp-autocast: " + message).str();
    };
    auto add = [&](ArrayRef<std::string> names, CastCategory cat) {
      for (const std::string &name : names) {
        CastPolicyOverride &entry = overrides[name];
        if (entry.set && *entry.set != cat)
          noteConflict(Twine("options put op '") + name +
                       "' in two categories (" +
                       stringifyCastCategory(*entry.set) + " and " +
                       stringifyCastCategory(cat) + ")");
        entry.set = cat;
      }
    };
    auto remove = [&](ArrayRef<std::string> names, CastCategory cat) {
      for (const std::string &name : names)
        overrides[name].removedFrom |= 1u << static_cast<unsigned>(cat);
    };
    // Moving an op (remove it from one list, add it to another) gives it
    // the new category; adding it to the list it is removed from is a
    // contradiction.
    using Lists =
        std::tuple<ArrayRef<std::string>, ArrayRef<std::string>, CastCategory>;
    const Lists lists[] = {
        {lowerOps, removeLowerOps, CastCategory::lower},
        {fp32Ops, removeFp32Ops, CastCategory::fp32},
        {promoteOps, removePromoteOps, CastCategory::promote},
        {inferOps, removeInferOps, CastCategory::infer},
        {clearOps, removeClearOps, CastCategory::clear},
        {keepOps, removeKeepOps, CastCategory::keep}};
    for (const auto &[added, removed, cat] : lists)
      remove(removed, cat);
    for (const auto &[added, removed, cat] : lists)
      add(added, cat);
    for (auto &entry : overrides) {
      const CastPolicyOverride &o = entry.getValue();
      if (o.set && (o.removedFrom & (1u << static_cast<unsigned>(*o.set))))
        noteConflict(Twine("options both add op '") + entry.getKey() +
                     "' to the " + stringifyCastCategory(*o.set) +
                     " list and remove it from it");
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Option errors point at the input file (there is no better place).
    if (!conflict.empty()) {
      emitError(module.getLoc()) << conflict;
      return signalPassFailure();
    }
    if (mode != "graph" && mode != "eager") {
      emitError(module.getLoc())
          << "amp-autocast: mode must be 'graph' or 'eager', got '" << mode
          << "'";
      return signalPassFailure();
    }
    for (auto &entry : overrides) {
      StringRef name = entry.getKey();
      std::optional<RegisteredOperationName> op =
          RegisteredOperationName::lookup(name, ctx);
      if (!op) {
        emitError(module.getLoc())
            << "amp-autocast: policy option names unknown op '" << name
            << "' (options name ops as dialect.op, e.g. linalg.matmul)";
        return signalPassFailure();
      }
      if (std::optional<StringRef> why = whyNeverDecided(*op))
        emitWarning(module.getLoc())
            << "amp-autocast: policy option names '" << name << "' (" << *why
            << "), which the cast policy never decides; the option has no "
               "effect";
    }

    // Outermost scopes first; the scopes nested in one are collected only
    // after it is processed (its rewrite may rebuild the ops around them).
    std::deque<Scope> worklist;
    // The scope owners in the order they are processed (outermost first),
    // with the decorated declarations.
    SmallVector<Operation *> processed;
    collectChildScopes(module.getBodyRegion(), worklist, processed);
    Counters counters;
    RetypeVerifier verifier;
    Mode parsedMode = mode == "eager" ? Mode::eager : Mode::graph;
    while (!worklist.empty()) {
      Scope scope = worklist.front();
      worklist.pop_front();
      ScopeRewriter rewriter(scope, parsedMode, annotate, overrides, counters,
                             originalTypes, verifier);
      if (failed(rewriter.run()))
        return signalPassFailure();
      processed.push_back(scope.owner);
      // The scope's own ops are known to the rewriter: only ops with regions
      // can open or hold the nested scopes.
      for (Operation *op : rewriter.getUnprocessedRegionOps())
        collectScopesAt(op, worklist, processed);
    }
    originalTypes.clear();

    if (!keepRegions) {
      // Innermost first: the worklist ran outermost first.
      for (Operation *owner : llvm::reverse(processed)) {
        if (auto autocast = dyn_cast<AutocastOp>(owner))
          inlineAutocastRegion(autocast);
        else
          owner->removeAttr(AmpDialect::getAutocastAttrName());
      }
    }
    eraseDeadHelpers(module, counters.insertedCasts);
    recordStatistics(
        getArgument(),
        {{"ops-f16", "Ops computing in f16", counters.opsF16},
         {"ops-bf16", "Ops computing in bf16", counters.opsBF16},
         {"ops-f32", "Ops computing in f32", counters.opsF32},
         {"casts-inserted", "amp.cast ops inserted",
          uint64_t(counters.insertedCasts.size())},
         {"casts-cached", "Uses served by an existing cast (weight-cast cache)",
          counters.castsCached},
         {"casts-hoisted", "Casts placed outside the loop of their use",
          counters.castsHoisted},
         {"constants-narrowed", "Constants cast at compile time",
          counters.constantsNarrowed},
         {"kept-f32",
          "Ops the policy puts low that stay f32 (constant range, not "
          "retypable)",
          counters.keptF32}});
  }

  /// Erases the casts, constants, fills and empty tensors that retyping left
  /// without users, and the helpers that only they used. A fill of a buffer
  /// (no result: it writes memory) is not a helper. Erased casts leave
  /// `insertedCasts`.
  static void eraseDeadHelpers(ModuleOp module,
                               DenseSet<Operation *> &insertedCasts) {
    auto isDeadHelper = [](Operation *op) {
      return isa<CastOp, arith::ConstantOp, tosa::ConstOp, tensor::EmptyOp,
                 linalg::FillOp>(op) &&
             op->getNumResults() != 0 && op->use_empty();
    };
    SmallVector<Operation *> worklist;
    DenseSet<Operation *> queued;
    module.walk([&](Operation *op) {
      if (isDeadHelper(op) && queued.insert(op).second)
        worklist.push_back(op);
    });
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      SmallVector<Operation *> producers;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          producers.push_back(def);
      insertedCasts.erase(op);
      op->erase();
      for (Operation *def : producers)
        if (isDeadHelper(def) && queued.insert(def).second)
          worklist.push_back(def);
    }
  }

  /// The autocast scope `op` opens: an amp.autocast op, or a decorated
  /// function with a body.
  static std::optional<Scope> getScope(Operation *op) {
    if (auto autocast = dyn_cast<AutocastOp>(op))
      return Scope{op, &autocast.getBody(), autocast.getConfig()};
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func || func.isExternal())
      return std::nullopt;
    auto config =
        op->getAttrOfType<AutocastAttr>(AmpDialect::getAutocastAttrName());
    if (!config)
      return std::nullopt;
    return Scope{op, &func.getFunctionBody(), config};
  }

  /// Appends the scopes in `region` that no other scope in it encloses, and
  /// the decorated function declarations (no body, nothing to rewrite) to
  /// `declarations`.
  static void collectChildScopes(Region &region, std::deque<Scope> &out,
                                 SmallVectorImpl<Operation *> &declarations) {
    region.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Scopes and function declarations have a region; most ops have none
      // and are not asked for interfaces.
      if (op->getNumRegions() == 0)
        return WalkResult::advance();
      return collectScope(op, out, declarations);
    });
  }

  /// collectChildScopes for `op` and the regions nested in it.
  static void collectScopesAt(Operation *op, std::deque<Scope> &out,
                              SmallVectorImpl<Operation *> &declarations) {
    if (collectScope(op, out, declarations).wasSkipped())
      return;
    for (Region &region : op->getRegions())
      collectChildScopes(region, out, declarations);
  }

  /// Appends `op` to `out` when it opens a scope (skip its regions), or to
  /// `declarations` when it is a decorated function declaration.
  static WalkResult collectScope(Operation *op, std::deque<Scope> &out,
                                 SmallVectorImpl<Operation *> &declarations) {
    if (std::optional<Scope> scope = getScope(op)) {
      out.push_back(*scope);
      return WalkResult::skip();
    }
    if (isa<FunctionOpInterface>(op) &&
        op->hasAttr(AmpDialect::getAutocastAttrName()))
      declarations.push_back(op);
    return WalkResult::advance();
  }

  CastPolicyOverrides overrides;
  /// An option conflict found by initialize(), reported by the run.
  std::string conflict;
  /// The type every retyped value had before the pass, shared by all scopes
  /// (a keep op in an inner region reads an outer value at its written type).
  OriginalTypes originalTypes;
};

} // namespace
