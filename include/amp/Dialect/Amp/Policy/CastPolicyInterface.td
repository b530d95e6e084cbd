//===- CastPolicyInterface.td - cast-policy op interface ---*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_POLICY_CASTPOLICYINTERFACE_TD
#define AMP_DIALECT_AMP_POLICY_CASTPOLICYINTERFACE_TD

include "mlir/IR/OpBase.td"

def Amp_CastPolicyOpInterface : OpInterface<"CastPolicyOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    Declares an op's default cast-policy category under autocast: `lower`
    (runs in the region's f16/bf16), `fp32`, `promote` (widest input type),
    `infer` (unlisted arithmetic), `clear` (data movement) or `keep` (cannot
    be retyped). The amp dialect attaches implementations to upstream ops
    (tosa, linalg, arith, math, tensor) following PyTorch's per-device
    autocast lists; other dialects implement it to declare their own ops.
    Pass options and `#amp.policy` attributes override the answer.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the category of this op under autocast on `device`.
      }],
      "::mlir::amp::CastCategory", "getCastCategory",
      (ins "::mlir::amp::DeviceType":$device)>,
  ];
}

#endif // AMP_DIALECT_AMP_POLICY_CASTPOLICYINTERFACE_TD
