//===- AmpAttrs.td - amp dialect attributes ----------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPATTRS_TD
#define AMP_DIALECT_AMP_IR_AMPATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "amp/Dialect/Amp/IR/AmpEnums.td"

class Amp_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Amp_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Amp_AutocastAttr : Amp_Attr<"Autocast", "autocast"> {
  let summary = "autocast configuration (device_type, dtype, enabled, cache_enabled)";
  let description = [{
    The four arguments of `torch.autocast(device_type, dtype, enabled,
    cache_enabled)`. Used as the configuration of an `amp.autocast` op and,
    under the name `amp.autocast`, as the decorator of a function:

    ```mlir
    func.func @forward(%x: tensor<8x32xf32>) -> tensor<8x16xf32>
        attributes {amp.autocast = #amp.autocast<device_type = cuda>} { ... }
    ```

    - `device_type`: `cuda` or `cpu` (required).
    - `dtype`: the lower-precision type, `f16` or `bf16`. Absent means the
      device default: f16 on cuda, bf16 on cpu (PyTorch's defaults).
    - `enabled` (default true): false turns the cast policy off inside.
    - `cache_enabled` (default true): casts of values defined outside the
      region are made once per region and hoisted out of loops.

    Errors, at the key or value: an unknown key (the valid keys are
    listed), a key given twice, a `device_type` other than `cuda`/`cpu`, a
    `dtype` other than `f16`/`bf16`, an `enabled`/`cache_enabled` other than
    `true`/`false`, a missing `device_type`.
  }];
  let parameters = (ins
    EnumParameter<Amp_DeviceType>:$device_type,
    OptionalParameter<"::mlir::Type">:$dtype,
    DefaultValuedParameter<"bool", "true">:$enabled,
    DefaultValuedParameter<"bool", "true">:$cache_enabled
  );
  // Custom parser: plain-words errors at the key or value, listing the
  // valid keys and choices (AmpAttrs.cpp).
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "DeviceType":$deviceType), [{
      return $_get($_ctxt, deviceType, ::mlir::Type(), true, true);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The lower-precision type of the region: `dtype` when given, otherwise
    /// the device default (f16 for cuda, bf16 for cpu).
    ::mlir::FloatType getLowerPrecisionType() const;
  }];
}

def Amp_PolicyAttr : Amp_Attr<"Policy", "policy"> {
  let summary = "cast-policy overrides: op names per category";
  let description = [{
    Overrides the default cast policy for the ops it names, for everything
    nested below the op that carries it (under the name `amp.policy`, on a
    module, a function or an `amp.autocast` op). The innermost policy wins.
    Each list holds fully qualified op names:

    ```mlir
    amp.autocast device_type(cuda) attributes {
        amp.policy = #amp.policy<fp32 = ["linalg.matmul"], lower = ["math.exp"]>} { ... }
    ```

    Errors: an unknown key (the six categories are listed), a key given
    twice, a value that is not a list of quoted op names, an op name that no
    loaded dialect registers (the error names it), an op named in two
    categories, and an op the cast policy never decides (a terminator,
    `scf` control flow whose body autocast processes op by op, a function or
    module, a constant, an amp op: naming it would have no effect).
  }];
  let parameters = (ins
    OptionalParameter<"::mlir::ArrayAttr">:$lower,
    OptionalParameter<"::mlir::ArrayAttr">:$fp32,
    OptionalParameter<"::mlir::ArrayAttr">:$promote,
    OptionalParameter<"::mlir::ArrayAttr">:$infer,
    OptionalParameter<"::mlir::ArrayAttr">:$clear,
    OptionalParameter<"::mlir::ArrayAttr">:$keep
  );
  // Custom parser: plain-words errors listing the categories (AmpAttrs.cpp).
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The category this policy gives to `opName`, if it names it.
    std::optional<CastCategory> lookup(::llvm::StringRef opName) const;
  }];
}

#endif // AMP_DIALECT_AMP_IR_AMPATTRS_TD
