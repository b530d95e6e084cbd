//===- Passes.td - amp dialect conversions -----------------*- tablegen -*-===//

#ifndef AMP_CONVERSION_PASSES_TD
#define AMP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // AMP_CONVERSION_PASSES_TD
