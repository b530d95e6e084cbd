// RUN: amp-opt %s -split-input-file -sccp | FileCheck %s

// amp.autocast implements RegionBranchOpInterface, so dataflow analyses see
// through it: SCCP propagates the yielded constant to the op's result.
// CHECK-LABEL: func @sccp_through_region
// CHECK: %[[C:.*]] = arith.constant 6 : i32
// CHECK: return %[[C]]
func.func @sccp_through_region() -> i32 {
  %r = amp.autocast device_type(cuda) -> i32 {
    %c = arith.constant 3 : i32
    amp.yield %c : i32
  }
  %s = arith.addi %r, %r : i32
  return %s : i32
}
