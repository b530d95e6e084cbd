//===- AmpOps.td - amp dialect operations ------------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_TD
#define AMP_DIALECT_AMP_IR_AMPOPS_TD

include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/CastInterfaces.td"
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
    Pure, ReturnLike, Terminator, HasParent<"AutocastOp">]> {
  let summary = "terminator of an `amp.autocast` region";
  let description = [{
    Returns the region's values to the enclosing `amp.autocast`; operand types
    must equal its result types. Implicit when the region has no results.
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

#endif // AMP_DIALECT_AMP_IR_AMPOPS_TD
