//===- OnednnMatch.cpp - which linalg ops oneDNN takes --------------------===//
//
// A contraction goes to oneDNN's matmul when it has at most one batch loop
// and one m, n and k loop each (linalg.matmul and its transposed forms,
// batch_matmul, contraction-shaped generics), with each operand indexed by a
// projected permutation of its loops (any transpose is a stride), f32 x f32
// -> f32, or bf16 x bf16 -> f32 on a CPU with AVX-512 (oneDNN 2.6 has no
// bf16 matmul below it). linalg.conv_2d_nchw_fchw with the same element
// types goes to oneDNN's convolution (bf16 on AVX-512 only, as the matmul:
// oneDNN 2.6's bf16 convolutions need avx512_core, which emulates the bf16
// dot products where AVX512-BF16 is missing). linalg.pooling_nchw_max
// (f32, or bf16 on AVX-512) goes to oneDNN's max pooling when its output
// starts as -inf (on tensors: a linalg.fill of it).
//
//===----------------------------------------------------------------------===//

#include "OnednnMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::amp;

static std::string typeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isBF16())
    return "bf16";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string OnednnCall::functionName() const {
  if (kind == Kind::PoolNchwMax)
    return "ampOnednnPoolNchwMax_" + typeName(a);
  std::string types = typeName(a) + "_" + typeName(b) + "_" + typeName(c);
  return (kind == Kind::Matmul ? "ampOnednnMatmul_"
                               : "ampOnednnConv2dNchwFchw_") +
         types;
}

/// The loop of result `i` of `map` (a projected permutation).
static int64_t loopOf(AffineMap map, unsigned i) {
  return cast<AffineDimExpr>(map.getResult(i)).getPosition();
}

/// Whether `map` reads exactly the loops `want` (-1 entries skipped), in any
/// order, the batch loop (want[0]) possibly absent when `batchOptional`.
static bool readsExactly(AffineMap map, ArrayRef<int64_t> want,
                         bool batchOptional) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return false;
  SmallVector<int64_t> loops;
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    loops.push_back(loopOf(map, i));
  SmallVector<int64_t> required;
  for (auto [i, l] : llvm::enumerate(want))
    if (l >= 0 && !(i == 0 && batchOptional && !llvm::is_contained(loops, l)))
      required.push_back(l);
  if (loops.size() != required.size())
    return false;
  return llvm::all_of(required,
                      [&](int64_t l) { return llvm::is_contained(loops, l); });
}

FailureOr<OnednnCall> mlir::amp::matchOnednnCall(linalg::LinalgOp op,
                                                 const CpuTarget &target,
                                                 std::string &whyNot) {
  whyNot.clear();
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumResults() > 1)
    return failure();
  OnednnCall call;
  call.a = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  call.b = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  call.c = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  bool f32 = call.a.isF32() && call.b.isF32() && call.c.isF32();
  bool bf16 = call.a.isBF16() && call.b.isBF16() && call.c.isF32();

  if (isa<linalg::PoolingNchwMaxOp>(op)) {
    call.kind = OnednnCall::Kind::PoolNchwMax;
    if (!(call.a.isF32() || call.a.isBF16()) || call.a != call.c) {
      whyNot = "element types " + typeName(call.a) + " -> " + typeName(call.c) +
               " (oneDNN's max pooling is called for f32 and bf16)";
      return failure();
    }
    if (call.a.isBF16() && !target.avx512) {
      whyNot = "oneDNN has no bf16 pooling on a CPU without AVX-512 (this "
               "target: " +
               describeCpuTarget(target) + ")";
      return failure();
    }
    // The initial maximum must be -inf: oneDNN overwrites the output.
    if (op.hasPureTensorSemantics()) {
      auto fill =
          op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
      auto cst = fill ? fill.getInputs()[0].getDefiningOp<arith::ConstantOp>()
                      : arith::ConstantOp();
      auto value = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
      if (!value || !value.getValue().isInfinity() ||
          !value.getValue().isNegative()) {
        whyNot = "a max pooling whose output does not start as -inf";
        return failure();
      }
    }
    return call;
  }
  bool conv = isa<linalg::Conv2DNchwFchwOp>(op);
  if (!conv && !linalg::isaContractionOpInterface(op))
    return failure();
  if (!f32 && !bf16) {
    whyNot = "element types " + typeName(call.a) + " x " + typeName(call.b) +
             " -> " + typeName(call.c) +
             " (oneDNN is called for f32 x f32 -> f32 and bf16 x bf16 -> "
             "f32)";
    return failure();
  }
  if (bf16 && !target.avx512) {
    whyNot =
        std::string("oneDNN has no bf16 ") + (conv ? "convolution" : "matmul") +
        " on a CPU without AVX-512 (this target: " + describeCpuTarget(target) +
        ")";
    return failure();
  }
  if (conv) {
    call.kind = OnednnCall::Kind::Conv2dNchwFchw;
    return call;
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->batch.size() > 1 || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1 ||
      op.getNumLoops() != dims->batch.size() + 3) {
    whyNot = "a contraction with more than one batch, m, n or k loop";
    return failure();
  }
  call.batch = dims->batch.empty() ? int64_t(-1) : int64_t(dims->batch.front());
  call.m = dims->m.front();
  call.n = dims->n.front();
  call.k = dims->k.front();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!readsExactly(maps[0], {call.batch, call.m, call.k}, true) ||
      !readsExactly(maps[1], {call.batch, call.k, call.n}, true) ||
      !readsExactly(maps[2], {call.batch, call.m, call.n}, false)) {
    whyNot = "an operand indexed by more than its own loops";
    return failure();
  }
  return call;
}
