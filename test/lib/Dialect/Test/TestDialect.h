//===- TestDialect.h - amp_test dialect, for lit tests ----------*- C++ -*-===//

#ifndef AMP_TEST_DIALECT_TESTDIALECT_H
#define AMP_TEST_DIALECT_TESTDIALECT_H

#include "amp/Dialect/Amp/Policy/CastPolicy.h"

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TestOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "TestOps.h.inc"

#endif // AMP_TEST_DIALECT_TESTDIALECT_H
