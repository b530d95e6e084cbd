// RUN: amp-opt %s -split-input-file --amp-lower-cast | FileCheck %s

// CHECK-LABEL: func @casts
// CHECK-SAME: (%[[T:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>, %[[S:.*]]: bf16)
// CHECK: %[[A:.*]] = arith.truncf %[[T]] : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[B:.*]] = arith.extf %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK: %[[E:.*]] = arith.extf %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK: %[[C:.*]] = arith.truncf %[[E]] : tensor<4xf32> to tensor<4xbf16>
// CHECK: %[[D:.*]] = arith.extf %[[S]] : bf16 to f64
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
// CHECK-NOT: amp.cast
func.func @casts(%t: tensor<4xf32>, %h: tensor<4xf16>, %s: bf16)
    -> (tensor<4xf16>, tensor<4xf32>, tensor<4xbf16>, f64) {
  %a = amp.cast %t : tensor<4xf32> to tensor<4xf16>
  %b = amp.cast %h : tensor<4xf16> to tensor<4xf32>
  %c = amp.cast %h : tensor<4xf16> to tensor<4xbf16>
  %d = amp.cast %s : bf16 to f64
  return %a, %b, %c, %d : tensor<4xf16>, tensor<4xf32>, tensor<4xbf16>, f64
}

// -----

// Regions left by amp-autocast{keep-regions} are inlined; decorators go.
// CHECK-LABEL: func @regions
// CHECK-NOT: amp.
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: %[[R:.*]] = arith.extf %[[M]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK: return %[[R]]
// RUN: amp-opt %s -split-input-file --amp-autocast=keep-regions --amp-lower-cast | FileCheck %s --check-prefix=PIPE
// PIPE-LABEL: func @regions
// PIPE: linalg.matmul ins(%{{.*}} : tensor<2x2xf16>, tensor<2x2xf16>)
// PIPE: arith.extf %{{.*}} : tensor<2x2xf16> to tensor<2x2xf32>
// PIPE-NOT: amp.
func.func @regions(%x: tensor<2x2xf32>, %h: tensor<2x2xf16>) -> tensor<2x2xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf16>
    %m = linalg.matmul ins(%h, %h : tensor<2x2xf16>, tensor<2x2xf16>) outs(%e : tensor<2x2xf16>) -> tensor<2x2xf16>
    %f = amp.cast %m : tensor<2x2xf16> to tensor<2x2xf32>
    amp.yield %f : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}
