//===- AmpOps.td - amp dialect operations ------------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_TD
#define AMP_DIALECT_AMP_IR_AMPOPS_TD

include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/CastInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "amp/Dialect/Amp/IR/AmpAttrs.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Amp_CastableFloat : AnyTypeOf<[F64, F32, F16, BF16]>;
def Amp_CastableType : AnyTypeOf<[Amp_CastableFloat,
                                  RankedTensorOf<[F64, F32, F16, BF16]>],
    "f64/f32/f16/bf16 scalar or ranked tensor">;

//===----------------------------------------------------------------------===//
// amp.autocast
//===----------------------------------------------------------------------===//

def Amp_AutocastOp : Amp_Op<"autocast", [
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
                              ["getRegionInvocationBounds"]>,
    SingleBlockImplicitTerminator<"YieldOp">,
    RecursiveMemoryEffects,
    NoRegionArguments]> {
  let summary = "autocast region (`with torch.autocast(...)`)";
  let description = [{
    Marks a region in which the cast policy chooses f16, bf16 or f32 for every
    op (`amp-autocast` pass). The keywords mirror
    `torch.autocast(device_type, dtype, enabled, cache_enabled)`:

    ```mlir
    %r = amp.autocast device_type(cuda) -> tensor<8x16xf32> {
      %y = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x16xf32>)
                         outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
      amp.yield %y : tensor<8x16xf32>
    }
    amp.autocast device_type(cpu) dtype(bf16) enabled(false) cache_enabled(false) {
      ...
    }
    ```

    - `device_type(cuda|cpu)` is required.
    - `dtype(f16|bf16)` defaults to f16 on cuda and bf16 on cpu.
    - `enabled(true|false)` defaults to true; `enabled(false)` turns the
      policy off inside (values from an outer region arrive as they are).
    - `cache_enabled(true|false)` defaults to true (weight-cast cache).
    Defaults are not printed. An `amp.policy` attribute may follow the
    keyword `attributes`.

    The region is not isolated from above: it reads values defined outside
    (weights, inputs). It has one block without arguments, ended by
    `amp.yield`, implicit when the op has no results. The results keep the
    types declared after `->`: an f16 value computed inside and yielded as
    f32 is extended exactly. Nesting is allowed; the innermost region rules.

    Verifier errors: yield operand types that differ from the result types;
    an invalid configuration (see `#amp.autocast`).
  }];
  let arguments = (ins Amp_AutocastAttr:$config);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::amp::AutocastAttr":$config)>
  ];
  let extraClassDeclaration = [{
    /// The single block of the region.
    ::mlir::Block *getBodyBlock() { return &getBody().front(); }
    /// The region's terminator.
    YieldOp getYield();
  }];
}

def Amp_YieldOp : Amp_Op<"yield", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["AutocastOp", "StepIfFiniteOp"]>]> {
  let summary = "terminator of `amp.autocast` and `amp.step_if_finite` regions";
  let description = [{
    Returns the region's values to the enclosing op; operand types must equal
    its result types. Implicit in an `amp.autocast` region without results.
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ /* nothing to do */ }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

//===----------------------------------------------------------------------===//
// amp.cast
//===----------------------------------------------------------------------===//

def Amp_CastOp : Amp_Op<"cast", [
    Pure, SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<CastOpInterface>]> {
  let summary = "floating-point cast between f64, f32, f16 and bf16";
  let description = [{
    Converts a floating scalar or ranked tensor to another floating element
    type of the same shape, rounding to nearest, ties to even; subnormals of
    the target type are kept (IEEE 754 `convertFormat`). Narrowing a value
    above the target's range gives infinity, as `Tensor.to(dtype)` does.

    ```mlir
    %h = amp.cast %x : tensor<4xf32> to tensor<4xf16>
    %s = amp.cast %c : f32 to bf16
    ```

    Folds:
    - a cast to the same type is its input;
    - `cast(cast(x))` becomes one cast from `x` when the inner cast is exact
      (it widens: f16/bf16 -> f32 -> f64), so f16 -> f32 -> f16 folds to `x`,
      while f32 -> f16 -> f32 does not (it rounds);
    - a cast of a constant folds to a constant at compile time, with the
      same rounding as at run time.

    Verifier errors: operand or result not an f64/f32/f16/bf16 scalar or
    ranked tensor; shapes that differ (a scalar and a tensor included);
    tensor encodings that differ.

    Lowered to `arith.extf`/`arith.truncf` by `amp-lower-cast`.
  }];
  let arguments = (ins Amp_CastableType:$in);
  let results = (outs Amp_CastableType:$out);
  let assemblyFormat = "$in attr-dict `:` type($in) `to` type($out)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dynamic loss scaling (torch.amp.GradScaler)
//===----------------------------------------------------------------------===//
//
// The loss scale is an f32 0-d tensor and the growth tracker an i32 0-d
// tensor, as GradScaler's `_scale` and `_growth_tracker`; a training step
// takes both as arguments and returns their updated values. `found_inf` is an
// i1 scalar. The ops belong outside autocast regions (GradScaler is not
// autocast-aware either); the cast policy leaves them alone (`keep`).
// `amp-lower-loss-scaling` lowers them to linalg, arith, tensor and scf.

def Amp_LossScale : 0DTensorOf<[F32]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF32Type())">;
def Amp_GrowthTracker : 0DTensorOf<[I32]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI32Type())">;

def Amp_InitLossScaleOp : Amp_Op<"init_loss_scale", [Pure]> {
  let summary = "initial dynamic loss-scaling state (GradScaler's constructor)";
  let description = [{
    Returns the initial loss scale, `init_scale` (default 65536 = 2^16, as
    `torch.amp.GradScaler(init_scale=2.**16)`), as a `tensor<f32>`, and a zero
    growth tracker as a `tensor<i32>`.

    ```mlir
    %scale, %tracker = amp.init_loss_scale
    %scale2, %tracker2 = amp.init_loss_scale {init_scale = 1024.0 : f32}
    ```

    Verifier error: an `init_scale` that is not finite and positive.
  }];
  let arguments = (ins DefaultValuedAttr<F32Attr, "65536.0">:$init_scale);
  let results = (outs Amp_LossScale:$scale, Amp_GrowthTracker:$growth_tracker);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Amp_ScaleLossOp : Amp_Op<"scale_loss", [
    Pure, AllTypesMatch<["loss", "result"]>]> {
  let summary = "multiply a loss (or its gradient) by the loss scale";
  let description = [{
    `GradScaler.scale(outputs)`: returns `loss * scale`. The loss is an f32,
    f16 or bf16 scalar or ranked tensor of any shape; the product is computed
    in f32 and rounded once to the loss's type. (PyTorch promotes a 0-d
    f16/bf16 loss times the 0-d f32 scale to f32; here the result keeps the
    loss type, so compute losses in f32, as autocast does: losses are on the
    fp32 list.) Because backpropagation is
    linear, scaling the seed gradient of a hand-written backward pass is the
    same as backpropagating the scaled loss.

    ```mlir
    %scaled = amp.scale_loss %loss, %scale : tensor<f32>
    %seed = amp.scale_loss %dlogits, %scale : tensor<64x10xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[F32, F16, BF16,
                                  RankedTensorOf<[F32, F16, BF16]>]>:$loss,
                       Amp_LossScale:$scale);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$loss `,` $scale attr-dict `:` type($loss)";
}

def Amp_UnscaleOp : Amp_Op<"unscale", [
    Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "unscale gradients and check them for inf/NaN";
  let description = [{
    `GradScaler.unscale_`: multiplies every gradient by
    `inv_scale = float(1 / double(scale))` (the reciprocal is taken in f64,
    as GradScaler does) and returns the unscaled gradients, in order, and
    `found_inf`: true when any element of any input gradient is inf or NaN
    (`torch._amp_foreach_non_finite_check_and_unscale_`).

    ```mlir
    %g0, %g1, %found_inf = amp.unscale %dw, %db by %scale
        : tensor<64x10xf32>, tensor<10xf32>
    ```

    Gradients are f32 ranked tensors of any shape: master weights are f32.
    Verifier error: a gradient that is not f32 (GradScaler raises
    "Attempting to unscale FP16 gradients.").
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$grads, Amp_LossScale:$scale);
  let results = (outs Variadic<AnyRankedTensor>:$unscaled, I1:$found_inf);
  let assemblyFormat = [{
    ($grads^)? `by` $scale attr-dict (`:` type($grads)^)?
  }];
  let hasVerifier = 1;
}

def Amp_UpdateScaleOp : Amp_Op<"update_scale", [Pure]> {
  let summary = "update the loss scale and growth tracker (GradScaler.update)";
  let description = [{
    `torch._amp_update_scale_` with GradScaler's defaults:

    ```
    if found_inf: scale = scale * backoff_factor; growth_tracker = 0
    else:
      successful = growth_tracker + 1
      if successful == growth_interval:
        grown = float(double(scale) * growth_factor)
        if isfinite(grown): scale = grown
        growth_tracker = 0
      else: growth_tracker = successful
    ```

    The factors are f64 attributes and the products are taken in f64 and
    rounded once to f32, as PyTorch's kernels do. There is no lower bound on
    the scale (as in PyTorch).

    ```mlir
    %s2, %t2 = amp.update_scale %scale, %tracker, %found_inf
    %s3, %t3 = amp.update_scale %scale, %tracker, %found_inf
        {growth_factor = 4.0, backoff_factor = 0.25, growth_interval = 100 : i32}
    ```

    Verifier errors (GradScaler's constructor asserts): `growth_factor` not
    above 1, `backoff_factor` not in (0, 1), `growth_interval` below 1.
  }];
  let arguments = (ins Amp_LossScale:$scale,
                       Amp_GrowthTracker:$growth_tracker,
                       I1:$found_inf,
                       DefaultValuedAttr<F64Attr, "2.0">:$growth_factor,
                       DefaultValuedAttr<F64Attr, "0.5">:$backoff_factor,
                       DefaultValuedAttr<I32Attr, "2000">:$growth_interval);
  let results = (outs Amp_LossScale:$new_scale,
                      Amp_GrowthTracker:$new_growth_tracker);
  let assemblyFormat = [{
    $scale `,` $growth_tracker `,` $found_inf attr-dict
  }];
  let hasVerifier = 1;
}

def Amp_StepIfFiniteOp : Amp_Op<"step_if_finite", [
    RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "apply an optimizer update only when all gradients are finite";
  let description = [{
    `GradScaler.step(optimizer)`: when `found_inf` is false, runs the region
    (the optimizer update) and returns the values it yields; when true, the
    region does not run and the results are the `keep` operands (weights and
    optimizer state) unchanged, bit for bit.

    ```mlir
    %w2, %m2 = amp.step_if_finite %found_inf keep(%w, %m : tensor<4xf32>, tensor<4xf32>) {
      ... momentum SGD on %w, %m and the unscaled gradient ...
      amp.yield %new_w, %new_m : tensor<4xf32>, tensor<4xf32>
    }
    ```

    The region has one block without arguments and reads values defined
    above; it ends with `amp.yield`, whose operand types equal the result
    types. With no kept values the update works by side effects (stores).
    The cast policy leaves the op and its region alone (`keep`): an
    optimizer update runs at the types it is written in, even inside an
    autocast region. Verifier error: yield types that differ from the
    `keep` types.
  }];
  let arguments = (ins I1:$found_inf, Variadic<AnyType>:$keep);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $found_inf `keep` `(` ($keep^ `:` type($keep))? `)` attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The region's terminator.
    YieldOp getYield();
  }];
}

#endif // AMP_DIALECT_AMP_IR_AMPOPS_TD
