//===- TestDialect.cpp - amp_test dialect, for lit tests ------------------===//

#include "TestDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::test;

#include "TestOpsDialect.cpp.inc"

void AmpTestDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TestOps.cpp.inc"
      >();
}

CastCategory ScaledMatmulOp::getCastCategory(DeviceType device) {
  return device == DeviceType::cuda ? CastCategory::lower : CastCategory::fp32;
}

CastCategory OpaqueOp::getCastCategory(DeviceType) {
  return CastCategory::keep;
}

CastCategory F32ResultOp::getCastCategory(DeviceType) {
  return CastCategory::lower;
}

#define GET_OP_CLASSES
#include "TestOps.cpp.inc"
