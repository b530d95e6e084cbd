// RUN: amp-opt %s --amp-cpu-recoverable-asserts -split-input-file | FileCheck %s

// torch-mlir's gather body (aten.embedding): the index is checked, then read.
// The asserts call the runtime's hook; the extract after them reads an index
// clamped into the table.

// CHECK-DAG: llvm.mlir.global private constant @amp_assert_msg_0("index must be smaller than dim size at \22model.py\22:7:0\00")
// CHECK-DAG: llvm.mlir.global private constant @amp_assert_msg_1("index must be larger or equal to 0 at \22model.py\22:7:0\00")
// CHECK-DAG: func.func private @amp_cpu_assert_failed(!llvm.ptr)
// CHECK-LABEL: func.func @embedding
// CHECK-NOT: cf.assert
// CHECK: %[[IDX:.*]] = arith.index_cast
// CHECK: %[[OK:.*]] = arith.cmpi slt, %[[IDX]]
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %{{.*}} : i1
// CHECK: scf.if %[[BAD]] {
// CHECK:   %[[MSG:.*]] = llvm.mlir.addressof @amp_assert_msg_0
// CHECK:   %[[PTR:.*]] = llvm.getelementptr %[[MSG]][0, 0]
// CHECK:   func.call @amp_cpu_assert_failed(%[[PTR]]) : (!llvm.ptr) -> ()
// CHECK: }
// CHECK: scf.if
// CHECK: %[[DIM:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[LAST:.*]] = arith.subi %[[DIM]], %c1
// CHECK: %[[MIN:.*]] = arith.minsi %[[IDX]], %[[LAST]]
// CHECK: %[[ROW:.*]] = arith.maxsi %[[MIN]], %c0
// CHECK: tensor.extract %arg0[%[[ROW]], %{{.*}}] : tensor<10x4xf32>
#map = affine_map<(d0, d1) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
func.func @embedding(%table: tensor<10x4xf32>, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %c10 = arith.constant 10 : index
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<3x4xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<3xi64>) outs(%0 : tensor<3x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %lt = arith.cmpi slt, %i, %c10 : index
    cf.assert %lt, "index must be smaller than dim size" loc("model.py":7:0)
    %ge = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %ge, "index must be larger or equal to 0" loc("model.py":7:0)
    %v = tensor.extract %table[%i, %j] : tensor<10x4xf32>
    linalg.yield %v : f32
  } -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// Without asserts the module is unchanged: no hook is declared.

// CHECK-LABEL: func.func @no_assert
// CHECK-NOT: amp_cpu_assert_failed
// CHECK: tensor.extract %arg0[%arg1]
func.func @no_assert(%t: tensor<8xf32>, %i: index) -> f32 {
  %v = tensor.extract %t[%i] : tensor<8xf32>
  return %v : f32
}
