//===- CublasContractions.cpp - matmuls as cuBLAS calls -------------------===//
//
// The `amp-gpu-cublas-contractions` pass: every 2-D `linalg.matmul` on
// identity-layout buffers with f16 x f16 -> f32, bf16 x bf16 -> f32 or
// f32 x f32 -> f32 element types becomes a call to the CUDA runtime's
// cublasGemmEx wrapper (`ampCublasMatmul{F16F32,BF16F32,F32}`, fp32
// compute type), through its C interface (memref descriptors by pointer),
// C = A * B + beta * C: beta 1, or 0 when a zero fill of C right before the
// matmul (bufferization's zeroed accumulator) is fused into the call.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Codegen/GPU/Passes.h"

#include "GpuUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUCUBLASCONTRACTIONS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The runtime function for the element types, or an empty name.
StringRef getCublasFunction(Type a, Type b, Type c) {
  if (a != b || !c.isF32())
    return {};
  if (a.isF16())
    return "ampCublasMatmulF16F32";
  if (a.isBF16())
    return "ampCublasMatmulBF16F32";
  if (a.isF32())
    return "ampCublasMatmulF32";
  return {};
}

/// Whether `input` cannot share memory with `output`, a buffer the function
/// allocates (`memref.alloc`): the input is (a view of) another allocation,
/// a global or an argument of the function. A value from anywhere else (an
/// `scf.if` or call result, a block argument of a branch) may be the
/// output.
bool cannotAlias(Value input, memref::AllocOp output) {
  Value root = rootBuffer(input);
  if (root == output.getResult())
    return false;
  if (auto arg = dyn_cast<BlockArgument>(root))
    return arg.getOwner()->isEntryBlock() &&
           isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<memref::GetGlobalOp>();
}

/// The fill of `mm`'s output with a constant zero right before it (the op
/// before it in its block, on the same buffer value), which a GEMM with
/// beta = 0 replaces, or null. Only with a static k > 0 (cuBLAS leaves C
/// alone when k is 0), and where C is a buffer the function allocates
/// (bufferization's zeroed accumulator) that A and B cannot share (they
/// would read the zeros the fill wrote).
linalg::FillOp zeroFillOfOutput(linalg::MatmulOp mm) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(mm->getPrevNode());
  if (!fill || !fill.hasPureBufferSemantics() ||
      fill.getOutputs()[0] != mm.getDpsInits()[0])
    return {};
  auto value = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  auto zero = value ? dyn_cast<FloatAttr>(value.getValue()) : FloatAttr();
  int64_t k = cast<MemRefType>(mm.getDpsInputs()[0].getType()).getDimSize(1);
  if (!zero || !zero.getValue().isZero() || zero.getType() != value.getType() ||
      ShapedType::isDynamic(k) || k == 0)
    return {};
  auto output =
      rootBuffer(fill.getOutputs()[0]).getDefiningOp<memref::AllocOp>();
  if (!output || !cannotAlias(mm.getDpsInputs()[0], output) ||
      !cannotAlias(mm.getDpsInputs()[1], output))
    return {};
  return fill;
}

struct AmpGpuCublasContractionsPass
    : public amp::impl::AmpGpuCublasContractionsBase<
          AmpGpuCublasContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp mm) {
      if (mm.hasPureBufferSemantics())
        matmuls.push_back(mm);
    });
    for (linalg::MatmulOp mm : matmuls) {
      Value a = mm.getDpsInputs()[0], b = mm.getDpsInputs()[1],
            c = mm.getDpsInits()[0];
      auto ta = cast<MemRefType>(a.getType()),
           tb = cast<MemRefType>(b.getType()),
           tc = cast<MemRefType>(c.getType());
      StringRef name = getCublasFunction(
          ta.getElementType(), tb.getElementType(), tc.getElementType());
      if (name.empty())
        continue;
      // Default (non-transposed) indexing maps and row-major buffers only.
      if (ta.getRank() != 2 || tb.getRank() != 2 || tc.getRank() != 2 ||
          mm.getIndexingMapsArray() !=
              linalg::MatmulOp::getDefaultIndexingMaps(&getContext()))
        continue;
      if (!ta.getLayout().isIdentity() || !tb.getLayout().isIdentity() ||
          !tc.getLayout().isIdentity()) {
        mm.emitRemark("amp-gpu-cublas-contractions: strided buffer; not a "
                      "cuBLAS call");
        continue;
      }
      auto dyn = [](MemRefType t) {
        return MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic},
                               t.getElementType());
      };
      auto callee = symbols.lookup<func::FuncOp>(name);
      if (!callee) {
        OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
        callee = func::FuncOp::create(
            b, module.getLoc(), name,
            b.getFunctionType({dyn(ta), dyn(tb), dyn(tc), b.getF32Type()}, {}));
        callee.setPrivate();
        callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        b.getUnitAttr());
        symbols.insert(callee);
        // The runtime's variant that does not synchronize, for
        // amp-gpu-async-launches.
        std::string queuedName = (name + "Queued").str();
        if (!symbols.lookup(queuedName)) {
          auto queued = cast<func::FuncOp>(b.clone(*callee));
          queued.setName(queuedName);
          symbols.insert(queued);
          callee->setAttr(AmpDialect::getQueuedVariantAttrName(),
                          FlatSymbolRefAttr::get(queued.getNameAttr()));
        }
      }
      // A zero fill of C right before: beta = 0, and the fill (a kernel
      // writing C, then the GEMM reading it) goes.
      linalg::FillOp fill = zeroFillOfOutput(mm);
      rewriter.setInsertionPoint(mm);
      SmallVector<Value> args;
      for (auto [v, t] : {std::pair{a, ta}, {b, tb}, {c, tc}})
        args.push_back(
            memref::CastOp::create(rewriter, mm.getLoc(), dyn(t), v));
      args.push_back(arith::ConstantOp::create(
          rewriter, mm.getLoc(), rewriter.getF32FloatAttr(fill ? 0.0f : 1.0f)));
      func::CallOp::create(rewriter, mm.getLoc(), callee, args);
      rewriter.eraseOp(mm);
      if (fill)
        rewriter.eraseOp(fill);
    }
  }
};

} // namespace
