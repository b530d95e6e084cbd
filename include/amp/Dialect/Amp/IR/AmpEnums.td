//===- AmpEnums.td - amp dialect enums ---------------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPENUMS_TD
#define AMP_DIALECT_AMP_IR_AMPENUMS_TD

include "mlir/IR/EnumAttr.td"
include "amp/Dialect/Amp/IR/AmpDialect.td"

def Amp_DeviceType : I32EnumAttr<"DeviceType",
    "autocast device type (`torch.autocast(device_type=...)`)", [
      I32EnumAttrCase<"cuda", 0>,
      I32EnumAttrCase<"cpu", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::amp";
}

def Amp_CastCategory : I32EnumAttr<"CastCategory",
    "cast-policy category of an op", [
      // Runs in the region's lower-precision dtype (PyTorch
      // `lower_precision_fp`, OneFlow/TensorFlow allow/white list).
      I32EnumAttrCase<"lower", 0>,
      // Runs in f32 (PyTorch `fp32` and `fp32_set_opt_dtype`, deny/black).
      I32EnumAttrCase<"fp32", 1>,
      // Runs in the widest float type of its inputs (PyTorch `promote`).
      I32EnumAttrCase<"promote", 2>,
      // Unlisted arithmetic: any float type (OneFlow gray / TF infer list).
      I32EnumAttrCase<"infer", 3>,
      // Data movement, follows its input (OneFlow/TensorFlow clear list).
      I32EnumAttrCase<"clear", 4>,
      // Cannot be retyped: operands are cast back to their written types.
      I32EnumAttrCase<"keep", 5>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::amp";
}

def Amp_DeviceTypeAttr : EnumAttr<Amp_Dialect, Amp_DeviceType, "device_type">;

#endif // AMP_DIALECT_AMP_IR_AMPENUMS_TD
