//===- Passes.td - CUDA code generation --------------------*- tablegen -*-===//

#ifndef AMP_CODEGEN_GPU_PASSES_TD
#define AMP_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // AMP_CODEGEN_GPU_PASSES_TD
