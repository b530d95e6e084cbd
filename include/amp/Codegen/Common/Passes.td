//===- Passes.td - codegen passes of both targets ----------*- tablegen -*-===//

#ifndef AMP_CODEGEN_COMMON_PASSES_TD
#define AMP_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    the copy's reads. The fill kept for the first destination (of one or
    several) moves down to right before it, with its `tensor.empty` (or a
    clone of it, when the empty has other uses), when both are in one
    block: bufferization then allocates and fills the buffer there, not
    where CSE left the shared fill. Fills on buffers are left alone.

    First, a `tensor.expand_shape` / `tensor.collapse_shape` of a
    `tensor.empty` (static shape) becomes a `tensor.empty` of its own type
    (upstream's `FoldEmptyTensorWithReshapeOp`, without its slice folds,
    which would move allocations into tiled loops): a fill of a reshaped
    empty (the packed accumulator view of amp-cpu-tile-and-vectorize's
    batch matmuls) then has an empty of its own to clone. Before, the char
    GPT's four attention-score batch matmuls filled one 1 MiB f32 buffer,
    held from the first layer's forward to the last backward.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AmpSinkAllocations : Pass<"amp-sink-allocations", "func::FuncOp"> {
  let summary = "Move each memref.alloc down to right before its first user in its block, so that a buffer is not held before it is written";
  let description = [{
    One-Shot Bufferize allocates a buffer where its `tensor.empty` stood,
    and CSE leaves one `tensor.empty` of a shape for all the ops of that
    shape: a training step's backward matmul got its accumulator allocated
    (and held) from the forward on. Each `memref.alloc` is moved down to
    right before the first op of its block that uses it (directly or in a
    nested region: never into a loop or a branch). The alloc's operands
    (dynamic sizes) dominate its old place, so they dominate the new one.
    With upstream `optimize-allocation-liveness` (each dealloc moved up to
    right after the last user of the buffer or of its views) a buffer is
    held only from its first to its last use. Run after the deallocation
    pipeline; `memref.alloca` and allocs without users are left alone.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def AmpFoldBatchBroadcast : Pass<"amp-fold-batch-broadcast", "func::FuncOp"> {
  let summary = "Compute a batch matmul whose right operand is one matrix broadcast across the batch as one matmul over the batch's rows";
  let description = [{
    PyTorch's `x @ W` with a 3-D `x` and a 2-D `W` (nn.MultiheadAttention's
    input projection, torch-mlir's `aten.matmul` decomposition) comes out
    of torch-mlir as `linalg.batch_matmul(x, broadcast(W))`: the weight is
    copied once per batch entry (128 x 256 x 768 f32, 100 MB, for a
    4x128x256 attention with batch_first) and each batch entry is a
    4-row matmul that no tiling makes fast.

    This pass rewrites
    `linalg.batch_matmul ins(%a, %bb) outs(%c)` where `%bb` is a
    `linalg.broadcast` along dimension 0 or a `linalg.generic` that copies
    its one input to every batch entry (input map `(b, k, n) -> (k, n)`,
    body `linalg.yield %in`) into
    `tensor.expand_shape(linalg.matmul ins(collapse(%a), %w) outs(collapse(%c)))`
    with `%a` [b, m, k] collapsed to [b*m, k] and `%c` [b, m, n] to
    [b*m, n]: the same sums in the same order, without the copies. The
    broadcast goes when it has no other use. Only batch matmuls with the
    default indexing maps and static shapes are rewritten.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AmpFoldTransposeIntoContraction
    : Pass<"amp-fold-transpose-into-contraction", "func::FuncOp"> {
  let summary = "Fold the transposes feeding a contraction into its indexing maps";
  let description = [{
    torch-mlir spells a Linear's `x @ W^T` as `linalg.transpose` of the
    weight into a new tensor and a `linalg.matmul` of the copy, and the
    backward's `dY^T @ X`, `Q @ K^T` and their gradients the same way. The
    copy is a pass over the operand and a buffer as large (under autocast
    the weight then lives three times: f32, its bf16 cast, the transposed
    cast), and the contraction's packing copies it once more.

    An input of `linalg.matmul`, `linalg.batch_matmul` or a contraction
    `linalg.generic` (on tensors) produced by a pure permutation, a
    `linalg.transpose` or a `linalg.generic` with one input whose body
    yields that input unchanged (all loops parallel, both maps
    permutations), is replaced by the permutation's input, and the
    permutation is composed into the operand's indexing map: the matmul
    gets MLIR 22's transposed-operand maps (`matmul_transpose_a/b`), a
    batch matmul transposed maps of its two inner dimensions (its verifier
    wants the batch first: other permutations stay), a generic any. A
    permutation generic whose body is one `arith.extf` / `arith.truncf`
    of its input (a cast and a transpose fused) is split when every user
    is such a contraction: the cast stays, as an elementwise op in the
    input's order, and the permutation is folded. The transpose goes when
    nothing else uses it. The same products and sums in the same order:
    only where the operand is read from changes.

    Upstream's route (generalize, `linalg-fuse-elementwise-ops`,
    `linalg-specialize-generic-ops`) folds the permutation but
    specializes the transposed contraction back into a `linalg.matmul`
    with the default maps and the permuted operand (MLIR 22.1: invalid
    IR), so this pass rewrites the named ops directly.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
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

def AmpNarrowSoftmaxReaders
    : Pass<"amp-narrow-softmax-readers", "func::FuncOp"> {
  let summary = "Let the f32 readers of a softmax that autocast also rounds to bf16/f16 read the rounded copy, so the f32 softmax is not stored";
  let description = [{
    Autocast computes a softmax in f32 (its exp and sum by the cast policy)
    and rounds it to bf16/f16 for the low-precision matmul that reads it
    (attention's `P @ V`): after elementwise fusion one `linalg.generic`
    yields both the f32 softmax and its `arith.truncf` copy. The softmax
    backward (`y * (dy - sum(dy * y))`) reads the f32 one, so a training
    step stores both from the forward to the backward: in the char GPT's
    bf16 step the two layers' f32 scores, 2 MiB of its 10.9 MiB peak.

    Where the f32 value is a softmax (`exp(...) / sum(exp(...))`: a
    `divf`, possibly under the `select` of a safe softmax, of an input
    produced by a `linalg.generic` that computes `math.exp` by an input
    produced by a reduction of that same exp), every other
    `linalg.generic` that reads it as an input reads the rounded copy and
    extends it to f32 in its body (`arith.extf`); the f32 result, then
    unused, is dropped. The backward computes with the softmax rounded to
    bf16 as PyTorch's CPU autocast does, which runs
    `scaled_dot_product_attention` (and so its softmax and the softmax's
    saved output) in bf16. Other f32 values with a rounded copy (a layer
    norm's output) keep their f32 readers. The pipeline runs it with
    autocast in graph mode.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def AmpFuseElementwise : Pass<"amp-fuse-elementwise", "func::FuncOp"> {
  let summary = "Elementwise fusion on tensors (upstream's patterns) that never recomputes a producer";
  let description = [{
    Upstream `linalg-fuse-elementwise-ops` with one more condition: a
    producer is fused into its consumer only where the consumer reads the
    producer's result through a permutation map, so each element of the
    producer is still computed once. Upstream's default fuses a producer
    into any consumer it has one use in: into a contraction (a `linalg.matmul`
    that reshape propagation turned into a `linalg.generic`), the producer's
    body runs once per multiply-add, and the contraction is no longer one
    that `linalg::isaContractionOpInterface` recognises (so it is neither
    tiled nor vectorized); into a consumer that broadcasts it (a per-row
    `rsqrt` read by every element of the row), once per element of the
    row. LayerNorm followed by Linear (4x128x256 -> 1024, a torch-mlir
    export) took 690 ms that way on the CPU, the normalisation and its f64
    divisions recomputed 1024 times per element inside a scalar loop nest.

    Reshapes are not propagated through contractions and convolutions
    either (a `linalg.matmul` fed by a `tensor.collapse_shape` stays a
    2-D named matmul instead of becoming a `linalg.generic` with two m
    dimensions), so that B packing and library calls still find it.

    Everything else is upstream's: `linalg::populateElementwiseOpsFusionPatterns`,
    `populateFoldReshapeOpsByExpansionPatterns` (the producer has one use), `tensor::populateBubbleUpExpandShapePatterns`,
    the linalg, affine.apply and reshape canonicalizations and the constant
    folding of linalg ops, applied top-down as upstream's pass does.
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AmpValidateTosaInput : Pass<"amp-validate-tosa-input", "::mlir::ModuleOp"> {
  let summary = "Validate the module's TOSA ops against the target it declares (or everything the pipelines compile), before any pass rewrites them";
  let description = [{
    Runs upstream's `tosa-validate` on the input as the user wrote it, so
    that an error always names an op of the input, never one a later pass
    inserted. The first stage of `amp-cpu-pipeline` and `amp-cuda-pipeline`;
    their TOSA lowering (`tosa::addTosaToLinalgPasses`) then runs without
    validating again.

    The target is the module's `tosa.target_env` attribute (the nearest
    symbol table that has one; `tosa-attach-target` writes it) when there
    is one: profiles, extensions, level and specification version as
    declared. Without one, the target is what the pipelines compile:
    specification 1.1.draft, level `none`, both profiles (`pro_int`,
    `pro_fp`) and the extensions int16, int4, int64, bf16, fp8e4m3,
    fp8e5m2, fft, controlflow, doubleround, inexactround, dynamic and shape
    (not `variable`: the pipelines do not lower `tosa.variable`). Upstream's
    own default (1.0, level 8k, no extension: the one the upstream
    `tosa-to-linalg-pipeline` validates against) refuses TOSA that its
    lowering compiles: `rounding_mode = DOUBLE_ROUND` ("requires extension
    [doubleround]"), any `?` dimension ("cannot be dynamic when targeting
    TOSA specification version 1.0"), and the padding of a rank-4
    `tosa.pad` (a `!tosa.shape<8>`, "exceeds MAX_RANK" at level 8k: a
    module that declares level 8k still gets that error, upstream's rule).

    Each error is upstream's, located at the op, with a note naming the
    target it was checked against. A module without TOSA ops is not
    looked at. The module is not changed.
  }];
  let dependentDialects = ["::mlir::tosa::TosaDialect"];
}

def AmpConvertScfToCf : Pass<"amp-convert-scf-to-cf"> {
  let summary = "Upstream convert-scf-to-cf in time linear in the size of a function (it is quadratic on a whole model's function)";
  let description = [{
    Upstream `convert-scf-to-cf` lowers an `scf.for` (`scf.if`,
    `scf.while`, `scf.index_switch`, `scf.execute_region`) by splitting its
    block before it: the op and every op after it move into a new block,
    one by one, each reported to the dialect conversion's rewriter. A
    function whose block holds n ops and m loop nests costs O(n m) moves.
    On densenet201 at 1x3x64x64 in bf16 (about 3,900 `scf.for` in 245,000
    lines at that point of amp-cpu-pipeline) the pass took 64 of the
    pipeline's 88 s, most of it in `RewriterBase::splitBlock`.

    This pass produces what the upstream pass produces, in linear time:

    1. every block that may hold branches is split after each SCF op with
       regions (from the last one up, so each op moves once) and ends with
       a `cf.br` to the rest: the conversion's split then moves two ops
       (the SCF op and that branch). Blocks of regions that must have a
       single block (`scf.for`'s body, a module) or are graph regions are
       not split, nor at an SCF op directly before its block's terminator;
    2. upstream `convert-scf-to-cf` runs on the op;
    3. each block made in step 1 is merged back into its predecessor, the
       block that ends the lowered SCF op with a `cf.br` to it (when that
       branch is its only predecessor), so no extra block or branch
       remains.
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

#endif // AMP_CODEGEN_COMMON_PASSES_TD
