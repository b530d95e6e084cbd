//===- Passes.td - autocast core passes --------------------*- tablegen -*-===//

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
           "Propagation mode: graph (cast-minimising painting) or eager (op by op as PyTorch eager; deviations: docs/Autocast.md)">,
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

def AmpSpecializeCalls : Pass<"amp-specialize-calls", "ModuleOp"> {
  let summary = "Put the callees of calls inside autocast regions under the region's cast policy";
  let description = [{
    In PyTorch, autocast covers everything a region calls. For every
    `func.call` inside an enabled autocast region (an `amp.autocast` op or a
    decorated function, nested regions with their own configuration), the
    callee gets that region's configuration as its decorator
    `amp.autocast = #amp.autocast<...>`, so that `amp-autocast` processes its
    body under the same policy: a private callee called only from regions of
    that configuration is decorated in place; any other callee (public, or
    also called from outside, or from a region of another configuration) is
    cloned as a private `@<callee>__autocast_<device>_<dtype>` (suffix
    `_nocache` with `cache_enabled(false)`), decorated, and the call
    retargeted. Callees of a specialised function are specialised in turn
    (recursion included: one clone per callee and configuration). A callee
    that is already decorated keeps its own configuration; calls in
    `enabled(false)` regions are left alone.

    The decorated callee keeps its signature (its results are cast back to
    their declared types at its return), so callers see the types they were
    written with. Run it before `amp-autocast` (the CPU and CUDA pipelines
    do). Warning: a call to an external declaration (no body), located at
    the call: autocast cannot apply the policy to code it does not see.
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect", "::mlir::func::FuncDialect"];
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

def AmpKeepNarrowRounding : Pass<"amp-keep-narrow-rounding", "func::FuncOp"> {
  let summary = "Keep the rounding to f16/bf16 between two ops that math-extend-to-supported-types computes in f32";
  let description = [{
    `math-extend-to-supported-types` computes each f16/bf16 math op in f32
    between an `arith.extf` and an `arith.truncf`, both with the `contract`
    fast-math flag, and arith's folders turn `extf(truncf(x))` with that
    flag into `x`. In a chain of such ops (two fused elementwise ops, say
    `sin(sin(x))` on bf16) the value then skips its rounding to bf16 between
    them, while PyTorch, running op by op, rounds after each op: the result
    differs by one bf16 ulp here and there, and eager mode no longer rounds
    where PyTorch does. This pass clears the `contract` flag of every
    `arith.truncf` to f16/bf16 and `arith.extf` from f16/bf16, so every
    rounding the ops' types ask for happens. Other flags are kept.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AmpSinkArgumentCasts : Pass<"amp-sink-argument-casts", "func::FuncOp"> {
  let summary = "Move each amp.cast of a function argument down to right before its first user";
  let description = [{
    `amp-autocast` casts a value defined outside a region (a weight) once,
    at region entry (PyTorch's cast cache); after the regions are inlined
    every weight's f16/bf16 copy then exists from the start of the function.
    Each buffer being held from its first use to its last (the CPU
    pipeline's `amp-sink-allocations`, `optimize-allocation-liveness`),
    resnet18's inference held all its bf16 weights (22 MiB) at once. This
    pass moves every `amp.cast` whose operand is an argument of the
    function's entry block down to right before the first op of its block
    that uses it (never into a loop or a branch): still one cast per weight
    and type, the same values, only later. Casts of other values stay where
    they are (moving a truncation of an internal f32 value down would hold
    the f32 value longer). Run after `amp-autocast`.
  }];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
