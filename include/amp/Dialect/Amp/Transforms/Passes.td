//===- Passes.td - amp dialect passes ----------------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AmpAutocast : Pass<"amp-autocast", "ModuleOp"> {
  let summary = "Assign f16/bf16/f32 to every op of autocast regions from the cast policy";
  let description = [{
    For every enabled `amp.autocast` region and every function decorated with
    `amp.autocast = #amp.autocast<...>`, decides the compute type of each op
    from the cast policy (categories lower, fp32, promote, infer, clear,
    keep), inserts `amp.cast` where a value changes type, and rebuilds the
    ops at their new element types. The region's declared result types (and
    a decorated function's signature) do not change: values are cast back at
    the `amp.yield` / `func.return`. Afterwards the regions are inlined and
    the decorators removed, so no `amp.autocast` remains (`keep-regions`
    leaves them in place for inspection).

    Modes:
    - `eager`: op by op, as PyTorch eager autocast runs the same sequence of
      ops: lower ops in the region dtype, fp32 ops in f32, every other op at
      the widest float type of its tensor inputs.
    - `graph` (default): dataflow painting as OneFlow's and TensorFlow's AMP
      passes: infer and clear ops run in low precision only on a path between
      lower ops or from a lower op to a region result, fp32 spreads forward
      into infer/clear ops that feed fp32 or infer ops, and the fewest casts
      are inserted. See docs/Autocast.md for the algorithm.

    Integer and f64 values are never touched. Constants are cast at compile
    time; an op whose constant would overflow or underflow in the low type
    stays f32 (remark). With `cache_enabled` (the default), a value is cast
    once per target type, right after its definition or at region entry, so
    casts of weights and loop-invariant values are made once and hoisted out
    of loops; `cache_enabled(false)` casts at every use. Eager mode keeps the written type of
    loop-carried values (scf.for/while iter_args) and scf.if results, casting
    around them; graph mode gives an scf.for-carried value or an scf.if
    result the low type when it is low on every path and that changes no
    value (docs/Autocast.md).

    Errors: a policy option naming an unknown op. Warnings: an op the policy
    puts in low precision that cannot be retyped (it stays f32); a policy
    option naming an op the policy never decides (a terminator, `scf`
    control flow, a function or module, a constant, an amp op), which has
    no effect.
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"graph\"",
           "Propagation mode: graph (cast-minimising painting) or eager (PyTorch-exact)">,
    ListOption<"lowerOps", "lower-ops", "std::string", "Ops added to the lower list">,
    ListOption<"fp32Ops", "fp32-ops", "std::string", "Ops added to the fp32 list">,
    ListOption<"promoteOps", "promote-ops", "std::string", "Ops added to the promote list">,
    ListOption<"inferOps", "infer-ops", "std::string", "Ops added to the infer list">,
    ListOption<"clearOps", "clear-ops", "std::string", "Ops added to the clear list">,
    ListOption<"keepOps", "keep-ops", "std::string", "Ops added to the keep list">,
    ListOption<"removeLowerOps", "remove-lower-ops", "std::string", "Ops taken off the lower list: one that the #amp.policy attributes or the default table put there becomes infer (others keep their category)">,
    ListOption<"removeFp32Ops", "remove-fp32-ops", "std::string", "Ops taken off the fp32 list: one that the #amp.policy attributes or the default table put there becomes infer (others keep their category)">,
    ListOption<"removePromoteOps", "remove-promote-ops", "std::string", "Ops taken off the promote list: one that the #amp.policy attributes or the default table put there becomes infer (others keep their category)">,
    ListOption<"removeInferOps", "remove-infer-ops", "std::string", "Ops removed from the infer list (they stay infer: the default of unlisted ops)">,
    ListOption<"removeClearOps", "remove-clear-ops", "std::string", "Ops taken off the clear list: one that the #amp.policy attributes or the default table put there becomes infer (others keep their category)">,
    ListOption<"removeKeepOps", "remove-keep-ops", "std::string", "Ops taken off the keep list: one that the #amp.policy attributes or the default table put there becomes infer (others keep their category)">,
    Option<"annotate", "annotate", "bool", /*default=*/"false",
           "Leave an amp.compute_type attribute on every decided op">,
    Option<"keepRegions", "keep-regions", "bool", /*default=*/"false",
           "Leave the amp.autocast ops and decorators in place instead of inlining them">,
  ];
  let dependentDialects = ["::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect"];
}

def AmpFp32Accumulation : Pass<"amp-fp32-accumulation"> {
  let summary = "Make every f16/bf16 contraction and sum-like reduction accumulate in f32";
  let description = [{
    Rewrites, inside or outside autocast regions, every contraction with
    f16/bf16 operands (linalg matmul family, convolutions, contraction-shaped
    linalg.generic, tosa.matmul, tosa conv ops) and every sum-like reduction
    (tosa.reduce_sum, linalg.reduce/generic combining with addf or mulf, sum
    pooling, tosa.avg_pool2d, linalg.softmax) so that it accumulates in f32
    and rounds once to its f16/bf16 result type (an `amp.cast` after it).
    Upstream MLIR 22 keeps an f16 accumulator for f16 tosa.reduce_sum and
    lowers f16->f16 tosa.matmul to an f16-accumulating batch_matmul
    (cases C01-C03). Result types do not change.
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect"];
}

def AmpLowerCast : Pass<"amp-lower-cast"> {
  let summary = "Lower amp.cast to arith.extf/truncf and inline remaining autocast regions";
  let description = [{
    Rewrites every `amp.cast` into upstream arith ops, on scalars and ranked
    tensors alike (arith ops are elementwise on tensors; tosa-to-linalg and
    linalg elementwise fusion take them from there):
    - a widening cast (f16/bf16 -> f32 -> f64) becomes `arith.extf` (exact);
    - a narrowing cast becomes `arith.truncf` (round to nearest, ties to even,
      as LLVM's fptrunc);
    - f16 <-> bf16, where neither holds the other, becomes `arith.extf` to f32
      then `arith.truncf` (the extension is exact, so the value is rounded
      once).
    `amp.autocast` ops still present (for instance after
    `amp-autocast{keep-regions}`) are inlined: their bodies replace them and
    their results are the yielded values. Decorators are removed.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AmpLowerLossScaling : Pass<"amp-lower-loss-scaling"> {
  let summary = "Lower the dynamic loss-scaling ops to linalg, arith, tensor and scf";
  let description = [{
    Rewrites the GradScaler ops with PyTorch's exact arithmetic:
    - `amp.init_loss_scale` -> constant 0-d tensors;
    - `amp.scale_loss` -> an elementwise `linalg.generic` (tensors) that
      reads the 0-d scale as a broadcast operand, or `arith.mulf`
      (scalars), computed in f32 and rounded once to the loss type;
    - `amp.unscale` -> `inv_scale = truncf(1.0 / extf(scale : f64))`, a
      0-d `linalg.generic` on the scale, one elementwise `linalg.generic`
      per gradient multiplying it by that 0-d tensor, and for
      each gradient an
      `or`-reduction of `|g| >=u inf` (true for inf and NaN) over the
      gradient as it was before unscaling: a `linalg.generic` over all of a
      1-D gradient; for rank >= 2 one `linalg.generic` to a flag per row of
      the first dimension (parallel over the rows: a GPU kernel under
      amp-cuda-pipeline, where a full reduction would run on the host),
      then one over the row flags. Each gradient's last reduction ors into
      the flag of the gradients before it (the first into `false`): one
      0-d flag, no separate `or` per gradient. All row flags come first and
      the reductions into the flag follow one another, 0-d gradients' checks
      (no loops) last (under amp-cuda-pipeline, amp-gpu-scalar-kernels makes
      the reductions one kernel);
    - `amp.update_scale` -> scalar arith and selects (products in f64,
      rounded once to f32).
    The scale stays a tensor until `amp.update_scale`: under
    amp-cuda-pipeline the kernels read it on the device, and the host reads
    nothing before the inf/NaN flag (a host read of a buffer waits for every
    queued kernel; a scale read as a scalar for the loss would stall the
    step between its forward and backward passes);
    - `amp.step_if_finite` -> `scf.if %found_inf` yielding the kept values
      unchanged, with the update in the else branch. An unscaled gradient
      used only by that update is computed at the start of the branch (only
      when the step runs), where the pipelines' elementwise fusion folds its
      multiply into the update: one pass over the gradient fewer. One used
      anywhere else too (returned, clipped) is computed before the branch.
    The result is on tensors, so the CPU pipeline (and any pipeline that
    bufferizes linalg/scf) takes it from there.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
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

def AmpKeepNarrowRounding : Pass<"amp-keep-narrow-rounding", "func::FuncOp"> {
  let summary = "Keep the rounding to f16/bf16 between two ops that math-extend-to-supported-types computes in f32";
  let description = [{
    `math-extend-to-supported-types` computes each f16/bf16 math op in f32
    between an `arith.extf` and an `arith.truncf`, both with the `contract`
    fast-math flag, and arith's folders turn `extf(truncf(x))` with that
    flag into `x`. In a chain of such ops (two fused elementwise ops, say
    `sin(sin(x))` on bf16) the value then skips its rounding to bf16 between
    them, while PyTorch, running op by op, rounds after each op: the result
    differs by one bf16 ulp here and there, and eager mode is no longer
    PyTorch-exact. This pass clears the `contract` flag of every
    `arith.truncf` to f16/bf16 and `arith.extf` from f16/bf16, so every
    rounding the ops' types ask for happens. Other flags are kept.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AmpDuplicateFills : Pass<"amp-duplicate-fills", "func::FuncOp"> {
  let summary = "Give each destination of a shared linalg.fill on tensors its own fill, so that bufferization does not copy the filled buffer";
  let description = [{
    CSE merges identical `linalg.fill`s of `tensor.empty`s: the zero a
    training step's matmuls accumulate into becomes one tensor that five
    matmuls take as their destination (`outs`). One-Shot Bufferize writes
    only one of them in place; every other gets a new buffer and a copy of
    the filled one (in the MLP step: four 1024 x 4096 f32 copies, 64 MiB of
    reads and writes, each step, plus the same for the bias gradients'
    zeroed sums).

    Every `linalg.fill` on tensors that is the destination (DPS init) of
    more than one op keeps its first such use; for every other, a copy of
    the fill (and of its `tensor.empty` destination, so that each has its
    own buffer) is made right before the user. Uses as inputs stay with
    the original; a fill that has them gives a copy to every destination,
    the first included (written in place, the original would be read after
    it changed). Filling costs the writes a copy would have made, without
    the copy's reads. Fills on buffers are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AmpFuseMultiUseElementwise
    : Pass<"amp-fuse-multi-use-elementwise", "func::FuncOp"> {
  let summary = "Fuse an elementwise linalg.generic that has other uses too into its elementwise consumer, computing its result once";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops` fuses a producer only when the
    consumer is its one use. With more uses, `linalg::fuseElementwiseOps`
    keeps the producer for them and the consumer recomputes its body, which
    reads the producer's inputs twice. A training step's optimizer update
    is that shape: SGD with momentum computes `v' = momentum * v + g`, used
    by `w' = w - lr * v'` and returned as the new state, so it runs as two
    passes over the parameters, the second reading `v'` back.

    This pass fuses such a pair into one `linalg.generic` with both
    results: the fused op yields the producer's result too (upstream's
    preserved producer results) and the producer's other uses take that
    result, so the producer goes. It applies where:
    - the producer is a `linalg.generic` on tensors with only parallel
      loops and `linalg::areElementwiseOpsFusable` holds, in the consumer's
      block (not outside a loop around the consumer, which would recompute
      it every iteration), and its body reads no memory (a
      `memref.load` there could see a write between the two ops);
    - the consumer has only parallel loops and reads the producer's result
      through a permutation map (no broadcast: each element of the
      producer is computed once and written once);
    - the consumer reads the producer's results through that one operand
      only;
    - every other use comes after the consumer in its block (or inside an
      op that does), so the fused result dominates it.

    The fused op reads the producer's and the consumer's other inputs once
    and writes both results: in the SGD update, one read of `v'` (4 bytes
    per f32 parameter) and one kernel fewer per parameter. Run after
    `linalg-fuse-elementwise-ops`, which does the single-use fusions.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AmpGpuCublasContractions : Pass<"amp-gpu-cublas-contractions", "ModuleOp"> {
  let summary = "Replace matmuls on buffers by calls to the CUDA runtime's cuBLAS GEMM";
  let description = [{
    Every `linalg.matmul` on identity-layout buffers with default indexing
    maps and f16 x f16 -> f32, bf16 x bf16 -> f32 or f32 x f32 -> f32
    element types becomes `func.call @ampCublasMatmul{F16F32,BF16F32,F32}`
    on the buffers cast to `memref<?x?xT>` and an f32 beta: `cublasGemmEx`
    with `CUBLAS_COMPUTE_32F` (fp32 accumulation), C = A * B + beta * C, in
    `libamp_cuda_runtime.so` (through the C interface, declared with
    `llvm.emit_c_interface`). Beta is 1 (C += A * B), or 0 where a
    `linalg.fill` of C with a constant zero is the op right before the
    matmul (bufferization's zeroed accumulator), k is static and non-zero,
    C is a buffer the function allocates and A and B cannot share it
    (other allocations, globals, function arguments): the fill goes, and with it a kernel
    writing C and the GEMM's read of C (8 bytes per output element). The
    call synchronizes the device before it returns; the declaration names,
    in `amp.queued_variant`, the runtime's `...Queued` variant, which does
    not: `amp-gpu-async-launches` calls that one, queued after the kernels
    before it and waited for like them. Other
    matmuls are left for the tensor-core and SIMT paths; strided ones get a
    remark. Used by `amp-cuda-pipeline{gemm=cublas}`.
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def AmpGpuTensorCoreContractions : Pass<"amp-gpu-tensor-core-contractions", "ModuleOp"> {
  let summary = "Map f16/bf16 -> f32 matmuls and batched matmuls on buffers to tensor-core code (mma.sync m16n8k16)";
  let description = [{
    Every `linalg.matmul` on static, identity-layout buffers with f16 x f16
    or bf16 x bf16 inputs and an f32 output (what `amp-fp32-accumulation`
    makes of an autocast matmul) whose m, n, k are multiples of 16, 8, 16
    becomes a `gpu.launch`. Each warp computes an output tile of up to
    64 x 64 (the largest power of two from 16 x 8 up that divides m and n),
    halved while the matmul would have fewer than 528 warps (4 per SM of an
    H100/H200); blocks group up to 2 x 2 warps where m and n divide. A loop
    over k in steps of 32 (16 where k is not a multiple of 32) holds the
    warp's mixed-precision `vector.contract` (f16/bf16 operands, f32
    accumulator), unrolled to m16n8k16 pieces: each k step loads every A
    and B fragment of the warp tile once and issues (tile m / 16) x
    (tile n / 8) x (k step / 16) mma.syncs, an A fragment serving a row of
    them and a B fragment a column. The schedule is a transform-dialect
    script run by the interpreter (upstream's `rewrite_matmul_as_mma_sync`
    rejects mixed f16 -> f32 matmuls).

    Batched matmuls (`linalg.batch_matmul`, attention's q k^T and p v per
    head) with the same element types, row-major 3-D buffers and at most
    65535 batch elements: one block per batch element along gridDim.z and
    output tile along y and x, with the tiles chosen as for a matmul (the
    528 warps counted over the whole batch). Between tiling to blocks and
    tiling to warps, each block's unit-batch matmul becomes a 2-D
    `linalg.matmul` on its batch element's matrices, viewed by
    `memref.reinterpret_cast` at offset b x rows x cols; the rest is the
    matmul's schedule.

    Shared memory: in each k step the block's threads copy the block's A
    and B tiles from global memory (coalesced, up to 16 bytes per copy,
    16-byte aligned: the operands' base addresses must be, as every buffer
    the runtime allocates is) into workgroup buffers whose rows are padded
    by 8 elements (bank-conflict-free ldmatrix), and the warps read their
    fragments from there. A k loop rotates through several such sets of
    tiles (stages): as many as fit in 96 KiB (every sm_80+ chip's limit a
    block, two 128 x 128 blocks an SM on sm_80 and sm_90), up to 4 and up
    to the k steps (128 x 128 block tiles with k steps of 32: 4 stages of
    18.5 KiB). Up to 48 KiB they are workgroup attributions; beyond, views
    (`memref.view`) of the launch's dynamic shared memory
    (`gpu.dynamic_shared_memory`, `dynamic_shared_memory_size` on the
    launch; the runtime opts the kernel in to more than 48 KiB at launch).
    The copies are `cp.async` (`nvgpu.device_async_copy`, global to shared
    memory without registers; 16-byte copies bypass L1), one commit group
    per k step, issued
    stages - 1 steps ahead: each iteration waits for its own step's group
    (`nvgpu.device_async_wait` leaving stages - 2 pending), passes one
    `gpu.barrier` (its tiles visible to every warp, the previous step's
    stage free), issues the copies of the step stages - 1 ahead into that
    free stage and runs its mma.syncs, so that stages - 1 steps of loads are
    in flight behind the tensor-core work (the last steps reload the last
    step's tiles into stages no later step reads rather than branch). With
    one k step (no loop): one set of tiles, copied through registers
    between barriers.

    f16: the contraction goes to `nvgpu.mma.sync` with
    `mmaShape = [16, 8, 16]` by upstream's vector-to-nvgpu conversion, run
    on these launches only (on whole functions MLIR 22's
    `convert-vector-to-gpu{use-nvgpu}` fails on every scalar f16 -> f32
    `arith.extf`).

    Fragments are loaded with `nvgpu.ldmatrix` (x4 for A, x2 transposed for
    B).

    bf16: MLIR 22's vector-to-nvgpu conversion cannot load bf16 fragments
    and its nvgpu-to-nvvm lowering cannot type a bf16 `nvgpu.mma.sync`, so
    the pass lowers the contraction itself: each lane loads its fragments
    (the PTX ISA m16n8k16 layout, the same as for f16: by ldmatrix from the
    shared tiles), as i32 registers of two bf16 and issues `nvvm.mma.sync` with bf16 multiplicands
    and f32 accumulators (PTX
    `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`).

    In both, each lane's f32 accumulator fragments are loaded before the k
    loop, carried in registers through it and stored once after it
    (upstream's `hoistRedundantVectorTransfers`, after folding the tiles'
    subviews into the transfers). Upstream refuses when the output buffer
    has a view anywhere (a subview, cast or reshape: e.g. an autocast
    matmul whose result is sliced) or another access in the loop; the
    accumulator is then read and written in every k step, and a remark
    says so. A batched matmul's accumulator is a view (its batch element
    of C), which upstream never hoists: the pass hoists those pairs itself,
    where nothing else in the k loop uses the view but transfers of
    provably disjoint elements.

    A `linalg.fill` of the output with a constant right before the matmul
    (the op before it, on the same buffer: bufferization's zeroed
    accumulator) is fused: the accumulators start from that constant
    instead of being read, and the fill goes (its kernel, and the
    accumulators' reads of what it wrote, 8 bytes per f32 output element).
    Only where every read of the output in the launch is outside the k loop
    (carried in registers, or one k step); otherwise the fill stays.

    Likewise an elementwise `linalg.generic` on the output in place right
    after the matmul (the op after it, reading and writing the same buffer
    value with identity maps, each element computed from that element alone
    by elementwise ops: keep-narrow-rounding's rounding of an autocast
    matmul's f32 accumulators to f16/bf16 and back, where no consumer took
    it in, e.g. a weight gradient) is applied to the accumulators before
    the launch stores them, and the op goes (one pass over the output, 8
    bytes per element). Only where every store of the output in the launch
    is outside the k loop and no read follows one; otherwise it stays.

    Other matmuls stay (the SIMT path of `amp-cuda-pipeline` takes them),
    with a remark saying why (shape, dynamic sizes, layout, an empty
    dimension, more than 65535 batch elements, or a place that is already
    device code or the body of a parallel loop: `gpu.launch`, `gpu.func`,
    `scf.parallel`, `scf.forall`). On a chip
    below sm_80, which has no m16n8k16 mma.sync, every such matmul stays
    and gets a warning. Error: a `chip` that is not `sm_<NN>[a|f]`
    (default sm_90; `amp-cuda-pipeline` accepts a narrower list, the chips
    its PTX version supports).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU (sm_80 or later for tensor cores)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect", "::mlir::transform::TransformDialect",
                           "::mlir::nvgpu::NVGPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

def AmpGpuParallelDimsOuter : Pass<"amp-gpu-parallel-dims-outer", "func::FuncOp"> {
  let summary = "Put the parallel dimensions of linalg ops before their reduction dimensions";
  let description = [{
    Every linalg op with a reduction dimension before a parallel one (a
    reduction over rows, e.g. a bias gradient summed over the batch)
    becomes a `linalg.generic` whose parallel dimensions come first, in
    their order, then the reductions (`linalg::interchangeGenericOp`). With
    it, `convert-linalg-to-parallel-loops` puts the reduction loop inside
    each GPU thread instead of around one kernel launch per row. Ops that
    are already parallel-first are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AmpGpuCopiesToLinalg : Pass<"amp-gpu-copies-to-linalg", "func::FuncOp"> {
  let summary = "Turn the buffer copies of host code into linalg.copy, so that they run as GPU kernels";
  let description = [{
    Bufferization copies buffers with `memref.copy` (a loop-carried tensor
    yielded from a buffer allocated outside the loop, an in-place update of
    a value still read later, `tensor.insert_slice` into a subview). In the
    CUDA pipeline those buffers are managed memory, and a `memref.copy` runs
    on the host: every page of both buffers migrates to the host and back to
    the device at the next kernel (measured on an H200: 3 GB/s for a 1 GiB
    copy inside a loop, against about 4 TB/s of device bandwidth).

    Every `memref.copy` of ranked memrefs outside `gpu.launch` becomes a
    `linalg.copy` with the same source and target (any layouts, strided
    subviews included), which `convert-linalg-to-parallel-loops` and
    `amp-gpu-map-parallel-loops` make an elementwise kernel. Copies of
    unranked memrefs are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AmpGpuReductionKernels : Pass<"amp-gpu-reduction-kernels", "func::FuncOp"> {
  let summary = "Partial reductions (row sums, bias gradients, per-row inf/NaN flags) as GPU kernels that split each output element's reduction across threads";
  let description = [{
    `convert-linalg-to-parallel-loops` makes a reduction with parallel
    dimensions one thread per output element, with the reduction a serial
    loop that loads and stores the output element at every step: a training
    step's bias gradients (sum over a batch of 1024 or 2048 rows: 4096
    threads in 16 blocks), the per-row inf/NaN flags of loss scaling (4096
    threads, each reading a 4096-element row with a 16 KiB stride between
    threads) and a layer norm's row statistics use a few SMs of a GPU, one
    dependent memory round trip per element.

    Every linalg op on buffers outside GPU code and parallel loops with
    parallel and reduction dimensions, one output indexed by the parallel
    dimensions (each once), and one combiner op with a neutral element
    (`matchReduction`: add, mul, min/max, and, or, xor, ...) becomes a
    `gpu.launch`; each thread folds its share in a register from the
    neutral element (-0.0 for a float sum), in one of two forms:
    - rows, where the unit-stride dimension of the largest input is a
      reduction dimension, the reduction has more than 32 elements (or a
      dynamic size) and the combiner has a `gpu.all_reduce` form on its
      type (f32, f64, i32, i64; and, or, xor on i1): one block per output
      element of 64 to 256 threads (the reduction's size rounded up to a
      power of two); thread t folds the elements t, t + blockDim, ...
      (consecutive threads, consecutive addresses), `gpu.all_reduce`
      combines the block and thread 0 combines that with the output's
      value;
    - columns, otherwise: blocks of 32 x TY threads; threadIdx.x walks 32
      consecutive output elements (consecutive addresses where the unit
      stride dimension is a parallel one, as in a bias gradient), and
      threadIdx.y splits each element's reduction TY ways (TY a power of
      two up to 32, doubled while the grid has fewer than 65536 threads and
      each thread folds at least 8 elements); the TY partial results meet
      in a TY x 32 shared buffer and thread row 0 combines them, in order,
      with the output's value.
    The summation order differs from the serial loop's, as in any parallel
    reduction.

    Ops where a memref input does not vary along some parallel dimension
    (matmuls, convolutions: the operand is reused across output elements)
    are not reductions in this sense and are left alone without a remark.
    These stay on the parallel-loop path with a remark saying why: an op
    inside device code or a parallel loop, a stack-buffer operand, a call
    in the body, a loop of static size 0, more than one output, an output
    not indexed by the parallel dimensions each once, an input or a memref
    the body uses that may be the output's buffer (through views,
    `memref.transpose` or `arith.select`: threads would read elements
    others already wrote; a stack buffer the body uses counts as a stack
    operand), a body without a single combiner op or one without a neutral
    element, and elements that are not scalars (vectors). Full reductions (no parallel dimension) are
    `amp-gpu-scalar-kernels`' work.

    A reduction whose previous op is a `linalg.fill` of its output (with a
    value of the element type; every output dimension indexed by a loop of
    its own, so the kernel writes every element) starts from the fill's
    value instead of loading the output, and the fill, a kernel of its own
    otherwise, goes: bufferization's zeroed sums (bias gradients, softmax
    and LayerNorm sums), the -inf of a max, the `false` of the per-row
    inf/NaN flags. In the MLP AMP training step that and loss scaling's
    chained flags are 22 kernels fewer (115 -> 93), in the transformer
    step 61 (337 -> 276).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def AmpGpuScalarKernels : Pass<"amp-gpu-scalar-kernels", "func::FuncOp"> {
  let summary = "Run linalg ops without parallel dimensions (full reductions, 0-d arithmetic) as GPU kernels";
  let description = [{
    `convert-linalg-to-parallel-loops` maps only parallel dimensions to
    `scf.parallel`; a linalg op on buffers with none (a reduction to a
    scalar such as a loss's mean or the inf/NaN check of loss scaling, or
    arithmetic on 0-d buffers such as scaling the loss) would stay host code
    that reads managed memory: its pages move to the host and back, and the
    host waits for every queued kernel first.

    For every linalg op on buffers outside `gpu.launch` without parallel
    loops whose outputs are single elements (constant output maps):
    - no loops at all: a `gpu.launch` of one thread that loads the
      operands, runs the op's body and stores the outputs;
    - a full reduction with one output whose body's combiner (found by
      `matchReduction`) is one op that `gpu.all_reduce` has (add, mul,
      min/max in their float and integer forms, and, or, xor) on f32, f64,
      i32 or i64 (and, or, xor also on i1, through i32): up to 65536
      elements (static), a `gpu.launch` of one block of 1024 threads;
      thread t folds the elements t, t + 1024, ... of the linearized
      iteration space (consecutive threads read consecutive elements of
      row-major operands) from the combiner's neutral element (-0.0 for a
      sum, so that a sum of -0.0 stays -0.0), the block combines the 1024
      partial results with `gpu.all_reduce` (shuffles and shared memory,
      lowered by `convert-gpu-to-nvvm`), and thread 0 combines that with
      the output's value. More elements, or a dynamic count: the
      grid-wide form, two launches: up to 256 blocks of 1024 threads (each
      thread folding at least 16 elements; 256 for a dynamic count), block
      k's threads folding k x 1024 + t, then every blocks x 1024 elements
      on, each block's result stored to a buffer of partial results
      (`memref.alloc`, freed after); then one block of 256 threads folds
      the partial results and combines them with the output's value. The
      summation order differs from the host loop's (as in any parallel
      reduction).
    Other reductions stay host loops, with a remark saying why, and so do
    these ops (remark too): an output element that depends on a reduction
    index; an op inside `scf.parallel`, `scf.forall` or `affine.parallel`
    (the loop becomes a kernel itself); a stack-buffer operand (kernels
    cannot read `memref.alloca`); a call in the body (host functions cannot
    run in a kernel); a loop of static size 0; and, for reductions, an
    input on the output's buffer (the threads would read it before thread 0
    writes it).

    One block reads about as fast as one SM can: right for the losses and
    per-row flags of a training step (10^3 to 10^5 elements); a large
    tensor's full reduction (a gradient norm) takes the grid-wide form.

    A full reduction whose previous op is a `linalg.fill` of its output
    (with a value of the element type; the reduction reads no input from
    that buffer) combines the block's result with the fill's value instead
    of loading the output, and the fill goes: a loss's zeroed sum, the
    `false` the first gradient's inf/NaN check starts from. The fill would
    otherwise be a one-thread kernel of its own. A fill before a reduction
    that stays on the host stays.

    A run of one-block full reductions into the same element of the same
    output value with the same combiner, each after the last in its block with only ops without
    memory effects in between (and no fill between), is one kernel, built
    where the last one was: each thread folds its share of each op's
    iteration space in turn, then one `gpu.all_reduce` and one combine
    into the output. A loss-scaled step's inf/NaN checks are such a run
    (each gradient's flags or-ed into one flag, `amp-lower-loss-scaling`):
    one launch instead of one per gradient. Different outputs or elements,
    combiners, an op with memory effects between, or a grid-wide reduction
    end a run.

    Ops without loops right after a kernel of this pass, each after the
    last in its block with only ops without memory effects or that only
    allocate (`memref.alloc`) in between, run at the end of that kernel:
    after a reduction, on thread 0 once it has combined the result into the
    output (after the block's `gpu.all_reduce`, which every thread reaches
    only once it has read its share, so nothing they write is read by
    another thread); after ops without loops, in the same thread. The
    kernel is built where the last of them was. A training step's loss mean
    and the seed of its gradient (the loss scale over the batch size) join
    the kernel of the loss's sum this way: two launches fewer. A fill that
    a later reduction absorbs does not join.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def AmpGpuTiledTranspose : Pass<"amp-gpu-tiled-transpose", "func::FuncOp"> {
  let summary = "2-D linalg.transpose on buffers to a GPU kernel through shared-memory tiles (coalesced reads and writes)";
  let description = [{
    The backward pass of a matmul transposes its operands (`linalg.transpose`
    before `linalg.matmul`; a 4096 x 4096 weight every step of an MLP). As
    parallel loops, a transpose writes its output along threadIdx.x
    (coalesced) and reads its input down a column: each thread's 2 or 4
    bytes cost a 32-byte memory sector.

    Every 2-D `linalg.transpose` (permutation [1, 0]) on static,
    identity-layout buffers outside GPU code and parallel loops becomes a
    `gpu.launch`: one block of 32 x 8 threads per 32 x 32 tile of the input
    (the last tiles of a size that is not a multiple of 32 are partial: each
    thread's loads and stores are guarded by the element being in bounds, so
    a 4096 x 16 weight gets 128 half-empty tiles). The block reads the tile row by row
    (consecutive threads, consecutive elements) into a shared 32 x 33 tile
    (one element of padding per row: the column reads that follow hit 32
    different banks for 4-byte elements), waits at a barrier, and writes the
    output tile row by row from the shared tile's columns. Each thread moves
    4 elements each way.

    Others stay (the parallel-loop path takes them), with a remark saying
    why: dynamic sizes or a strided layout, input and output on one buffer,
    more than 65535 tile rows or 2^31 - 1 tile columns (the grid's y and x
    limits), an empty transpose, or an op already in device code or a
    parallel loop.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def AmpGpuMapParallelLoops : Pass<"amp-gpu-map-parallel-loops", "func::FuncOp"> {
  let summary = "Tile and map scf.parallel loops to GPU blocks and threads, innermost dimension on threadIdx.x";
  let description = [{
    For every outermost `scf.parallel` of a function (outside `gpu.launch`):
    tiles the last dimension by 32 and the one before by 8 (a
    one-dimensional loop: by 256; other dimensions by 1; constant inner
    bounds with a guard, as
    `scf-parallel-loop-tiling{no-min-max-bounds}`), maps the inner tile loop
    to threadIdx.x (last dimension) and threadIdx.y, the outer loop's last
    three dimensions to blockIdx.x/y/z and the rest to sequential loops, so
    `convert-parallel-loops-to-gpu` makes kernels whose warps read
    consecutive elements of row-major buffers. Nested `scf.parallel` loops
    run sequentially inside a thread.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect"];
}

def AmpGpuAlignWorkgroupMemory : Pass<"amp-gpu-align-workgroup-memory", "gpu::GPUModuleOp"> {
  let summary = "Align the workgroup (shared) memory of GPU kernels to 16 bytes";
  let description = [{
    Gives every workgroup attribution of every `gpu.func` in the module an
    `llvm.align` of 16 bytes (or keeps a larger one), which
    `convert-gpu-to-nvvm` puts on the shared-memory global it creates
    (PTX `.shared .align 16`). Without it the global gets the alignment of
    its element type (2 bytes for f16), while 16-byte shared stores
    (`st.shared.v4`) and `ldmatrix` rows need 16: the tensor-core kernels
    of `amp-gpu-tensor-core-contractions` stage their A and B tiles in
    shared memory with such accesses. Runs after `gpu-kernel-outlining`
    (a `gpu.launch` has no attribution attributes).
  }];
}

def AmpGpuAsyncLaunches : Pass<"amp-gpu-async-launches", "ModuleOp"> {
  let summary = "Queue the host code's kernel launches, copies and frees on one stream; wait only where the host needs memory";
  let description = [{
    Runs on host code after `gpu-kernel-outlining` and
    `amp-gpu-managed-memory`, before `gpu-to-llvm`. MLIR 22's `gpu-to-llvm`
    gives every synchronous `gpu.launch_func` a stream of its own, created,
    synchronized and destroyed around the launch, and
    `amp-gpu-managed-memory` waits for every copy and free the same way: a
    training step of a few hundred kernels pays a host round trip for each.

    In each block, in order:
    - a synchronous `gpu.launch_func` becomes async, after the last queued
      op (the first one starts a stream: `gpu.wait async`);
    - a `gpu.memcpy`, `gpu.memset` or `gpu.dealloc` that starts a stream
      of its own and is waited for at once (`%s = gpu.wait async`,
      `%t = gpu.memcpy async [%s] ...`, `gpu.wait [%t]`) is queued the same
      way, its waits removed;
    - `gpu.alloc` and ops without memory effects do not wait: a freed buffer
      that an allocation hands out again is reused in stream order; nor
      does an `scf.if` that only frees buffers (the ownership-based
      deallocation's conditional frees; its block has its own chain);
    - before any other op (a host load or store, a call, an op with
      regions, an op with unknown effects) and before the block's
      terminator, `gpu.wait [%token]` waits for everything queued. A
      launch that already has an async token, dependencies or stream is
      left as it is (after such a wait).
    - a `func.call` of a function declared with `amp.queued_variant = @g`
      (the runtime's cuBLAS GEMM) becomes a call of `@g` (declared like the
      callee if the module lacks it) without a wait: `@g` enqueues its work
      on the CUDA legacy default stream, which the device orders after the
      work of the pass's (blocking) streams and before their later work;
      the call keeps a chain open, so the host waits before it next touches
      memory (the runtime's stream synchronization also waits for the
      legacy stream).

    So the host never touches memory that queued work may still use, and
    nothing is queued across region boundaries (each block of an `scf.for`
    or `scf.if` has its own chain, finished before its terminator). The
    CUDA runtime frees a buffer (back to its cache) when the host reaches
    the free, not when the stream does; the buffer's next user is queued
    after it on the same stream (at most one chain is unfinished at any
    point of a function), and the cache synchronizes the device before it
    returns buffers to the driver. Compiled CUDA functions must therefore
    not run concurrently from several host threads.
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::func::FuncDialect"];
}

def AmpGpuManagedMemory : Pass<"amp-gpu-managed-memory", "ModuleOp"> {
  let summary = "Put the host code's buffers in CUDA managed memory for GPU kernels";
  let description = [{
    Runs on bufferized host code with `gpu.launch` kernels. Every
    `memref.alloc` becomes `gpu.alloc host_shared` (CUDA managed memory,
    readable by kernels and by the host code between them),
    `memref.dealloc` a waited-for async `gpu.dealloc`, and every
    `memref.get_global` of a constant a managed copy made at function entry
    and freed before the returns. A `memref.alloca` stays unless a kernel
    uses it.

    Public functions keep a host-memory ABI: `@f` becomes a wrapper that
    copies its memref arguments into managed buffers, calls the managed body
    `@f__amp_managed` (which calls inside the module use directly), copies
    the arguments back when the body may write them, copies the results
    into `memref.alloc` (malloc) buffers, and frees each managed allocation
    once (results that share a buffer, or return an argument, are compared
    at run time).

    The managed body stays public, with the `llvm.emit_c_interface` that
    `@f` had: the entry point for callers that keep their buffers in
    managed memory across calls (device-resident weights: the Python
    package's `DeviceArray`s, `Executable.invoke_device`), with no copies.
    It takes managed buffers, may write them in place (one-shot
    bufferization treats function arguments as writable; the attribute
    `amp.may_write_args = array<i64: ...>` lists the arguments that the
    conservative alias walk cannot rule out, the ones the wrapper copies
    back), and returns managed buffers that the caller frees
    (`mgpuMemFree`) unless a result is one of its arguments.

    Errors: a stack buffer a kernel uses; a mutable global; a public
    function with an unranked or strided memref argument or result; a
    non-identity allocation; a module that already has a symbol named
    `f__amp_managed`.
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect"];
}

def AmpDecomposeAggregatedOps : Pass<"amp-decompose-aggregated-ops", "func::FuncOp"> {
  let summary = "Decompose linalg aggregated ops (linalg.softmax) into linalg.generic";
  let description = [{
    Rewrites every op implementing linalg's `AggregatedOpInterface`
    (`linalg.softmax`: max, sub, exp, sum, div) on tensors into its
    decomposition, with the element types it has, so the CPU pipeline can
    lower it. Error: such an op on buffers (the decomposition is defined on
    tensors only). Run after
    `amp-fp32-accumulation`, which makes an f16/bf16 softmax compute in f32.
    Upstream MLIR 22 offers this decomposition only as a transform op.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"];
}

def AmpRandomizeWeights : Pass<"amp-randomize-weights", "ModuleOp"> {
  let summary = "Give splat weight constants seeded random values (He-uniform)";
  let description = [{
    Model files exported for tests often hold their weights as splat
    constants, which make every channel identical and hide precision errors.
    This pass replaces every splat `arith.constant` / `tosa.const` of a
    ranked f32/f16/bf16 tensor of rank >= 2 with values drawn uniformly from
    [-b, b], b = sqrt(6 / fan_in) (He/Kaiming-uniform, PyTorch's
    `kaiming_uniform_` with ReLU gain), fan_in = number of elements / first
    dimension (C*KH*KW for an FCHW filter, KH*KW for a depthwise CHW filter,
    the input features of a [out, in] matrix). Rank-0/1 constants (biases,
    batch-norm parameters) keep their values. The generator is SplitMix64
    seeded with `seed` and the constant's position in its function, so the
    values are the same on every machine, and two copies of a function
    (an f32 and an autocast version) get the same weights. He scaling keeps
    activations O(1) through the layers, as trained batch-norm statistics
    would; with PyTorch's smaller default layer init (1/sqrt(fan_in)) and
    the identity batch norms of the model files, activations shrink layer
    by layer into the f16 subnormal range. Used by the model numerics tests
    and the benchmarks.
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", /*default=*/"0", "Random seed">,
  ];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
