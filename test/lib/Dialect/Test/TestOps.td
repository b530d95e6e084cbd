//===- TestOps.td - amp_test dialect, for lit tests --------*- tablegen -*-===//
//
// Ops of a dialect that is not the amp dialect and not upstream, declaring
// their autocast category through CastPolicyOpInterface, as a user's own
// dialect would. Built into amp-opt for the tests only (AMP_INCLUDE_TESTS).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TEST_OPS_TD
#define AMP_TEST_OPS_TD

include "amp/Dialect/Amp/Policy/CastPolicyInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def AmpTest_Dialect : Dialect {
  let name = "amp_test";
  let cppNamespace = "::mlir::amp::test";
  let summary = "Test ops that declare their cast policy through CastPolicyOpInterface";
}

class AmpTest_Op<string mnemonic, list<Trait> traits = []>
    : Op<AmpTest_Dialect, mnemonic, traits>;

def AmpTest_ScaledMatmulOp : AmpTest_Op<"scaled_matmul",
    [Pure, AllElementTypesMatch<["lhs", "rhs", "result"]>,
     DeclareOpInterfaceMethods<Amp_CastPolicyOpInterface>]> {
  let summary = "lhs x rhs: `lower` under CUDA autocast, `fp32` under CPU autocast";
  let description = [{
    A matmul-like op of a user dialect: its CastPolicyOpInterface
    implementation answers `lower` for `device_type = cuda` and `fp32` for
    `cpu`. Operands and result are ranked float tensors of one element type.
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

def AmpTest_OpaqueOp : AmpTest_Op<"opaque",
    [Pure, DeclareOpInterfaceMethods<Amp_CastPolicyOpInterface>]> {
  let summary = "An op whose policy is `keep` on every device";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def AmpTest_F32ResultOp : AmpTest_Op<"f32_result",
    [Pure, DeclareOpInterfaceMethods<Amp_CastPolicyOpInterface>]> {
  let summary = "A `lower` op whose result must be f32: autocast cannot retype it";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs TensorOf<[F32]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def AmpTest_UnlistedOp : AmpTest_Op<"unlisted",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "An op without CastPolicyOpInterface (autocast keeps it as written)";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // AMP_TEST_OPS_TD
