//===- AmpDialect.td - amp dialect definition --------------*- tablegen -*-===//
//
// The `amp` dialect: automatic mixed precision (autocast) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPDIALECT_TD
#define AMP_DIALECT_AMP_IR_AMPDIALECT_TD

include "mlir/IR/OpBase.td"

def Amp_Dialect : Dialect {
  let name = "amp";
  let cppNamespace = "::mlir::amp";
  let summary = "Automatic mixed precision: autocast regions, casts, loss scaling";
  let description = [{
    The `amp` dialect brings the eager frameworks' `autocast(device_type,
    dtype, enabled, cache_enabled)` to compilers. A program marks regions as
    autocast, either with the `amp.autocast` region op (the context-manager
    form) or with the `amp.autocast` attribute on a function (the decorator
    form). The `amp-autocast` pass then decides the compute type (f16, bf16 or
    f32) of every op inside from a cast policy and inserts `amp.cast` where a
    value has to change type.

    Discardable attributes verified by the dialect:
    - `amp.autocast = #amp.autocast<...>`: only on a function
      (`FunctionOpInterface`); the whole body is one autocast region.
    - `amp.policy = #amp.policy<...>`: on a module, a function or an
      `amp.autocast` op; overrides cast-policy categories of named ops for
      everything nested below it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (in AmpAttrs.cpp, next to their storage).
    void registerAttributes();

    /// Name of the decorator attribute on functions.
    static constexpr ::llvm::StringLiteral getAutocastAttrName() {
      return ::llvm::StringLiteral("amp.autocast");
    }
    /// Name of the cast-policy override attribute.
    static constexpr ::llvm::StringLiteral getPolicyAttrName() {
      return ::llvm::StringLiteral("amp.policy");
    }
    /// Name of the annotation left by `amp-autocast{annotate}`.
    static constexpr ::llvm::StringLiteral getComputeTypeAttrName() {
      return ::llvm::StringLiteral("amp.compute_type");
    }
    /// Name of the list of arguments a managed body may write in place
    /// (`amp-gpu-managed-memory`): a DenseI64ArrayAttr of argument numbers.
    static constexpr ::llvm::StringLiteral getMayWriteArgsAttrName() {
      return ::llvm::StringLiteral("amp.may_write_args");
    }
    /// Name of the attribute of a runtime function declaration naming its
    /// queued variant (`amp-gpu-cublas-contractions`): the same call, ordered
    /// on the device after the launches queued before it and leaving the
    /// host to wait (`amp-gpu-async-launches` calls it).
    static constexpr ::llvm::StringLiteral getQueuedVariantAttrName() {
      return ::llvm::StringLiteral("amp.queued_variant");
    }
  }];
}

class Amp_Op<string mnemonic, list<Trait> traits = []>
    : Op<Amp_Dialect, mnemonic, traits>;

#endif // AMP_DIALECT_AMP_IR_AMPDIALECT_TD
