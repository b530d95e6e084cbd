//===- OnednnContractions.cpp - contractions as oneDNN calls --------------===//
//
// The `amp-cpu-onednn-contractions` pass (amp-cpu-pipeline{gemm=onednn}, on
// buffers): every linalg op that amp-cpu-select-onednn marked `amp_cpu.onednn`
// becomes a call to the CPU runtime's oneDNN entry point through its C
// interface (memref descriptors by pointer), like the cuBLAS calls of the
// CUDA pipeline. A matmul's operands are passed as rank-3 strided views in
// the runtime's order (A [batch, m, k], B [batch, k, n], C [batch, m, n]: a
// transposed operand is a view with swapped strides, a missing batch loop a
// batch of 1 that oneDNN broadcasts), made by memref.extract_strided_metadata
// and memref.reinterpret_cast. C = A * B + beta * C: beta 1, or 0 when a
// zero fill of C right before the op (bufferization's zeroed accumulator)
// is folded into the call. A convolution whose input is a zero-filled
// buffer that a copy of another buffer filled except for a border
// (torch-mlir's tensor.pad, bufferized) takes that buffer and the top and
// left padding instead: oneDNN pads, and the fill and the strided copy (the
// generic memrefCopy, element by element) are gone.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "OnednnMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUONEDNNCONTRACTIONS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The buffer `v` is a view of (through view-like ops).
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// A fully dynamic strided memref type of `rank` and `element`.
MemRefType stridedType(MLIRContext *ctx, int64_t rank, Type element) {
  SmallVector<int64_t> dyn(rank, ShapedType::kDynamic);
  return MemRefType::get(
      dyn, element, StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dyn));
}

/// A view of `buffer` (indexed by `map`, a projected permutation of the op's
/// loops, or with constant 0 results for unit dimensions) whose dimensions
/// are the loops `loops` in that order; a loop the buffer is not indexed by
/// (-1, or absent) is a unit dimension.
Value canonicalView(OpBuilder &b, Location loc, Value buffer, AffineMap map,
                    ArrayRef<int64_t> loops) {
  auto type = cast<MemRefType>(buffer.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  SmallVector<OpFoldResult> sizes, strides;
  for (int64_t loop : loops) {
    std::optional<unsigned> pos;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      if (loop >= 0 && isa<AffineDimExpr>(map.getResult(i)) &&
          map.getDimPosition(i) == loop)
        pos = i;
    if (!pos) {
      sizes.push_back(b.getIndexAttr(1));
      strides.push_back(b.getIndexAttr(0));
      continue;
    }
    sizes.push_back(meta.getSizes()[*pos]);
    strides.push_back(meta.getStrides()[*pos]);
  }
  return memref::ReinterpretCastOp::create(
      b, loc, stridedType(b.getContext(), loops.size(), type.getElementType()),
      meta.getBaseBuffer(), OpFoldResult(meta.getOffset()), sizes, strides);
}

/// The zero fill of `op`'s output right before it, which a call with beta
/// = 0 replaces, or null: the fill writes 0 into the same buffer value, the
/// buffer is an allocation of the function that neither input is a view of,
/// and the reduction is not empty (the call would then leave the zeros
/// unwritten).
linalg::FillOp zeroFillOfOutput(linalg::LinalgOp op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  Value out = op.getDpsInitOperand(0)->get();
  if (!fill || !fill.hasPureBufferSemantics() || fill.getOutputs()[0] != out)
    return {};
  auto value = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  auto zero = value ? dyn_cast<FloatAttr>(value.getValue()) : FloatAttr();
  if (!zero || !zero.getValue().isZero() || zero.getValue().isNegative())
    return {};
  Value root = rootBuffer(out);
  if (!root.getDefiningOp<memref::AllocOp>())
    return {};
  for (OpOperand *input : op.getDpsInputOperands())
    if (rootBuffer(input->get()) == root)
      return {};
  for (auto [range, type] :
       llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction &&
        (ShapedType::isDynamic(range) || range == 0))
      return {};
  return fill;
}

/// Whether `op` writes +0.0 (or -inf with `negInf`) to every element of its
/// output (linalg.fill or a linalg.map without inputs yielding the
/// constant), and that output.
Value zeroFilled(Operation *op, bool negInf = false) {
  Value value, out;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    value = fill.getInputs()[0];
    out = fill.getOutputs()[0];
  } else if (auto map = dyn_cast<linalg::MapOp>(op)) {
    if (!map.getInputs().empty())
      return {};
    auto yield = cast<linalg::YieldOp>(map.getMapper().front().getTerminator());
    value = yield.getValues()[0];
    out = map.getInit();
  } else {
    return {};
  }
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto zero = constant ? dyn_cast<FloatAttr>(constant.getValue()) : FloatAttr();
  if (!zero)
    return {};
  if (negInf ? !(zero.getValue().isInfinity() && zero.getValue().isNegative())
             : (!zero.getValue().isZero() || zero.getValue().isNegative()))
    return {};
  return out;
}

/// The -inf fill of a max pooling's output (an allocation of the function)
/// before it in its block, with no other use of that buffer in between, or
/// null: oneDNN's pooling overwrites the output.
Operation *negInfFillOfOutput(linalg::LinalgOp op) {
  Value out = op.getDpsInitOperand(0)->get();
  Value root = rootBuffer(out);
  if (!root.getDefiningOp<memref::AllocOp>())
    return nullptr;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (zeroFilled(prev, /*negInf=*/true) == out)
      return prev;
    for (Value operand : prev->getOperands())
      if (rootBuffer(operand) == root)
        return nullptr;
  }
  return nullptr;
}

/// The padding of a convolution's input folded into the call.
struct FoldedPad {
  Value source; // the unpadded buffer
  int64_t top = 0, left = 0;
  SmallVector<Operation *> erased; // fill, subview, copy, deallocs, alloc
};

/// The unpadded buffer of `input` (a convolution's, in the block of `conv`)
/// when `input` is an allocation that is zero-filled, then gets a copy of
/// that buffer into an NC-complete window at [0, 0, top, left], and is
/// otherwise only read by `conv` and deallocated; the buffer copied is not
/// used between the copy and `conv`.
std::optional<FoldedPad> foldedPad(Value input, Operation *conv,
                                   bool negInf = false) {
  auto alloc = input.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != conv->getBlock())
    return std::nullopt;
  FoldedPad pad;
  Operation *fill = nullptr;
  memref::SubViewOp window;
  memref::CopyOp copy;
  for (Operation *user : alloc->getUsers()) {
    if (user == conv || isa<memref::DeallocOp>(user)) {
      if (user != conv)
        pad.erased.push_back(user);
      continue;
    }
    if (!fill && zeroFilled(user, negInf) == input) {
      fill = user;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (window || !view || !view->hasOneUse())
      return std::nullopt;
    window = view;
    copy = dyn_cast<memref::CopyOp>(*view->getUsers().begin());
    if (!copy || copy.getTarget() != view.getResult())
      return std::nullopt;
  }
  if (!fill || !window || fill->getBlock() != conv->getBlock() ||
      copy->getBlock() != conv->getBlock() || !fill->isBeforeInBlock(copy) ||
      !copy->isBeforeInBlock(conv))
    return std::nullopt;
  auto type = cast<MemRefType>(input.getType());
  ArrayRef<int64_t> offsets = window.getStaticOffsets(),
                    sizes = window.getStaticSizes(),
                    strides = window.getStaticStrides();
  if (offsets.size() != 4 || offsets[0] != 0 || offsets[1] != 0 ||
      ShapedType::isDynamic(offsets[2]) || ShapedType::isDynamic(offsets[3]) ||
      sizes[0] != type.getDimSize(0) || sizes[1] != type.getDimSize(1) ||
      llvm::any_of(strides, [](int64_t s) { return s != 1; }))
    return std::nullopt;
  pad.source = copy.getSource();
  Value sourceRoot = rootBuffer(pad.source);
  for (Operation *op = copy->getNextNode(); op != conv; op = op->getNextNode())
    for (Value operand : op->getOperands())
      if (rootBuffer(operand) == sourceRoot)
        return std::nullopt;
  pad.top = offsets[2];
  pad.left = offsets[3];
  pad.erased.insert(pad.erased.begin(), {copy, window, fill});
  pad.erased.push_back(alloc);
  return pad;
}

/// The rounding to bf16 of an f32 buffer that a bf16 convolution's operand
/// `buffer` holds, folded into the call (the runtime rounds while it
/// reorders into oneDNN's layout: autocast's cast of a weight or an input
/// is then no separate pass over memory and no separate buffer).
struct FoldedCast {
  Value source;                    // the f32 buffer
  SmallVector<Operation *> erased; // the cast, deallocs, alloc
};

/// The f32 buffer of `buffer` when `buffer` is an allocation in `conv`'s
/// block that one elementwise linalg.generic (identity maps, `arith.truncf`
/// f32 -> bf16 with the default rounding of its input) fills before `conv`,
/// that is otherwise only read by `conv` or by ops in `alsoErased` and
/// deallocated, and whose f32 source no op between the cast and `conv`
/// uses.
std::optional<FoldedCast> foldedCast(Value buffer, Operation *conv,
                                     ArrayRef<Operation *> alsoErased) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != conv->getBlock() ||
      !alloc.getType().getElementType().isBF16())
    return std::nullopt;
  FoldedCast folded;
  linalg::GenericOp writer;
  for (Operation *user : alloc->getUsers()) {
    if (user == conv || llvm::is_contained(alsoErased, user))
      continue;
    if (isa<memref::DeallocOp>(user)) {
      folded.erased.push_back(user);
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (writer || !generic)
      return std::nullopt;
    writer = generic;
  }
  if (!writer || !writer.hasPureBufferSemantics() ||
      writer.getNumDpsInputs() != 1 || writer.getNumDpsInits() != 1 ||
      writer.getDpsInitOperand(0)->get() != buffer ||
      writer.getNumParallelLoops() != writer.getNumLoops() ||
      !llvm::all_of(writer.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }) ||
      writer->getBlock() != conv->getBlock() || !writer->isBeforeInBlock(conv))
    return std::nullopt;
  Block &body = writer.getRegion().front();
  auto trunc = dyn_cast<arith::TruncFOp>(&body.front());
  auto yield = cast_or_null<linalg::YieldOp>(body.getTerminator());
  if (!trunc || trunc->getNextNode() != yield ||
      trunc.getIn() != body.getArgument(0) || trunc.getRoundingmodeAttr() ||
      !trunc.getIn().getType().isF32() || yield.getValues().size() != 1 ||
      yield.getValues()[0] != trunc.getResult())
    return std::nullopt;
  Value source = writer.getDpsInputOperand(0)->get();
  auto sourceType = cast<MemRefType>(source.getType());
  if (!sourceType.hasStaticShape() ||
      sourceType.getShape() != alloc.getType().getShape())
    return std::nullopt;
  Value sourceRoot = rootBuffer(source);
  for (Operation *op = writer->getNextNode(); op != conv;
       op = op->getNextNode())
    for (Value operand : op->getOperands())
      if (rootBuffer(operand) == sourceRoot)
        return std::nullopt;
  folded.source = source;
  folded.erased.insert(folded.erased.begin(), writer);
  folded.erased.push_back(alloc);
  return folded;
}

/// A bf16 convolution's f32 output that is only ever read rounded to bf16
/// (autocast's consumer starts with `arith.truncf` of it): the convolution
/// can write bf16 (oneDNN rounds its f32 accumulators, nearest even: the
/// same numbers) and the reader take the bf16 buffer, half the bytes.
struct RoundedOutput {
  memref::AllocOp alloc;
  linalg::GenericOp reader;
  unsigned operand; // of `reader`
  SmallVector<arith::TruncFOp> truncs;
};

/// The rounded output of `conv` when its output is an allocation in its
/// block that `fill` zero-fills (folded into the call), one elementwise
/// linalg.generic after `conv` reads as an input whose block argument only
/// feeds `arith.truncf` to bf16 (default rounding), and deallocations use.
std::optional<RoundedOutput> roundedOutput(linalg::LinalgOp conv,
                                           linalg::FillOp fill) {
  Value out = conv.getDpsInitOperand(0)->get();
  auto alloc = out.getDefiningOp<memref::AllocOp>();
  if (!fill || !alloc || alloc->getBlock() != conv->getBlock() ||
      !alloc.getType().getElementType().isF32())
    return std::nullopt;
  RoundedOutput r;
  r.alloc = alloc;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == conv || user == fill || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (r.reader || !generic || !generic.hasPureBufferSemantics() ||
        generic->getBlock() != conv->getBlock() ||
        !conv->isBeforeInBlock(generic) ||
        use.getOperandNumber() >= generic.getNumDpsInputs())
      return std::nullopt;
    r.reader = generic;
    r.operand = use.getOperandNumber();
  }
  if (!r.reader)
    return std::nullopt;
  BlockArgument arg = r.reader.getRegion().front().getArgument(r.operand);
  for (Operation *user : arg.getUsers()) {
    auto trunc = dyn_cast<arith::TruncFOp>(user);
    if (!trunc || trunc.getRoundingmodeAttr() || !trunc.getType().isBF16())
      return std::nullopt;
    r.truncs.push_back(trunc);
  }
  if (r.truncs.empty())
    return std::nullopt;
  return r;
}

/// A bf16 buffer for `r` in place of its f32 one, which its reader and
/// deallocations now use (the convolution and the fill still use the f32
/// one: they are erased by the caller, then the f32 allocation too).
Value roundOutput(IRRewriter &rewriter, RoundedOutput &r) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(r.alloc);
  MemRefType type = r.alloc.getType();
  auto bf16Type = MemRefType::get(type.getShape(), rewriter.getBF16Type(),
                                  type.getLayout(), type.getMemorySpace());
  auto alloc = memref::AllocOp::create(rewriter, r.alloc.getLoc(), bf16Type,
                                       r.alloc.getAlignmentAttr());
  for (OpOperand &use : llvm::make_early_inc_range(r.alloc->getUses()))
    if (use.getOwner() == r.reader || isa<memref::DeallocOp>(use.getOwner()))
      rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(alloc); });
  BlockArgument arg = r.reader.getRegion().front().getArgument(r.operand);
  arg.setType(rewriter.getBF16Type());
  for (arith::TruncFOp trunc : r.truncs)
    rewriter.replaceOp(trunc, arg);
  return alloc;
}

/// An elementwise consumer of a convolution's output folded into the call
/// as oneDNN post-ops (ampOnednnConv2dPost_*).
struct FusedPostOps {
  linalg::GenericOp reader;
  Value output;                       // the reader's init: what the call writes
  int64_t program = 0;                // the runtime's encoding, a byte per op
  SmallVector<Value> slots;           // the binary ops' operand buffers
  SmallVector<AffineMap> maps;        // and their indexing maps in the reader
  SmallVector<Operation *> moveAfter; // deallocations to put after the call
};

/// Post-op kinds of the runtime's program (lib/Runtime/CPU/Onednn.cpp).
enum class PostKind : int64_t { Add = 1, Sub, Mul, Div, Relu, GeluErf };
constexpr unsigned kPostSlots = 6, kMaxPostOps = 8;

/// Whether `v` is the constant +0.0 or -0.0.
bool isFloatZero(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto attr = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return attr && attr.getValue().isZero();
}

/// Whether `map` (over the reader's 4 loops) reads only the channel loop
/// d1, once, with constant 0 results for the other dimensions.
bool isPerChannel(AffineMap map, MemRefType type) {
  unsigned channel = 0;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (d.getPosition() != 1)
        return false;
      ++channel;
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || c.getValue() != 0 || type.getDimSize(i) != 1)
      return false;
  }
  return channel == 1;
}

/// Whether `v` is a float constant within `tol` of `want`.
bool isFloatNear(Value v, double want, double tol) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  auto attr = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return attr && std::abs(attr.getValueAsDouble() - want) <= tol;
}

/// The value of `op` (one of two operands) other than `cur`, if `op` is a
/// `T` with `cur` as an operand (either one where `commutative`).
template <typename T>
Value otherOperand(Operation *op, Value cur, bool commutative = true) {
  auto t = dyn_cast_or_null<T>(op);
  if (!t)
    return {};
  if (t.getLhs() == cur && t.getRhs() != cur)
    return t.getRhs();
  if (commutative && t.getRhs() == cur && t.getLhs() != cur)
    return t.getLhs();
  return {};
}

/// The post-op program of a consumer body: a chain of ops on `start` (the
/// contraction's value) ending in the yield of a `result`-typed value.
/// `operandSlot` gives the slot of a binary op's other operand (or none:
/// not folded). Ops: addf/mulf (either order), subf/divf (the chain's value
/// first), ReLU (cmpf ugt + select of 0, maximumf 0), erf-GELU (x *
/// ((erf(x / sqrt 2) + 1) * 0.5), operands of the adds and muls in either
/// order, or x * 0.70710678 for the division), one truncf to bf16 (only a
/// ReLU may follow it), and a leading truncf + extf of `start` (dropped: the
/// chain reads the f32 accumulator). With `narrow`, a leading truncf of
/// `start` without the extf starts a chain of bf16 ops that oneDNN computes
/// in f32 with one rounding at the end (PyTorch's bf16 GELU also rounds
/// once; the loop rounded each op).
LogicalResult
parseChain(Block &body, Value start, Type result,
           llvm::function_ref<std::optional<unsigned>(Value)> operandSlot,
           bool narrow, SmallVectorImpl<int64_t> &ops) {
  Value cur = start;
  bool rounded = false, narrowed = false;
  SmallVector<Operation *> list;
  for (Operation &o : body.without_terminator())
    list.push_back(&o);
  auto at = [&](size_t i) { return i < list.size() ? list[i] : nullptr; };
  for (size_t i = 0; i < list.size(); ++i) {
    Operation *o = list[i];
    if (auto trunc = dyn_cast<arith::TruncFOp>(o)) {
      if (rounded || trunc.getIn() != cur || trunc.getRoundingmodeAttr() ||
          !trunc.getType().isBF16() || !cur.getType().isF32())
        return failure();
      auto ext = dyn_cast_or_null<arith::ExtFOp>(at(i + 1));
      if (ops.empty() && cur == start && ext &&
          ext.getIn() == trunc.getResult() && ext.getType().isF32() &&
          trunc->hasOneUse()) {
        cur = ext.getResult();
        ++i;
        continue;
      }
      if (narrow && ops.empty() && cur == start) {
        narrowed = true;
        cur = trunc.getResult();
        continue;
      }
      rounded = true;
      cur = trunc.getResult();
      continue;
    }
    if (auto cmp = dyn_cast<arith::CmpFOp>(o)) {
      auto sel = dyn_cast_or_null<arith::SelectOp>(at(i + 1));
      if (cmp.getPredicate() != arith::CmpFPredicate::UGT ||
          cmp.getLhs() != cur || !isFloatZero(cmp.getRhs()) || !sel ||
          sel.getCondition() != cmp.getResult() || !cmp->hasOneUse() ||
          sel.getTrueValue() != cur || !isFloatZero(sel.getFalseValue()))
        return failure();
      ops.push_back(int64_t(PostKind::Relu));
      cur = sel.getResult();
      ++i;
      continue;
    }
    if (Value zero = otherOperand<arith::MaximumFOp>(o, cur)) {
      if (!isFloatZero(zero))
        return failure();
      ops.push_back(int64_t(PostKind::Relu));
      cur = o->getResult(0);
      continue;
    }
    if (rounded)
      return failure();
    // erf-GELU: d = x / sqrt 2 (or x * 1/sqrt 2), e = erf d, a = e + 1,
    // h = a * 0.5, r = x * h.
    {
      Value c = otherOperand<arith::DivFOp>(o, cur, /*commutative=*/false);
      bool scaled = c && isFloatNear(c, 1.41421356, 4e-3);
      if (!scaled) {
        c = otherOperand<arith::MulFOp>(o, cur);
        scaled = c && isFloatNear(c, 0.70710678, 2e-3);
      }
      auto erf = dyn_cast_or_null<math::ErfOp>(at(i + 1));
      Operation *add = at(i + 2), *half = at(i + 3), *mul = at(i + 4);
      if (scaled && erf && erf.getOperand() == o->getResult(0)) {
        Value one = otherOperand<arith::AddFOp>(add, erf.getResult());
        Value h = add ? otherOperand<arith::MulFOp>(half, add->getResult(0))
                      : Value();
        Value x = half ? otherOperand<arith::MulFOp>(mul, half->getResult(0))
                       : Value();
        if (one && isFloatNear(one, 1.0, 0.0) && h &&
            isFloatNear(h, 0.5, 0.0) && x == cur) {
          ops.push_back(int64_t(PostKind::GeluErf));
          cur = mul->getResult(0);
          i += 4;
          continue;
        }
      }
    }
    if (o->getNumOperands() != 2 || o->getNumResults() != 1 ||
        !(cur.getType().isF32() || (narrowed && cur.getType().isBF16())))
      return failure();
    std::optional<PostKind> kind;
    if (isa<arith::AddFOp>(o))
      kind = PostKind::Add;
    else if (isa<arith::MulFOp>(o))
      kind = PostKind::Mul;
    else if (isa<arith::SubFOp>(o))
      kind = PostKind::Sub;
    else if (isa<arith::DivFOp>(o))
      kind = PostKind::Div;
    if (!kind)
      return failure();
    bool commutative = isa<arith::AddFOp, arith::MulFOp>(o);
    Value lhs = o->getOperand(0), rhs = o->getOperand(1), other;
    if (lhs == cur && rhs != cur)
      other = rhs;
    else if (commutative && rhs == cur && lhs != cur)
      other = lhs;
    else
      return failure();
    std::optional<unsigned> slot = operandSlot(other);
    if (!slot)
      return failure();
    ops.push_back(int64_t(*kind) | int64_t(*slot) << 3);
    cur = o->getResult(0);
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (ops.empty() || ops.size() > kMaxPostOps ||
      yield.getValues().size() != 1 || yield.getValues()[0] != cur ||
      cur.getType() != result)
    return failure();
  return success();
}

/// Whether nothing between `from` and `to` (in one block) writes a buffer
/// in `protect` (roots), `skip` aside; deallocations of those go to
/// `moveAfter`.
bool nothingWritesBetween(Operation *from, Operation *to,
                          const llvm::SmallPtrSetImpl<Value> &protect,
                          ArrayRef<Operation *> skip,
                          SmallVectorImpl<Operation *> &moveAfter) {
  for (Operation *o = from->getNextNode(); o != to; o = o->getNextNode()) {
    if (llvm::is_contained(skip, o))
      continue;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(o)) {
      if (protect.contains(rootBuffer(dealloc.getMemref())))
        moveAfter.push_back(o);
      continue;
    }
    if (isMemoryEffectFree(o) || isa<memref::AllocOp>(o))
      continue;
    SmallVector<Value> written;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(o)) {
      if (!linalgOp.hasPureBufferSemantics())
        return false;
      for (OpOperand &init : linalgOp.getDpsInitsMutable())
        written.push_back(init.get());
    } else if (auto copy = dyn_cast<memref::CopyOp>(o)) {
      written.push_back(copy.getTarget());
    } else {
      return false;
    }
    for (Value w : written)
      if (protect.contains(rootBuffer(w)))
        return false;
  }
  return true;
}

/// The elementwise consumer of `conv`'s output folded into the call: the
/// output is an allocation of `conv`'s block that `fill` zeroes (beta 0)
/// and that only `conv`, `fill`, deallocations and one elementwise
/// linalg.generic later in the block use, as an input; the generic's body
/// is a chain of post-ops on that input (see the pass description); no op
/// between `conv` and the generic writes `reads` (the buffers the call
/// reads, after folding) or the generic's output.
std::optional<FusedPostOps> fusedPostOps(linalg::LinalgOp conv,
                                         linalg::FillOp fill,
                                         ArrayRef<Value> reads) {
  Value out = conv.getDpsInitOperand(0)->get();
  auto alloc = out.getDefiningOp<memref::AllocOp>();
  if (!fill || !alloc || alloc->getBlock() != conv->getBlock() ||
      !alloc.getType().hasStaticShape())
    return std::nullopt;
  FusedPostOps f;
  OpOperand *read = nullptr;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == conv || user == fill || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (read || !generic)
      return std::nullopt;
    read = &use;
    f.reader = generic;
  }
  if (!read)
    return std::nullopt;
  linalg::GenericOp g = f.reader;
  if (!g.hasPureBufferSemantics() || g->getBlock() != conv->getBlock() ||
      !conv->isBeforeInBlock(g) || g.getNumDpsInits() != 1 ||
      read->getOperandNumber() >= g.getNumDpsInputs() || g.getNumLoops() != 4 ||
      g.getNumParallelLoops() != 4)
    return std::nullopt;
  MemRefType outType = alloc.getType();
  f.output = g.getDpsInitOperand(0)->get();
  auto resultType = cast<MemRefType>(f.output.getType());
  if (resultType.getShape() != outType.getShape() ||
      !(resultType.getElementType().isF32() ||
        resultType.getElementType().isBF16()) ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      !g.getMatchingIndexingMap(read).isIdentity())
    return std::nullopt;

  // The chain, op by op in the body.
  Block &body = g.getRegion().front();
  DenseMap<Value, unsigned> slotOf;
  auto operandSlot = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body ||
        arg.getArgNumber() >= g.getNumDpsInputs() ||
        arg.getArgNumber() == read->getOperandNumber())
      return std::nullopt;
    OpOperand *operand = g.getDpsInputOperand(arg.getArgNumber());
    Value buffer = operand->get();
    auto type = cast<MemRefType>(buffer.getType());
    AffineMap map = g.getMatchingIndexingMap(operand);
    if (!type.getElementType().isF32() ||
        !(isPerChannel(map, type) ||
          (map.isIdentity() && type.getShape() == outType.getShape())))
      return std::nullopt;
    auto it = slotOf.find(buffer);
    if (it != slotOf.end())
      return it->second;
    if (f.slots.size() == kPostSlots)
      return std::nullopt;
    slotOf[buffer] = f.slots.size();
    f.slots.push_back(buffer);
    f.maps.push_back(map);
    return f.slots.size() - 1;
  };
  SmallVector<int64_t> ops;
  if (failed(parseChain(body, body.getArgument(read->getOperandNumber()),
                        resultType.getElementType(), operandSlot,
                        /*narrow=*/false, ops)))
    return std::nullopt;
  for (auto [i, op] : llvm::enumerate(ops))
    f.program |= op << (8 * i);

  // The call moves down to the reader: nothing in between may write what it
  // reads or its output; deallocations of what it reads go after it.
  llvm::SmallPtrSet<Value, 8> protect;
  for (Value v : reads)
    protect.insert(rootBuffer(v));
  protect.insert(rootBuffer(f.output));
  if (llvm::any_of(f.slots, [&](Value v) {
        return rootBuffer(v) == rootBuffer(f.output);
      }))
    return std::nullopt;
  SmallVector<Operation *> skip = {fill};
  for (Operation *user : alloc->getUsers())
    if (isa<memref::DeallocOp>(user))
      skip.push_back(user);
  if (!nothingWritesBetween(conv, g, protect, skip, f.moveAfter))
    return std::nullopt;
  return f;
}

/// A matmul's consumer folded into the call (ampOnednnMatmulPost_*): as a
/// convolution's (fusedPostOps), for a linalg.matmul without batch loop
/// whose C (an M x N allocation, zero-filled by `fill`, indexed (m, n)) is
/// read by one elementwise generic, directly or through one
/// memref.expand_shape (torch-mlir's 4x128 x N view of 512 x N), whose
/// loops end with N; operands: per-column (the last loop only: a Linear's
/// bias) or full-size contiguous ones (a residual), all f32 or all bf16
/// (`slotType`); a bf16 chain after the accumulator's rounding is computed
/// in f32 (see parseChain).
std::optional<FusedPostOps>
fusedMatmulPostOps(linalg::LinalgOp op, const OnednnCall &call,
                   linalg::FillOp fill, ArrayRef<Value> reads, Type &slotType) {
  if (call.batch >= 0 || !fill)
    return std::nullopt;
  AffineMap cMap = op.getIndexingMapsArray()[2];
  if (cMap.getNumResults() != 2 || cMap.getDimPosition(0) != unsigned(call.m) ||
      cMap.getDimPosition(1) != unsigned(call.n))
    return std::nullopt;
  // C: an allocation, or a collapse_shape of one that keeps its last
  // dimension as N (torch-mlir's 128 x 4 x 768 buffer as 512 x 768).
  Value out = op.getDpsInitOperand(0)->get();
  auto collapse = out.getDefiningOp<memref::CollapseShapeOp>();
  Value rootValue = collapse ? collapse.getSrc() : out;
  auto alloc = rootValue.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock() ||
      !alloc.getType().hasStaticShape() ||
      !alloc.getType().getLayout().isIdentity())
    return std::nullopt;
  int64_t n = cast<MemRefType>(out.getType()).getDimSize(1);
  FusedPostOps f;
  Value seen; // what the reader reads: the allocation or its one view
  SmallVector<Operation *> skip = {fill};
  SmallVector<int64_t> nLoops; // the reader's loops that N was split into
  if (collapse) {
    if (collapse.getReassociationIndices().back().size() != 1 ||
        llvm::any_of(collapse->getUsers(),
                     [&](Operation *u) { return u != op && u != fill; }))
      return std::nullopt;
    skip.push_back(collapse);
  }
  for (Operation *user : alloc->getUsers()) {
    if (user == op || user == fill || user == collapse)
      continue;
    if (isa<memref::DeallocOp>(user)) {
      skip.push_back(user);
      continue;
    }
    if (seen)
      return std::nullopt;
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(user)) {
      if (!expand->hasOneUse())
        return std::nullopt;
      skip.push_back(expand);
      seen = expand.getResult();
      nLoops = llvm::to_vector(expand.getReassociationIndices().back());
      f.reader = dyn_cast<linalg::GenericOp>(*expand->getUsers().begin());
    } else {
      seen = rootValue;
      f.reader = dyn_cast<linalg::GenericOp>(user);
    }
    if (!f.reader)
      return std::nullopt;
  }
  linalg::GenericOp g = f.reader;
  if (!g || !g.hasPureBufferSemantics() || g->getBlock() != op->getBlock() ||
      !op->isBeforeInBlock(g) || g.getNumDpsInits() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops())
    return std::nullopt;
  OpOperand *read = nullptr;
  for (OpOperand *input : g.getDpsInputOperands())
    if (input->get() == seen) {
      if (read)
        return std::nullopt;
      read = input;
    }
  auto seenType = cast<MemRefType>(seen.getType());
  f.output = g.getDpsInitOperand(0)->get();
  auto resultType = cast<MemRefType>(f.output.getType());
  if (!read || !g.getMatchingIndexingMap(read).isIdentity() ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      resultType.getShape() != seenType.getShape() ||
      !resultType.getLayout().isIdentity() ||
      (nLoops.empty() && seenType.getShape().back() != n) ||
      !(resultType.getElementType().isF32() ||
        resultType.getElementType().isBF16()))
    return std::nullopt;
  if (nLoops.empty())
    nLoops.push_back(g.getNumLoops() - 1);
  Block &body = g.getRegion().front();
  DenseMap<Value, unsigned> slotOf;
  slotType = Type();
  auto operandSlot = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body ||
        arg.getArgNumber() >= g.getNumDpsInputs() ||
        arg.getArgNumber() == read->getOperandNumber())
      return std::nullopt;
    OpOperand *operand = g.getDpsInputOperand(arg.getArgNumber());
    Value buffer = operand->get();
    auto type = cast<MemRefType>(buffer.getType());
    AffineMap map = g.getMatchingIndexingMap(operand);
    // Per column: the loops of N only, in order (a bias of 3 x 256 read by
    // the two loops that a 768-wide N was split into is N contiguous
    // values), unit dimensions indexed by 0 elsewhere.
    bool perColumn = true;
    SmallVector<int64_t> columns;
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        columns.push_back(d.getPosition());
        continue;
      }
      auto c = dyn_cast<AffineConstantExpr>(e);
      perColumn &= c && c.getValue() == 0 && type.getDimSize(i) == 1;
    }
    perColumn &= columns == nLoops &&
                 (columns.size() == 1 || type.getLayout().isIdentity());
    bool full = map.isIdentity() && type.getShape() == seenType.getShape() &&
                type.getLayout().isIdentity();
    Type element = type.getElementType();
    if (!(perColumn || full) || !(element.isF32() || element.isBF16()) ||
        (slotType && slotType != element))
      return std::nullopt;
    slotType = element;
    auto it = slotOf.find(buffer);
    if (it != slotOf.end())
      return it->second;
    if (f.slots.size() == kPostSlots)
      return std::nullopt;
    slotOf[buffer] = f.slots.size();
    f.slots.push_back(buffer);
    f.maps.push_back(full ? AffineMap() : map);
    return f.slots.size() - 1;
  };
  SmallVector<int64_t> ops;
  if (failed(parseChain(body, body.getArgument(read->getOperandNumber()),
                        resultType.getElementType(), operandSlot,
                        /*narrow=*/true, ops)))
    return std::nullopt;
  if (!slotType)
    slotType = Float32Type::get(op->getContext());
  for (auto [i, code] : llvm::enumerate(ops)) {
    bool binary = (code & 7) <= int64_t(PostKind::Div);
    f.program |= (code | (binary && slotType.isBF16() ? 0x40 : 0)) << (8 * i);
  }
  llvm::SmallPtrSet<Value, 8> protect;
  for (Value v : reads)
    protect.insert(rootBuffer(v));
  protect.insert(rootBuffer(f.output));
  if (llvm::any_of(f.slots, [&](Value v) {
        return rootBuffer(v) == rootBuffer(f.output);
      }))
    return std::nullopt;
  if (!nothingWritesBetween(op, g, protect, skip, f.moveAfter))
    return std::nullopt;
  return f;
}

/// A contiguous buffer viewed as [1, M, N] (its elements in order).
Value flatView(OpBuilder &b, Location loc, Value buffer, int64_t m, int64_t n) {
  auto type = cast<MemRefType>(buffer.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(m),
                                     b.getIndexAttr(n)},
                            strides = {b.getIndexAttr(m * n), b.getIndexAttr(n),
                                       b.getIndexAttr(1)};
  return memref::ReinterpretCastOp::create(
      b, loc, stridedType(b.getContext(), 3, type.getElementType()),
      meta.getBaseBuffer(), OpFoldResult(meta.getOffset()), sizes, strides);
}

/// The runtime function `name` taking `operands`' types (declared once,
/// private, with a C interface wrapper).
func::FuncOp getOrDeclare(ModuleOp module, SymbolTable &symbols, StringRef name,
                          TypeRange operands) {
  if (auto f = symbols.lookup<func::FuncOp>(name))
    return f;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name,
                                b.getFunctionType(operands, {}));
  f.setPrivate();
  f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  symbols.insert(f);
  return f;
}

/// A marked linalg.pooling_nchw_max to a call of
/// `ampOnednnPoolNchwMax_<T>(input, output, kh, kw, sh, sw, dh, dw, pt, pl)`:
/// its -inf initial fill is dropped (oneDNN writes every output), its -inf
/// padding folded into the call (oneDNN's max pooling ignores padding), its
/// window buffer (only its shape matters) erased.
void lowerPooling(ModuleOp module, SymbolTable &symbols, IRRewriter &rewriter,
                  linalg::LinalgOp op, const OnednnCall &call) {
  Operation *init = negInfFillOfOutput(op);
  Value window = op.getDpsInputOperand(1)->get();
  auto windowType = cast<MemRefType>(window.getType());
  if (!init || !windowType.hasStaticShape() || windowType.getRank() != 2) {
    op->emitRemark("amp-cpu-onednn-contractions: the output of this max "
                   "pooling does not start as -inf; it is lowered to loops");
    return;
  }
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  std::optional<FoldedPad> pad =
      foldedPad(op.getDpsInputOperand(0)->get(), op, /*negInf=*/true);
  Value input = pad ? pad->source : op.getDpsInputOperand(0)->get();
  SmallVector<Value> args;
  for (Value buffer : {input, op.getDpsInitOperand(0)->get()})
    args.push_back(
        canonicalView(rewriter, loc, buffer,
                      rewriter.getMultiDimIdentityMap(
                          cast<MemRefType>(buffer.getType()).getRank()),
                      {0, 1, 2, 3}));
  auto pool = cast<linalg::PoolingNchwMaxOp>(op.getOperation());
  SmallVector<int64_t> scalars(windowType.getShape());
  for (DenseIntElementsAttr attr : {pool.getStrides(), pool.getDilations()})
    for (APInt v : attr.getValues<APInt>())
      scalars.push_back(v.getSExtValue());
  scalars.push_back(pad ? pad->top : 0);
  scalars.push_back(pad ? pad->left : 0);
  for (int64_t v : scalars)
    args.push_back(arith::ConstantIndexOp::create(rewriter, loc, v));
  SmallVector<Type> types;
  for (Value v : args)
    types.push_back(v.getType());
  func::FuncOp callee =
      getOrDeclare(module, symbols, call.functionName(), types);
  func::CallOp::create(rewriter, loc, callee, args);
  rewriter.eraseOp(op);
  rewriter.eraseOp(init);
  if (pad)
    for (Operation *dead : pad->erased)
      rewriter.eraseOp(dead);
  // The window: an allocation only the pooling read.
  if (auto alloc = window.getDefiningOp<memref::AllocOp>())
    if (llvm::all_of(alloc->getUsers(),
                     [](Operation *u) { return isa<memref::DeallocOp>(u); })) {
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        rewriter.eraseOp(user);
      rewriter.eraseOp(alloc);
    }
}

struct AmpCpuOnednnContractionsPass
    : public amp::impl::AmpCpuOnednnContractionsBase<
          AmpCpuOnednnContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The marker says the decision was made for the target already; the
    // match only recomputes how the operands map (features do not matter).
    CpuTarget any;
    any.avx512 = true;
    SymbolTable symbols(module);
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kOnednnMarker))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      op->removeAttr(kOnednnMarker);
      std::string whyNot;
      FailureOr<OnednnCall> call = matchOnednnCall(op, any, whyNot);
      if (!op.hasPureBufferSemantics() || failed(call)) {
        op->emitRemark("amp-cpu-onednn-contractions: this op changed since "
                       "amp-cpu-select-onednn chose it; it is lowered to "
                       "loops");
        continue;
      }
      Location loc = op.getLoc();
      if (call->kind == OnednnCall::Kind::PoolNchwMax) {
        lowerPooling(module, symbols, rewriter, op, *call);
        continue;
      }
      linalg::FillOp fill = zeroFillOfOutput(op);
      rewriter.setInsertionPoint(op);
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      SmallVector<Value> args;
      std::optional<FoldedPad> pad;
      std::optional<FoldedCast> casts[2];
      std::optional<RoundedOutput> rounded;
      std::optional<FusedPostOps> fused;
      Type slotType;
      if (call->kind == OnednnCall::Kind::Matmul) {
        if (postOps) {
          fused = fusedMatmulPostOps(op, *call, fill,
                                     {op.getDpsInputOperand(0)->get(),
                                      op.getDpsInputOperand(1)->get()},
                                     slotType);
          if (fused)
            rewriter.setInsertionPoint(fused->reader);
        }
        args.push_back(canonicalView(rewriter, loc,
                                     op.getDpsInputOperand(0)->get(), maps[0],
                                     {call->batch, call->m, call->k}));
        args.push_back(canonicalView(rewriter, loc,
                                     op.getDpsInputOperand(1)->get(), maps[1],
                                     {call->batch, call->k, call->n}));
        if (fused) {
          auto c = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
          args.push_back(flatView(rewriter, loc, fused->output, c.getDimSize(0),
                                  c.getDimSize(1)));
        } else {
          args.push_back(canonicalView(rewriter, loc,
                                       op.getDpsInitOperand(0)->get(), maps[2],
                                       {call->batch, call->m, call->n}));
        }
      } else {
        pad = foldedPad(op.getDpsInputOperand(0)->get(), op);
        if (call->a.isBF16()) {
          // The f32 -> bf16 casts of the input and the filter go into the
          // call (the input's after its padding is folded).
          Value input = pad ? pad->source : op.getDpsInputOperand(0)->get();
          casts[0] = foldedCast(input, op,
                                pad ? ArrayRef<Operation *>(pad->erased)
                                    : ArrayRef<Operation *>());
          casts[1] = foldedCast(op.getDpsInputOperand(1)->get(), op, {});
        }
        if (postOps) {
          Value input = casts[0] ? casts[0]->source
                        : pad    ? pad->source
                                 : op.getDpsInputOperand(0)->get();
          Value filter =
              casts[1] ? casts[1]->source : op.getDpsInputOperand(1)->get();
          fused = fusedPostOps(op, fill, {input, filter});
          // The call goes where the consumer was (its operands are computed
          // after the convolution).
          if (fused)
            rewriter.setInsertionPoint(fused->reader);
        }
        if (call->a.isBF16() && !fused)
          rounded = roundedOutput(op, fill);
        Value roundedBuffer =
            rounded ? roundOutput(rewriter, *rounded) : Value();
        for (OpOperand &operand : op->getOpOperands()) {
          Value buffer = operand.get();
          if (rounded && operand.getOperandNumber() == 2)
            buffer = roundedBuffer;
          if (fused && operand.getOperandNumber() == 2)
            buffer = fused->output;
          if (pad && operand.getOperandNumber() == 0)
            buffer = pad->source;
          if (operand.getOperandNumber() < 2 &&
              casts[operand.getOperandNumber()])
            buffer = casts[operand.getOperandNumber()]->source;
          auto type = cast<MemRefType>(buffer.getType());
          args.push_back(canonicalView(
              rewriter, loc, buffer,
              rewriter.getMultiDimIdentityMap(type.getRank()), {0, 1, 2, 3}));
        }
        auto conv = cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
        for (DenseIntElementsAttr attr :
             {conv.getStrides(), conv.getDilations()})
          for (APInt v : attr.getValues<APInt>())
            args.push_back(arith::ConstantIndexOp::create(rewriter, loc,
                                                          v.getSExtValue()));
        for (int64_t p : {pad ? pad->top : 0, pad ? pad->left : 0})
          args.push_back(arith::ConstantIndexOp::create(rewriter, loc, p));
      }
      if (fused && call->kind == OnednnCall::Kind::Matmul) {
        // The program and six operand slots as [1, 1, N] (per column) or
        // [1, M, N] views.
        args.push_back(arith::ConstantOp::create(
            rewriter, loc, rewriter.getI64IntegerAttr(fused->program)));
        auto c = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
        SmallVector<Value> slots;
        for (auto [buffer, map] : llvm::zip(fused->slots, fused->maps)) {
          if (!map) {
            slots.push_back(flatView(rewriter, loc, buffer, c.getDimSize(0),
                                     c.getDimSize(1)));
            continue;
          }
          unsigned dims = llvm::count_if(map.getResults(), [](AffineExpr e) {
            return isa<AffineDimExpr>(e);
          });
          if (dims > 1) { // contiguous: N values in order
            auto meta =
                memref::ExtractStridedMetadataOp::create(rewriter, loc, buffer);
            slots.push_back(memref::ReinterpretCastOp::create(
                rewriter, loc,
                stridedType(
                    rewriter.getContext(), 3,
                    cast<MemRefType>(buffer.getType()).getElementType()),
                meta.getBaseBuffer(), OpFoldResult(meta.getOffset()),
                ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(c.getDimSize(1))},
                ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                                       rewriter.getIndexAttr(0),
                                       rewriter.getIndexAttr(1)}));
            continue;
          }
          int64_t last = -1;
          for (AffineExpr e : map.getResults())
            if (auto d = dyn_cast<AffineDimExpr>(e))
              last = d.getPosition();
          slots.push_back(
              canonicalView(rewriter, loc, buffer, map, {-1, -1, last}));
        }
        if (slots.empty()) {
          auto scratch = memref::AllocaOp::create(
              rewriter, loc, MemRefType::get({1, 1, 1}, slotType));
          slots.push_back(flatView(rewriter, loc, scratch, 1, 1));
        }
        while (slots.size() < kPostSlots)
          slots.push_back(slots.front());
        args.append(slots);
      } else if (fused) {
        // bf16Products, the program, the six operand slots (the unused ones
        // repeat an operand, or a 1-element scratch buffer).
        args.push_back(arith::ConstantOp::create(
            rewriter, loc, rewriter.getI64IntegerAttr(casts[0] || casts[1])));
        args.push_back(arith::ConstantOp::create(
            rewriter, loc, rewriter.getI64IntegerAttr(fused->program)));
        SmallVector<Value> slots;
        for (auto [buffer, map] : llvm::zip(fused->slots, fused->maps))
          slots.push_back(
              canonicalView(rewriter, loc, buffer, map, {0, 1, 2, 3}));
        if (slots.empty()) {
          auto scratch = memref::AllocaOp::create(
              rewriter, loc,
              MemRefType::get({1, 1, 1, 1}, rewriter.getF32Type()));
          slots.push_back(canonicalView(rewriter, loc, scratch,
                                        rewriter.getMultiDimIdentityMap(4),
                                        {0, 1, 2, 3}));
        }
        while (slots.size() < kPostSlots)
          slots.push_back(slots.front());
        args.append(slots);
      } else {
        args.push_back(arith::ConstantOp::create(
            rewriter, loc, rewriter.getF32FloatAttr(fill ? 0.0f : 1.0f)));
      }
      SmallVector<Type> types;
      for (Value v : args)
        types.push_back(v.getType());
      std::string name = call->functionName();
      if (fused && call->kind == OnednnCall::Kind::Matmul) {
        auto element = [](Value v) {
          return cast<MemRefType>(v.getType()).getElementType().isF32()
                     ? "f32"
                     : "bf16";
        };
        name = std::string("ampOnednnMatmulPost_") + element(args[0]) + "_" +
               element(args[1]) + "_" + element(args[2]) + "_" +
               (slotType.isBF16() ? "bf16" : "f32");
      } else if (casts[0] || casts[1] || rounded || fused) {
        auto element = [](Value v) {
          return cast<MemRefType>(v.getType()).getElementType().isF32()
                     ? "f32"
                     : "bf16";
        };
        name =
            std::string(fused                  ? "ampOnednnConv2dPost_"
                        : casts[0] || casts[1] ? "ampOnednnConv2dBf16_"
                                               : "ampOnednnConv2dNchwFchw_") +
            element(args[0]) + "_" + element(args[1]) + "_" + element(args[2]);
      }
      func::FuncOp callee = getOrDeclare(module, symbols, name, types);
      auto callOp = func::CallOp::create(rewriter, loc, callee, args);
      Value convOutput = op.getDpsInitOperand(0)->get();
      rewriter.eraseOp(op);
      if (fill)
        rewriter.eraseOp(fill);
      if (fused) {
        // The consumer, then the contraction's output: its views (the
        // reader's expand_shape, a matmul's collapse_shape), deallocations
        // and allocation.
        rewriter.eraseOp(fused->reader);
        for (Operation *dealloc : fused->moveAfter)
          rewriter.moveOpAfter(dealloc, callOp);
        Operation *alloc = rootBuffer(convOutput).getDefiningOp();
        for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
          if (isa<ViewLikeOpInterface>(user))
            rewriter.eraseOp(user);
        for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
          rewriter.eraseOp(user); // deallocations
        rewriter.eraseOp(alloc);
      }
      if (pad)
        for (Operation *dead : pad->erased)
          rewriter.eraseOp(dead);
      for (std::optional<FoldedCast> &folded : casts)
        if (folded)
          for (Operation *dead : folded->erased)
            rewriter.eraseOp(dead);
      if (rounded)
        rewriter.eraseOp(rounded->alloc);
    }
  }
};

} // namespace
