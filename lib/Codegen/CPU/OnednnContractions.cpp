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
// is folded into the call.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "OnednnMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
      dyn, element,
      StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dyn));
}

/// A view of `buffer` (indexed by `map`, a projected permutation of the op's
/// loops) whose dimensions are the loops `loops` in that order; a loop the
/// buffer is not indexed by (-1, or absent) is a unit dimension.
Value canonicalView(OpBuilder &b, Location loc, Value buffer, AffineMap map,
                    ArrayRef<int64_t> loops) {
  auto type = cast<MemRefType>(buffer.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  SmallVector<OpFoldResult> sizes, strides;
  for (int64_t loop : loops) {
    std::optional<unsigned> pos;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      if (loop >= 0 && map.getDimPosition(i) == loop)
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
      b, loc,
      stridedType(b.getContext(), loops.size(), type.getElementType()),
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
  if (!fill || !fill.hasPureBufferSemantics() ||
      fill.getOutputs()[0] != out)
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
  for (auto [range, type] : llvm::zip(op.getStaticLoopRanges(),
                                      op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction &&
        (ShapedType::isDynamic(range) || range == 0))
      return {};
  return fill;
}

/// The runtime function `name` taking `operands`' types (declared once,
/// private, with a C interface wrapper).
func::FuncOp getOrDeclare(ModuleOp module, SymbolTable &symbols,
                          StringRef name, TypeRange operands) {
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
      linalg::FillOp fill = zeroFillOfOutput(op);
      rewriter.setInsertionPoint(op);
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      SmallVector<Value> args;
      if (call->kind == OnednnCall::Kind::Matmul) {
        args.push_back(canonicalView(rewriter, loc,
                                     op.getDpsInputOperand(0)->get(), maps[0],
                                     {call->batch, call->m, call->k}));
        args.push_back(canonicalView(rewriter, loc,
                                     op.getDpsInputOperand(1)->get(), maps[1],
                                     {call->batch, call->k, call->n}));
        args.push_back(canonicalView(rewriter, loc,
                                     op.getDpsInitOperand(0)->get(), maps[2],
                                     {call->batch, call->m, call->n}));
      } else {
        for (OpOperand &operand : op->getOpOperands()) {
          auto type = cast<MemRefType>(operand.get().getType());
          args.push_back(canonicalView(
              rewriter, loc, operand.get(),
              rewriter.getMultiDimIdentityMap(type.getRank()), {0, 1, 2, 3}));
        }
        auto conv = cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
        for (DenseIntElementsAttr attr :
             {conv.getStrides(), conv.getDilations()})
          for (APInt v : attr.getValues<APInt>())
            args.push_back(arith::ConstantIndexOp::create(
                rewriter, loc, v.getSExtValue()));
      }
      args.push_back(arith::ConstantOp::create(
          rewriter, loc, rewriter.getF32FloatAttr(fill ? 0.0f : 1.0f)));
      SmallVector<Type> types;
      for (Value v : args)
        types.push_back(v.getType());
      func::FuncOp callee =
          getOrDeclare(module, symbols, call->functionName(), types);
      func::CallOp::create(rewriter, loc, callee, args);
      rewriter.eraseOp(op);
      if (fill)
        rewriter.eraseOp(fill);
    }
  }
};

} // namespace
