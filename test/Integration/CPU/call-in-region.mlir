// Issue 29 item 2: a function called inside an autocast(cuda) region runs
// under the region's policy, as PyTorch's autocast covers what a region
// calls: the callee's matmul rounds its inputs to f16, so 1 + 2^-12 becomes
// 1 (the product 1 x 1 = 1), while the same callee called from outside the
// region stays f32 (1.00024). Before amp-specialize-calls the call inside
// the region ran in f32 too.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( 1, 1.00024 )

func.func private @mm(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %m = linalg.matmul ins(%a, %b : tensor<1x1xf32>, tensor<1x1xf32>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %m : tensor<1x1xf32>
}

func.func @inside(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<1x1xf32> {
    %m = func.call @mm(%a, %b) : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
    amp.yield %m : tensor<1x1xf32>
  }
  return %r : tensor<1x1xf32>
}

func.func @main() {
  %a = arith.constant dense<1.000244140625> : tensor<1x1xf32>
  %b = arith.constant dense<1.0> : tensor<1x1xf32>
  %r0 = call @inside(%a, %b) : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %r1 = call @mm(%a, %b) : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %c0 = arith.constant 0 : index
  %v0 = tensor.extract %r0[%c0, %c0] : tensor<1x1xf32>
  %v1 = tensor.extract %r1[%c0, %c0] : tensor<1x1xf32>
  %v = vector.from_elements %v0, %v1 : vector<2xf32>
  vector.print %v : vector<2xf32>
  return
}
