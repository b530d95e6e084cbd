// RUN: amp-opt %s --amp-cpu-tile-and-vectorize="register-tile=4,8" -verify-diagnostics
// RUN: amp-opt %s --amp-cpu-tile-and-vectorize="cache-tile=4,0,8" -verify-diagnostics

// expected-error @+1 {{amp-cpu-tile-and-vectorize: '}}
func.func @matmul(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
