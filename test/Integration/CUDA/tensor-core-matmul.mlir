// A 64x32x128 f16 autocast matmul on tensor cores (mma.sync), JIT-run on
// the GPU: inputs 0.5 and 0.25 give 128 * 0.125 = 16 in every element, and
// a row of 1/3s (not exact in f16) gives 128 * f16(1/3) = 42.65625.
//
// Then non-uniform f16 and bf16 matmuls on tensor cores against the f32
// matmul (SIMT kernels): test/Integration/CPU/matmul-fragment-layout.mlir, element by
// element, which catches a fragment element loaded from a wrong position.
//
// REQUIRES: cuda-device
// RUN: amp-opt %s --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %S/../CPU/matmul-fragment-layout.mlir --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %S/../CPU/matmul-fragment-layout.mlir
// CHECK: 16
// CHECK-NEXT: 42.6562

func.func private @printF32(f32)
func.func private @printNewline()

func.func @mm(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<64x32xf32> {
    %z = tensor.empty() : tensor<64x32xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
    %y = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x32xf32>) outs(%zf : tensor<64x32xf32>) -> tensor<64x32xf32>
    amp.yield %y : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

func.func @main() {
  %a = arith.constant dense<0.5> : tensor<64x128xf32>
  %b = arith.constant dense<0.25> : tensor<128x32xf32>
  %y = call @mm(%a, %b) : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %y[%c0, %c0] : tensor<64x32xf32>
  call @printF32(%v) : (f32) -> ()
  call @printNewline() : () -> ()
  %third = arith.constant dense<0.333333343> : tensor<64x128xf32>
  %one = arith.constant dense<1.0> : tensor<128x32xf32>
  %t = call @mm(%third, %one) : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %c63 = arith.constant 63 : index
  %c31 = arith.constant 31 : index
  %u = tensor.extract %t[%c63, %c31] : tensor<64x32xf32>
  call @printF32(%u) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}
