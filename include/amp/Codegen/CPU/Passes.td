//===- Passes.td - CPU code generation ---------------------*- tablegen -*-===//

#ifndef AMP_CODEGEN_CPU_PASSES_TD
#define AMP_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def AmpCpuProfileOps : Pass<"amp-cpu-profile-ops", "::mlir::ModuleOp"> {
  let summary = "Time every top-level op of each function (per-op profile of JIT code)";
  let description = [{
    Instrumentation for `amp-cpu-pipeline{profile=true}`, on buffers (after
    bufferization and the oneDNN calls, before the loops are lowered): each
    op directly in a `func.func` body that computes (a linalg op, an op
    with regions such as the `scf.forall` of a tiled contraction, a
    `func.call`, a `memref.copy`) is bracketed by
    `%t = func.call @ampProfileNow() : () -> i64` and
    `func.call @ampProfileRecord(%name, %t)`, where `%name` is the address
    of an `llvm.mlir.global` string
    "`function`#`index` `op name` `operand types` `location`". The CPU
    runtime (`libamp_cpu_runtime.so`) sums the nanoseconds and calls per
    name; `amp-runner --amp-profile` prints the table after the run,
    `amp_mlir.cpu_profile()` returns it to Python. Ops without side effects
    that compute nothing (views, allocations, constants) are not timed.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

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
    - with AVX512-BF16 (`cpu-features`: host detected, avx512bf16 or amx),
      a bf16 x bf16 -> f32 contraction with one m, n and k loop and at most
      one batch loop is packed for `vdpbf16ps` instead (B as [batch] x
      N/n_r x K/2 x n_r x 2, A's K split into pairs, C viewed as M x N/n_r x
      n_r; odd K and partial panels zero-padded: upstream `linalg::pack`,
      `packTranspose`), tiled with `dot-cache-tile` / `dot-register-tile`,
      and its register tile unrolled to 1 x 16 x 1 x 2 contractions that
      upstream's packed-type dot-product patterns turn into
      `x86vector.avx512.dot` on a broadcast A pair.
    - with AMX (`cpu-features`: host detected, or amx), the same packing
      with 32-column panels (16 where that pads N much less), and register
      tiles of 32 x 32 x 16 pairs (2 x 2 AMX tiles of C) left as
      `vector.contract`s in VNNI layout for `amp-cpu-amx-tiles` (after
      bufferization), as many as the function's tile shapes allow (see
      there); the others take the AVX512-BF16 path.
    - `round-accumulator-tiles` (default on): a contraction tiled into an
      `scf.forall` whose zero-filled f32 result is read only through
      `arith.truncf` to one narrow type (autocast's bf16/f16 consumers of
      an fp32-accumulated matmul) accumulates each cache tile in a
      tile-sized f32 tensor and rounds it as it inserts it into a narrow
      result; the readers take that and their `truncf` folds away. Same
      numbers, no full-size f32 accumulator.
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
    Option<"roundAccumulatorTiles", "round-accumulator-tiles", "bool",
           /*default=*/"true",
           "Round a parallel contraction's f32 accumulator to the narrow type "
           "its readers truncate it to per cache tile (tile-sized f32 "
           "accumulators, a narrow result)">,
    ListOption<"dotCacheTile", "dot-cache-tile", "int64_t",
               "Cache tile sizes (m, n, k) of the AVX512-BF16 contractions">,
    ListOption<"dotRegisterTile", "dot-register-tile", "int64_t",
               "Register tile sizes (m, n, k) of the AVX512-BF16 contractions "
               "(n a multiple of 16: also B's panel width; k is 2)">,
    Option<"cpuFeatures", "cpu-features", "std::string", /*default=*/"\"host\"",
           "Target CPU features: host (detected), generic, avx512bf16 or amx. "
           "With AVX512-BF16, bf16 x bf16 -> f32 contractions get B packed "
           "in VNNI layout and x86vector.avx512.dot register tiles">,
  ];
  // Ops marked `amp_cpu.onednn` (amp-cpu-select-onednn) are left alone.
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::vector::VectorDialect", "::mlir::affine::AffineDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def AmpCpuSelectOnednn : Pass<"amp-cpu-select-onednn", "func::FuncOp"> {
  let summary = "Mark the contractions and convolutions that oneDNN computes (gemm=onednn, on tensors)";
  let description = [{
    The first half of `amp-cpu-pipeline{gemm=onednn}`, on tensors before
    `amp-cpu-tile-and-vectorize`: every linalg op that a oneDNN primitive of
    the CPU runtime computes on the target CPU gets the unit attribute
    `amp_cpu.onednn`, which the code generator skips and
    `amp-cpu-onednn-contractions` turns into a call after bufferization:
    - contractions with at most one batch loop and one m, n and k loop each
      (`linalg.matmul` with any indexing maps, so its transposed forms,
      `linalg.batch_matmul`, contraction-shaped `linalg.generic`s), each
      operand indexed by a projected permutation of its own loops, in
      f32 x f32 -> f32, or bf16 x bf16 -> f32 (fp32 accumulation, what
      amp-fp32-accumulation leaves) on a CPU with AVX-512 (oneDNN 2.6 has
      no bf16 matmul below it);
    - `linalg.conv_2d_nchw_fchw` in f32.
    A contraction or convolution it does not take gets a remark (once per
    reason and function) saying why it stays on code generation.
  }];
  let options = [
    Option<"cpuFeatures", "cpu-features", "std::string", /*default=*/"\"host\"",
           "Target CPU: host, generic, avx512bf16 or amx">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AmpCpuOnednnContractions : Pass<"amp-cpu-onednn-contractions", "ModuleOp"> {
  let summary = "Linalg ops marked amp_cpu.onednn to calls of the CPU runtime's oneDNN primitives (on buffers)";
  let description = [{
    The second half of `amp-cpu-pipeline{gemm=onednn}`, after bufferization:
    each op marked `amp_cpu.onednn` becomes a call to the CPU runtime
    (`libamp_cpu_runtime.so`) through its C interface, as the CUDA
    pipeline's cuBLAS calls:
    - a matmul to `ampOnednnMatmul_<A>_<B>_<C>` (`f32_f32_f32`,
      `bf16_bf16_f32`) on rank-3 strided views in the runtime's order
      (A [batch, m, k], B [batch, k, n], C [batch, m, n]; a transposed
      operand is a view with permuted strides, a missing batch loop a batch
      of 1 that oneDNN broadcasts), built with
      `memref.extract_strided_metadata` and `memref.reinterpret_cast`;
    - a `linalg.conv_2d_nchw_fchw` to `ampOnednnConv2dNchwFchw_<I>_<F>_<O>`
      with its strides and dilations; a bf16 convolution whose input or
      filter is a cast of an f32 buffer (autocast) to
      `ampOnednnConv2dBf16_<I>_<F>_<O>` on the f32 buffer, which the runtime
      rounds as it reorders it into oneDNN's layout (the cast is erased);
      a bf16 convolution's zero-filled f32 output that one elementwise
      generic reads only through `arith.truncf` to bf16 becomes a bf16
      buffer that oneDNN writes (the truncf is erased);
    - with `post-ops` (the default), a convolution whose zero-filled output
      is read by one elementwise `linalg.generic` only (later in its block)
      that computes a chain on it: `addf`/`mulf` (either operand order),
      `subf`/`divf` (the convolution's value first) with a per-channel
      operand (indexed by the channel loop only, batch norm's mean, scale,
      weight and bias) or a full-size f32 one (the residual), ReLU
      (`cmpf ugt` + `select` of 0.0, or `maximumf` with 0.0), and a final
      `truncf` to bf16 (a ReLU may follow it: rounding commutes with it),
      to `ampOnednnConv2dPost_<I>_<F>_<O>`: the chain becomes oneDNN
      binary / eltwise post-ops in the same order on the f32 accumulators,
      the call writes the generic's output and is placed where the
      generic was (provided nothing in between writes the convolution's
      inputs), the generic and the f32 output go. A leading
      `truncf`+`extf` of the convolution's value (autocast's bf16 result
      of the convolution, widened for the batch norm) is dropped: the
      fused chain reads the f32 accumulator (one rounding fewer, at most
      half a bf16 ulp before the batch norm). Other chains, bf16 or
      non-channel operands, more than 6 operands or 8 ops stay unfused;
    - likewise a `linalg.matmul` (no batch loop, C indexed (m, n)) whose
      zero-filled M x N output (an allocation, or a `collapse_shape` of one
      that keeps its last dimension) one elementwise generic reads,
      directly or through one `memref.expand_shape` (torch-mlir's 4 x 128 x
      N view, or 1 x 128 x 4 x 3 x 256 for attention's packed projection),
      to `ampOnednnMatmulPost_<A>_<B>_<C>_<S>`: operands per column (a
      Linear's bias, read by the loops N was split into, contiguous) or
      full-size contiguous (a residual), all of element type S (f32 or
      bf16); the chain may also hold an erf-GELU (x * ((erf(x
      / sqrt 2) + 1) * 0.5), oneDNN's eltwise_gelu_erf), and a leading
      `truncf` of the accumulator followed by bf16 ops (autocast's bias +
      GELU), which oneDNN computes in f32 with one rounding at the end.
    The call computes C = A * B + beta * C, beta 1, or 0 when a zero fill of
    C right before the op (bufferization's zeroed accumulator, in a buffer
    of the function that the inputs are no views of, with a non-empty
    reduction) is folded into it. The runtime creates one oneDNN primitive
    per element types, shapes, strides, beta and post-ops and keeps it.
  }];
  let options = [
    Option<"postOps", "post-ops", "bool", /*default=*/"true",
           "Fold an elementwise consumer (batch norm, ReLU, bias, GELU, "
           "residual add) into the convolution or matmul as oneDNN post-ops">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::LLVM::LLVMDialect"];
}

def AmpCpuBf16Remark : Pass<"amp-cpu-bf16-remark", "ModuleOp"> {
  let summary = "Say once when the target CPU has no bf16 arithmetic and the module computes in bf16";
  let description = [{
    On a target without AVX512-BF16 or AMX (`cpu-features=generic`, or a
    host such as an AVX2-only machine), a module with arith/math or linalg
    ops computing bf16 results after autocast gets one remark at the first
    of them: the bf16 compute is emulated (widened to f32 and rounded back
    after each op) and so slower than f32; what autocast still saves is
    memory (bf16 activations and weight copies take half the bytes).
  }];
  let options = [
    Option<"cpuFeatures", "cpu-features", "std::string", /*default=*/"\"host\"",
           "Target CPU: host, generic, avx512bf16 or amx">,
  ];
}

def AmpCpuAmxTiles : Pass<"amp-cpu-amx-tiles", "func::FuncOp"> {
  let summary = "AMX tiles for bf16 register tiles in VNNI layout (on buffers)";
  let description = [{
    On a CPU with AMX (`cpu-features`: host with AMX-TILE and AMX-BF16 that
    the kernel enables, or amx; a no-op otherwise), every bf16 x bf16 -> f32
    `vector.contract` in the VNNI layout of `tdpbf16ps` (A indexed
    (m, k, pair), B (k, n, pair), C (m, n), a pair dimension of 2; M and N
    at most 32, K/2 at most 16: `amp-cpu-tile-and-vectorize`'s AMX
    register tiles) becomes a block of up to 2 x 2 C tiles (16 x 16 f32):
    `amx.tile_load`s of B's column tiles and A's row tiles and one
    `amx.tile_mulf` per C tile, as long as the function's tile shapes fit
    the 8 tile registers (LLVM gives each register one shape per function
    and does not spill tiles; whole blocks first, the rest stays vector
    code):
    - an accumulator carried by the `scf.for` around the contraction (the
      k loop, after `loop-invariant-subset-hoisting`) is carried as
      `!amx.tile`s instead, loaded before the loop and stored after it;
    - tiles are loaded where they are used, from the buffer of the
      transfer that read the vector when that transfer has no mask, is in
      bounds, maps the vector dimensions to increasing buffer dimensions
      with the innermost contiguous (a VNNI operand's pairs included) and
      nothing may write the buffer in between (alias analysis) — the row
      stride is passed to the tile op — else from a stack copy made where
      the vector is defined; results are stored the same way.
    Upstream's `convert-vector-to-amx` converts one contraction at a time
    and loads and stores a loop-carried accumulator on every k step.
    The tiles lower to LLVM's AMX intrinsics
    (`convert-vector-to-llvm{enable-amx}`); the process needs the kernel's
    AMX permission, which the CPU runtime requests when it is loaded.
  }];
  let options = [
    Option<"cpuFeatures", "cpu-features", "std::string", /*default=*/"\"host\"",
           "Target CPU features: host (detected), generic, avx512bf16 or amx">,
  ];
  let dependentDialects = ["::mlir::amx::AMXDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::ub::UBDialect", "::mlir::vector::VectorDialect"];
}

def AmpCpuFlattenPairTransfers : Pass<"amp-cpu-flatten-pair-transfers", "func::FuncOp"> {
  let summary = "1-D vector transfers for the bf16 pairs of AVX512-BF16 tiles (on buffers)";
  let description = [{
    Upstream's `populateFlattenVectorTransferPatterns` for transfers whose
    innermost vector dimension holds at most 32 bits: an n-D transfer over
    contiguous memory (a row of 16 VNNI pairs, `vector<1x16x2xbf16>`, of a
    B panel that `amp-cpu-tile-and-vectorize` packed for AVX512-BF16)
    becomes a `memref.collapse_shape` and one 1-D transfer, loaded as one
    zmm register. `convert-vector-to-scf{full-unroll}` otherwise unrolls it
    to one 4-byte transfer per pair. Transfers over memory that is not
    contiguous are left alone.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect"];
}

def AmpCpuVectorizeReductions : Pass<"amp-cpu-vectorize-reductions", "func::FuncOp"> {
  let summary = "Vector code for linalg reductions over the innermost loop (on tensors)";
  let description = [{
    A `linalg.generic` directly in a function body, with static shapes,
    one reduction loop which is its innermost loop, and every input either
    read along that loop as its innermost dimension or not indexed by it
    (softmax's row max and row sum, layer_norm's mean and variance; not a
    contraction) is tiled with `scf.for` loops to one row per step (tile
    size 1 for each parallel loop, upstream `scf::tileUsingSCF`) and the
    row vectorized (upstream `linalg::vectorize`: transfer reads and a
    `vector.multi_reduction`). A row longer than 512 is reduced in chunks
    of the largest divisor of its length up to 512; rows (chunks) shorter
    than 8 are left alone, as is a tile the vectorizer refuses. Lowered to
    loops instead, such a reduction stayed scalar (LLVM's loop vectorizer
    keeps an f32 sum in order and does not vectorize `maximumf`
    reductions); `amp-cpu-pipeline` lowers the row's `vector.reduction`
    with `reassociate-fp-reductions`, a tree of vector ops.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def AmpCpuVectorizeTransposes : Pass<"amp-cpu-vectorize-transposes", "func::FuncOp"> {
  let summary = "Vector code for linalg.transpose ops that move the innermost dimension (on tensors)";
  let description = [{
    A `linalg.transpose` directly in a function body, with static shapes,
    whose permutation moves the innermost dimension (attention's K^T, the
    W^T of a torch-mlir `Linear` before its matmul) is tiled with `scf.for`
    loops into blocks of `block` x `block` elements of the two dimensions
    that are innermost in the input and in the output (each reduced to the
    largest divisor of its dimension; tile size 1 for the other
    dimensions; left alone when a block side would be below 4), and each
    block vectorized (upstream `linalg::generalizeNamedOp`,
    `linalg::dropUnitDims`, `linalg::vectorize`: a transfer read of the
    block, a 2-D `vector.transpose`, a transfer write). Lowered to loops
    instead, every element was a scalar load at the input's outer stride.
    Transposes that keep the innermost dimension are row copies that the
    loop vectorizer already takes.
  }];
  let options = [
    Option<"blockSize", "block", "int64_t", /*default=*/"8",
           "the side of the square blocks (elements)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def AmpCpuConvBf16Dot : Pass<"amp-cpu-conv-bf16-dot", "func::FuncOp"> {
  let summary = "bf16 NCHW convolutions as im2col in VNNI layout + an AVX512-BF16 contraction (on tensors)";
  let description = [{
    On a CPU with AVX512-BF16 (`cpu-features`), every
    `linalg.conv_2d_nchw_fchw` with bf16 input and filter and an f32
    accumulator (autocast's convolutions and their gradients), static
    shapes, not marked for oneDNN, becomes:
    - an im2col gather (a `linalg.generic` of `tensor.extract`s) that writes
      the patches in the VNNI layout the AVX512-BF16 contraction reads:
      [N, P/n_r, K/2, n_r, 2] for P = OH*OW output positions and
      K = C*KH*KW (the two k of a pair adjacent; P padded to a multiple of
      the panel width n_r, 16 to 64, and K to an even number with zeros);
    - the filter viewed as [F, K/2, 2] (a reshape; an odd K padded);
    - the accumulator viewed as [N, F, P/n_r, n_r] (a reshape; padded when
      n_r does not divide P, the padding sliced off the result);
    - a contraction `linalg.generic` with loops (N, P/n_r, F, n_r, K/2, 2),
      the packed order of amp-cpu-tile-and-vectorize's AVX512-BF16 path,
      marked for its dot register tiles (6 x n_r f32 accumulators,
      `x86vector.avx512.dot`).
    Upstream's im2col for NCHW (`linalg::rewriteInIm2Col`, which
    amp-cpu-tile-and-vectorize applies to the others) writes [N, K, P],
    whose product has two n loops (the batch the filter lacks, and P): it
    stayed on the FMA path with bf16 operands extended in the inner loop,
    slower than the f32 convolution, and a VNNI copy of its buffer held the
    patches twice. Without AVX512-BF16 the pass changes nothing.
  }];
  let options = [
    Option<"cpuFeatures", "cpu-features", "std::string", /*default=*/"\"host\"",
           "Target CPU features: host (detected), generic, avx512bf16 or amx">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AmpCpuVectorizePooling : Pass<"amp-cpu-vectorize-pooling", "func::FuncOp"> {
  let summary = "Vector code for non-overlapping linalg.pooling_nchw_max (on tensors)";
  let description = [{
    A `linalg.pooling_nchw_max` directly in a function body, with static
    shapes, a float element type, strides equal to its window and no
    dilation (torch's `max_pool2d(k)`; rows and columns past the last
    window are sliced off), becomes a `linalg.generic` over its input
    reshaped to [N, C, OH, KH, OW, KW] that reduces over KH and KW with the
    pooling's own combiner. The generic is tiled with `scf.for` loops to
    one (n, c) plane per step (a band of output rows when the plane holds
    more than 512 input elements, or of one row's windows) and the tile
    vectorized (upstream `scf::tileUsingSCF`, `linalg::dropUnitDims`,
    `linalg::vectorize`: one contiguous transfer read and a
    `vector.multi_reduction`). Lowered to loops instead, a bf16 pooling was
    scalar code (LLVM's loop vectorizer does not take bf16 compares: the
    digits CNN's 64x16x8x8 pooling took 0.17 ms against 0.045 ms in f32),
    an f32 one 4-wide. Poolings marked for oneDNN are left alone; others
    (overlapping windows, dilations, dynamic shapes) stay loops.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def AmpCpuApproximateMath : Pass<"amp-cpu-approximate-math", "func::FuncOp"> {
  let summary = "f32 erf, tanh and exp as polynomial approximations that vectorize";
  let description = [{
    Upstream's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`) for f32 `math.erf`,
    `math.tanh` and `math.exp` (scalars and vectors): arith ops only, so the
    loop vectorizer vectorizes the elementwise loops that hold them (GELU's
    erf or tanh, softmax's exp), where `convert-math-to-libm` left one
    scalar libm call per element. exp is within 3 ulp of the exact result
    where that is a normal f32 and flushes results below 2^-126 to zero
    (python/tests/test_digits.py's training runs stay within their 1-point
    limit: f32 97.6%, bf16 97.8%, f16 98.0%). `amp-cpu-pipeline` runs it
    before f16/bf16 math is
    extended to f32 (`math-extend-to-supported-types`), so narrow math keeps
    libm's results.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def AmpCpuReadOnlyArguments : Pass<"amp-cpu-read-only-arguments", "ModuleOp"> {
  let summary = "Public functions never write their tensor arguments' buffers (no copies at the call)";
  let description = [{
    Before bufferization: every tensor argument of a public `func.func` with
    a body (and without `amp.may_write_args`, which declares in-place
    writes) gets `bufferization.writable = false`, so that one-shot
    bufferization allocates a new buffer where it would have written the
    caller's in place, and the function gets the unit attribute
    `amp_cpu.read_only_args` (kept on the `llvm.func`). The Python package passes
    numpy arrays to such functions as they are, instead of a private copy
    per call (which cost two passes over every argument).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def AmpCpuRecoverableAsserts : Pass<"amp-cpu-recoverable-asserts", "ModuleOp"> {
  let summary = "cf.assert reports to the CPU runtime and execution continues memory-safely, instead of abort()";
  let description = [{
    On linalg on tensors, before tiling: every `cf.assert %ok, "msg"`
    becomes `scf.if` (not `%ok`) calling the CPU runtime's
    `amp_cpu_assert_failed(const char *)` with the message and the assert's
    source locations (`msg at "file":line:col at ...`), and execution
    continues. The runtime keeps the first message of a call; the caller
    (the Python package, amp-runner) takes it after the call returns and
    reports the failure (a Python exception, a non-zero exit) instead of
    the process dying in upstream's lowering (`puts` + `abort`).

    Continuing is made memory-safe for what the asserts guard: every
    `tensor.extract` and `tensor.insert` after an assert in its block
    (torch-mlir's gather, embedding and index_select bodies check an index
    read from the input this way, then extract with it) gets its indices
    clamped into `[0, dim - 1]`. An in-range index is unchanged, so results
    of calls whose asserts hold are the same; an out-of-range one reads an
    element of the tensor instead of memory outside it, and the call's
    results are discarded by the caller. Unwinding instead (longjmp from
    the hook) is not sound: the assert may run on an OpenMP worker thread,
    and buffers allocated before it would leak.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def AmpCpuCollapseElementwise : Pass<"amp-cpu-collapse-elementwise", "func::FuncOp"> {
  let summary = "Elementwise linalg.generic ops over contiguous buffers as one 1-D loop (on buffers)";
  let description = [{
    A `linalg.generic` whose loops are all parallel, whose operands are all
    indexed by the identity map and are memrefs that collapse to one
    dimension (contiguous row-major, `memref.collapse_shape` is guaranteed
    valid) runs over `memref.collapse_shape` views as one loop (upstream
    `linalg::collapseOpIterationDims`). `convert-linalg-to-loops` otherwise
    nests a loop per dimension, and LLVM's loop vectorizer only sees the
    innermost: autocast's f32 -> bf16 casts of 3x3 convolution weights
    (`512x512x3x3`) ran as scalar loops of 3, 8 ms instead of 0.6 ms.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def AmpCpuStridedCopies : Pass<"amp-cpu-strided-copies", "func::FuncOp"> {
  let summary = "memref.copy between non-contiguous buffers as linalg.copy (on buffers)";
  let description = [{
    A `memref.copy` whose source or target is not contiguous (a strided
    subview: attention's head splits, the interior of a padded convolution
    input, a tile copied into its place) becomes a `linalg.copy`, which
    `convert-linalg-to-loops` makes a loop nest that LLVM vectorizes.
    `finalize-memref-to-llvm` lowers such a copy to a call of the runtime's
    generic `memrefCopy`, one `memcpy` per element with the index
    arithmetic of every dimension in between. Copies between contiguous
    buffers stay `memref.copy` (one `llvm.memcpy`).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // AMP_CODEGEN_CPU_PASSES_TD
