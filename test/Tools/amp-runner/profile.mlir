// amp-cpu-pipeline{profile=true} times each computing op of the function
// bodies; amp-runner --amp-profile prints the table after the run: time,
// share, calls and the op with its operand types and its input location.
// Without profile=true the table is empty.
// RUN: amp-opt %s '--amp-cpu-pipeline=cpu-features=generic profile=true' | amp-runner -e main --entry-point-result=void --amp-profile 2>&1 | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=cpu-features=generic | amp-runner -e main --entry-point-result=void --amp-profile 2>&1 | FileCheck %s --check-prefix=OFF

// CHECK: 8192
// CHECK: amp profile: total ms % calls op
// CHECK-DAG: amp profile: {{.*}} 1 mm#{{[0-9]+}} {{.*}}loc("{{.*}}profile.mlir":[[@LINE+11]]:8)
// CHECK-DAG: amp profile: {{.*}} 1 mm#{{[0-9]+}} linalg.fill (f32, memref<64x64xf32>) loc("{{.*}}profile.mlir":[[@LINE+9]]:8)

// OFF: 8192
// OFF: amp profile: total ms % calls op
// OFF-NOT: amp profile: {{.*}}#

func.func @mm(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<64x128xf32>
  %b = arith.constant dense<1.0> : tensor<128x64xf32>
  %m = call @mm(%a, %b) : (tensor<64x128xf32>, tensor<128x64xf32>) -> tensor<64x64xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %m[%c0, %c0] : tensor<64x64xf32>
  %s = arith.mulf %v, %v : f32
  %h = arith.constant 0.5 : f32
  %r = arith.mulf %s, %h : f32
  vector.print %r : f32
  return
}
