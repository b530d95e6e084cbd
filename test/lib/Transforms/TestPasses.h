//===- TestPasses.h - test-only amp passes ----------------------*- C++ -*-===//
//
// Passes that only tests and benchmarks use (amp-randomize-weights). They
// are linked into amp-opt when AMP_INCLUDE_TESTS is on, as mlir-opt links
// MLIR's test passes; the C API library and the Python package do not have
// them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TEST_LIB_TRANSFORMS_TESTPASSES_H
#define AMP_TEST_LIB_TRANSFORMS_TESTPASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

} // namespace mlir::amp

#endif // AMP_TEST_LIB_TRANSFORMS_TESTPASSES_H
