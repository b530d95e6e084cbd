//===- GraphPainter.cpp - graph-mode painting of amp-autocast -------------===//
//
// See GraphPainter.h.
//
//===----------------------------------------------------------------------===//

#include "GraphPainter.h"
#include "Decision.h"

#include "../Retype.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::autocast;

namespace {

/// Dataflow painting over the ops of one region, after TensorFlow's
/// auto_mixed_precision (see docs/Autocast.md for the steps).
class GraphPainter {
public:
  GraphPainter(ArrayRef<Operation *> ops, ArrayRef<CastCategory> categories,
               Operation *terminator, Region *region)
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
    // f32 data that enters the graph from outside the region, and clear ops
    // that combine several data inputs (a select written as a generic).
    readsOutsideF32.assign(ops.size(), false);
    multiInput.assign(ops.size(), false);
    for (auto [i, op] : llvm::enumerate(ops)) {
      SmallVector<Value> data = getDataOperands(op);
      readsOutsideF32[i] = llvm::any_of(
          data, [&](Value v) { return isOutsideF32(v, region, index); });
      multiInput[i] = categories[i] == CastCategory::clear && data.size() > 1;
    }
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
    //    A clear op that combines several inputs (a select) runs at the
    //    widest of them in eager mode, as an infer op does. An f32 value from
    //    outside the region (a parameter, the residual stream entering a
    //    transformer block) is an f32 source too: an infer op that reads it
    //    runs in f32, as PyTorch's type promotion makes `x + attn(x)` f32.
    SmallVector<bool> upstreamOfF32OrInfer(n, false);
    SmallVector<unsigned> seeds = nodesOf(CC::fp32, CC::infer);
    for (unsigned i = 0; i < n; ++i)
      if (multiInput[i])
        seeds.push_back(i);
    for (unsigned i : seeds)
      upstreamOfF32OrInfer[i] = true;
    flood(seeds, Direction::backward, [&](unsigned p) {
      if (!is(p, CC::clear) || upstreamOfF32OrInfer[p])
        return false;
      return upstreamOfF32OrInfer[p] = true;
    });
    SmallVector<bool> forcedF32(n, false);
    auto paintF32 = [&](unsigned s) {
      if (!isFlow(s) || !upstreamOfF32OrInfer[s] || forcedF32[s])
        return false;
      colour[s] = Paint::f32;
      return forcedF32[s] = true;
    };
    SmallVector<unsigned> f32Seeds = nodesOf(CC::fp32);
    for (unsigned i = 0; i < n; ++i)
      if (readsOutsideF32[i] && paintF32(i))
        f32Seeds.push_back(i);
    flood(f32Seeds, Direction::forward, paintF32);

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
    //    users). A promote op is not a low user: it runs at the widest type
    //    of its inputs, so a clear op before it must not narrow its f32
    //    data (`cat(mm, x[0:2])` of an f32 `x` is f32 in PyTorch).
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
          !llvm::all_of(neighbours(succBegin, succList, j), [&](unsigned s) {
            return colour[s] == Paint::low && !is(s, CC::promote);
          }))
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

  /// Whether `v` is f32 data from outside the graph's region: an argument
  /// of the region (a decorated function's parameter) or a value defined
  /// outside it, but not a constant (converted where used).
  static bool isOutsideF32(Value v, Region *region,
                           const DenseMap<Operation *, unsigned> &index) {
    if (!region || !getElementTypeOrSelf(v.getType()).isF32())
      return false;
    if (Operation *def = v.getDefiningOp()) {
      if (index.contains(def) || isSource(def))
        return false;
      return !region->isAncestor(def->getParentRegion());
    }
    Region *owner = cast<BlockArgument>(v).getOwner()->getParent();
    return owner == region || !region->isAncestor(owner);
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
  /// Whether each op reads f32 data from outside the region (isOutsideF32).
  SmallVector<bool> readsOutsideF32;
  /// Whether each op is a clear op with more than one data input.
  SmallVector<bool> multiInput;
};

} // namespace

SmallVector<Paint>
mlir::amp::autocast::paintOps(ArrayRef<Operation *> ops,
                              ArrayRef<CastCategory> categories,
                              Operation *terminator, Region *region) {
  return GraphPainter(ops, categories, terminator, region).paint();
}
