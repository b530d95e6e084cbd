//===- Passes.td - CPU code generation ---------------------*- tablegen -*-===//

#ifndef AMP_CODEGEN_CPU_PASSES_TD
#define AMP_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def AmpCpuTileAndVectorize : Pass<"amp-cpu-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile and vectorize contractions and convolutions for the CPU (on tensors)";
  let description = [{
    Code generation for the compute-heavy linalg ops of `amp-cpu-pipeline`,
    on tensors, before bufferization:
    - 2-D convolutions (`linalg.conv_2d_nchw_fchw`, `_nhwc_hwcf`,
      `_nhwc_fhwc`) are rewritten into an im2col gather and a contraction
      (upstream `linalg::rewriteInIm2Col`; depthwise convolutions are not
      rewritten: upstream's NHWC depthwise im2col is wrong for a batch above
      1 in MLIR 22.1);
    - with `pack-rhs`, a plain 2-D `linalg.matmul` with static shapes whose
      B operand (K x N) holds at least 256 KiB and whose N is a multiple of
      the register tile's n gets B packed into panels: B becomes
      (N / n_r) x K x n_r (upstream `linalg::pack` and `packTranspose`,
      lowered to a reshape and a `linalg.transpose`), C is viewed as
      M x (N / n_r) x n_r, and the contraction becomes a `linalg.generic`
      with loops (N / n_r, M, K, n_r). The K x n_r strip that a register
      tile streams is then contiguous, instead of n_r columns at a stride of
      N elements, which for N a power of two fall into one cache set;
    - every contraction with static shapes (the matmul family, batch_matmul,
      contraction-shaped `linalg.generic`, the im2col products, the packed
      matmuls) is tiled twice with `scf.for` loops: a cache tile
      (`cache-tile` sizes for the m, n and k dimensions) and a register tile
      (`register-tile`). A group of several m (or n, or k) dimensions
      spreads its cache tile size over them from the innermost out; batch
      dimensions get tile size 1, and the register tile covers the
      innermost dimension of each group (unit dimensions of a packed
      contraction's register tile are dropped before vectorization,
      `linalg::dropUnitDims`). A cache tile size is reduced to the largest
      divisor of its dimension; a
      register tile loop whose size does not divide is peeled
      (`scf::peelForLoopAndSimplifyBounds`), so every tile is static (full
      tiles plus one smaller remainder tile). With `parallel`, for
      contractions of at least 2^25 flops, the cache-tile loops of the
      batch, m and n dimensions form one `scf.forall` (tiles are disjoint,
      so the result does not depend on the schedule) and the k loop runs
      inside it;
    - the register tile is vectorized (`linalg::vectorize`) into a
      `vector.contract` on `vector.transfer_read`s, with the f16/bf16 ->
      f32 extensions of mixed-precision contractions folded into it.
    The contraction's accumulator is kept in registers across the k loop by
    `loop-invariant-subset-hoisting`, which the pipeline runs next. Ops
    without static shapes are left for `convert-linalg-to-loops`.
  }];
  let options = [
    ListOption<"cacheTile", "cache-tile", "int64_t",
               "Cache tile sizes for the innermost m, n, k dimensions (elements)">,
    ListOption<"registerTile", "register-tile", "int64_t",
               "Register tile sizes for the innermost m, n, k dimensions (elements)">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Make the loops over the cache tiles of the parallel (batch, m, n) "
           "dimensions an scf.forall, so they can run on threads">,
    Option<"packRhs", "pack-rhs", "bool", /*default=*/"true",
           "Pack the B operand of large matmuls into register-wide panels">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::vector::VectorDialect", "::mlir::affine::AffineDialect"];
}

#endif // AMP_CODEGEN_CPU_PASSES_TD
