//===- ConvBf16Dot.cpp - bf16 NCHW convolutions on the AVX512-BF16 path ---===//
//
// The `amp-cpu-conv-bf16-dot` pass: a bf16 x bf16 -> f32
// `linalg.conv_2d_nchw_fchw` becomes an im2col gather that writes the
// patches straight into the VNNI layout of the AVX512-BF16 contraction
// path ([N, P/n_r, K/2, n_r, 2]) and that contraction, marked for
// amp-cpu-tile-and-vectorize's dot register tiles (vdpbf16ps). Upstream's
// im2col (`linalg::rewriteInIm2Col`) wrote [N, K, P], whose product has two
// n loops (the batch that the filter lacks, and P): it stayed on the FMA
// path with the bf16 operands extended in the inner loop, slower than f32;
// a VNNI copy of that buffer would have held the patches twice.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "CpuTarget.h"
#include "OnednnMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUCONVBF16DOT
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// The panel width n_r for P output positions: 64 (32, two AMX tiles'
/// columns, with AMX), or 48/32/16 where that pads P much less (as
/// amp-cpu-tile-and-vectorize's dotPanelWidth).
int64_t panelWidth(int64_t p, bool amx) {
  auto padded = [&](int64_t w) { return llvm::divideCeil(p, w) * w; };
  int64_t best = padded(16);
  for (int64_t w = amx ? 32 : 64; w > 16; w -= 16)
    if (padded(w) * 8 <= best * 9)
      return w;
  return 16;
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Pads `v` (static shape) with `zero` at the high end of each dimension
/// to `shape`; `v` itself when it has that shape.
Value padHigh(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape,
              Value zero) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  SmallVector<OpFoldResult> low(shape.size(), b.getIndexAttr(0)), high;
  for (auto [have, want] : llvm::zip(type.getShape(), shape))
    high.push_back(b.getIndexAttr(want - have));
  return tensor::PadOp::create(b, loc, type.clone(shape), v, low, high, zero);
}

LogicalResult rewriteConv(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                          bool amx) {
  if (!conv.hasPureTensorSemantics() || conv.hasDynamicShape() ||
      conv->getNumResults() != 1)
    return failure();
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1],
        init = conv.getOutputs()[0];
  auto inType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  if (!inType.getElementType().isBF16() ||
      !filterType.getElementType().isBF16() ||
      !outType.getElementType().isF32())
    return failure();
  SmallVector<int64_t> strides =
      llvm::to_vector(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations =
      llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t n = outType.getDimSize(0), f = outType.getDimSize(1),
          oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t c = filterType.getDimSize(1), kh = filterType.getDimSize(2),
          kw = filterType.getDimSize(3);
  int64_t k = c * kh * kw, p = oh * ow;
  if (k == 0 || p == 0 || n == 0 || f == 0)
    return failure();
  int64_t nr = panelWidth(p, amx);
  int64_t pPadded = llvm::divideCeil(p, nr) * nr, k2 = llvm::divideCeil(k, 2);

  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  MLIRContext *ctx = rewriter.getContext();
  Type bf16 = rewriter.getBF16Type(), f32 = rewriter.getF32Type();
  Value zeroBf16 = arith::ConstantOp::create(rewriter, loc, bf16,
                                             rewriter.getZeroAttr(bf16));
  Value zeroF32 =
      arith::ConstantOp::create(rewriter, loc, f32, rewriter.getZeroAttr(f32));

  // 1. The patches in VNNI layout: col[b, pb, k2, pr, t] =
  // input[b, ci, oh*sh + kh*dh, ow*sw + kw*dw] for p = pb*n_r + pr and
  // k = 2*k2 + t = (ci, kh, kw), zero past P or K. Loops (b, pb, k2, pr, t),
  // the order of `col` itself: its writes are contiguous. (Loops (b, pb, k2,
  // t, pr), the input rows walked contiguously and col written 4 bytes
  // apart, took 2.5x longer: the digits CNN's weight-gradient patches,
  // 16 x 512 x 16 x 2, 0.22 -> 0.085 ms on an AMX Xeon.)
  using utils::IteratorType;
  auto colType = RankedTensorType::get({n, pPadded / nr, k2, nr, 2}, bf16);
  Value colInit =
      tensor::EmptyOp::create(rewriter, loc, colType.getShape(), bf16);
  AffineExpr d0, d1, d2, d3, d4, d5;
  bindDims(ctx, d0, d1, d2, d3, d4, d5);
  AffineMap colMap = AffineMap::get(5, 0, {d0, d1, d2, d3, d4}, ctx);
  Value col =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{colType}, ValueRange{}, ValueRange{colInit},
          ArrayRef<AffineMap>{colMap},
          SmallVector<IteratorType>(5, IteratorType::parallel),
          [&](OpBuilder &b, Location l, ValueRange) {
            auto idx = [&](int64_t d) -> Value {
              return linalg::IndexOp::create(b, l, d);
            };
            auto cst = [&](int64_t v) { return indexConst(b, l, v); };
            Value ib = idx(0), ipb = idx(1), ik2 = idx(2), ipr = idx(3),
                  it = idx(4);
            Value pos = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, ipb, cst(nr)), ipr);
            Value kk = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, ik2, cst(2)), it);
            Value valid;
            auto clampTo = [&](Value v, int64_t extent, int64_t padded) {
              if (padded == extent)
                return v;
              Value in = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                               v, cst(extent));
              valid = valid ? arith::AndIOp::create(b, l, valid, in) : in;
              return Value(arith::MinUIOp::create(b, l, v, cst(extent - 1)));
            };
            pos = clampTo(pos, p, pPadded);
            kk = clampTo(kk, k, 2 * k2);
            Value ci = arith::DivUIOp::create(b, l, kk, cst(kh * kw));
            Value r = arith::RemUIOp::create(b, l, kk, cst(kh * kw));
            Value ikh = arith::DivUIOp::create(b, l, r, cst(kw));
            Value ikw = arith::RemUIOp::create(b, l, r, cst(kw));
            Value ioh = arith::DivUIOp::create(b, l, pos, cst(ow));
            Value iow = arith::RemUIOp::create(b, l, pos, cst(ow));
            auto coord = [&](Value o, int64_t s, Value w, int64_t dl) {
              return arith::AddIOp::create(
                  b, l, arith::MulIOp::create(b, l, o, cst(s)),
                  arith::MulIOp::create(b, l, w, cst(dl)));
            };
            Value h = coord(ioh, strides[0], ikh, dilations[0]);
            Value w = coord(iow, strides[1], ikw, dilations[1]);
            Value v = tensor::ExtractOp::create(b, l, input,
                                                ValueRange{ib, ci, h, w});
            if (valid)
              v = arith::SelectOp::create(b, l, valid, v, zeroBf16);
            linalg::YieldOp::create(b, l, v);
          })
          .getResult(0);

  // 2. The filter as [F, K/2, 2] (K padded to even with a zero).
  Value w2 = tensor::CollapseShapeOp::create(
      rewriter, loc, filter, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  w2 = padHigh(rewriter, loc, w2, {f, 2 * k2}, zeroBf16);
  Value w3 = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, k2, 2}, bf16), w2,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}});

  // 3. The accumulator viewed as [N, F, P/n_r, n_r] (P padded with zeros).
  Value acc = tensor::CollapseShapeOp::create(
      rewriter, loc, init, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  acc = padHigh(rewriter, loc, acc, {n, f, pPadded}, zeroF32);
  auto accType = RankedTensorType::get({n, f, pPadded / nr, nr}, f32);
  acc = tensor::ExpandShapeOp::create(
      rewriter, loc, accType, acc,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});

  // 4. The contraction, loops (b, pb, f, pr, k2, t): the packed order of
  // the AVX512-BF16 path.
  AffineMap aMap = AffineMap::get(6, 0, {d2, d4, d5}, ctx);
  AffineMap bMap = AffineMap::get(6, 0, {d0, d1, d4, d3, d5}, ctx);
  AffineMap cMap = AffineMap::get(6, 0, {d0, d2, d1, d3}, ctx);
  SmallVector<IteratorType> iterators(4, IteratorType::parallel);
  iterators.append(2, IteratorType::reduction);
  auto contraction = linalg::GenericOp::create(
      rewriter, loc, TypeRange{accType}, ValueRange{w3, col}, ValueRange{acc},
      ArrayRef<AffineMap>{aMap, bMap, cMap}, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value a = arith::ExtFOp::create(b, l, f32, args[0]);
        Value bb = arith::ExtFOp::create(b, l, f32, args[1]);
        Value prod = arith::MulFOp::create(b, l, a, bb);
        linalg::YieldOp::create(
            b, l, Value(arith::AddFOp::create(b, l, args[2], prod)));
      });
  contraction->setAttr(amp::kBf16DotContractionMarker, rewriter.getUnitAttr());

  // 5. Back to [N, F, OH, OW].
  Value result = tensor::CollapseShapeOp::create(
      rewriter, loc, contraction.getResult(0),
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  if (pPadded != p) {
    SmallVector<OpFoldResult> offsets(3, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(n),
                                       rewriter.getIndexAttr(f),
                                       rewriter.getIndexAttr(p)};
    SmallVector<OpFoldResult> ones(3, rewriter.getIndexAttr(1));
    result = tensor::ExtractSliceOp::create(rewriter, loc, result, offsets,
                                            sizes, ones);
  }
  result = tensor::ExpandShapeOp::create(
      rewriter, loc, outType, result,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  rewriter.replaceOp(conv, result);
  return success();
}

struct AmpCpuConvBf16DotPass
    : public amp::impl::AmpCpuConvBf16DotBase<AmpCpuConvBf16DotPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<amp::CpuTarget> target =
        amp::getCpuTarget(cpuFeatures, getOperation(), "amp-cpu-conv-bf16-dot");
    if (failed(target))
      return signalPassFailure();
    if (!target->avx512bf16)
      return;
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    func.walk([&](linalg::Conv2DNchwFchwOp op) {
      if (!op->hasAttr(amp::kOnednnMarker))
        convs.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::Conv2DNchwFchwOp conv : convs)
      (void)rewriteConv(rewriter, conv, target->amx);
  }
};

} // namespace
