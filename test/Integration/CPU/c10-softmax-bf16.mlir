// C10: softmax over 1024 bf16 zeros in a cpu/bf16 region: every element is
// 2^-10 = 0.0009765625 exactly (a bf16 sum of the exponentials stops at
// 256 and gives 2^-8). Prints the first and last element and the sum.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 0.000976562
// CHECK-NEXT: 0.000976562
// CHECK-NEXT: 1{{$}}

func.func @c10(%x: tensor<1x1024xbf16>) -> tensor<1x1024xbf16> {
  %r = amp.autocast device_type(cpu) -> tensor<1x1024xbf16> {
    %e = tensor.empty() : tensor<1x1024xbf16>
    %p = linalg.softmax dimension(1) ins(%x : tensor<1x1024xbf16>) outs(%e : tensor<1x1024xbf16>) -> tensor<1x1024xbf16>
    amp.yield %p : tensor<1x1024xbf16>
  }
  return %r : tensor<1x1024xbf16>
}

func.func @main() {
  %x = arith.constant dense<0.0> : tensor<1x1024xbf16>
  %r = call @c10(%x) : (tensor<1x1024xbf16>) -> tensor<1x1024xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1023 = arith.constant 1023 : index
  %c1024 = arith.constant 1024 : index
  %a = tensor.extract %r[%c0, %c0] : tensor<1x1024xbf16>
  %b = tensor.extract %r[%c0, %c1023] : tensor<1x1024xbf16>
  %a32 = arith.extf %a : bf16 to f32
  %b32 = arith.extf %b : bf16 to f32
  vector.print %a32 : f32
  vector.print %b32 : f32
  %z = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c1024 step %c1 iter_args(%acc = %z) -> (f32) {
    %v = tensor.extract %r[%c0, %i] : tensor<1x1024xbf16>
    %v32 = arith.extf %v : bf16 to f32
    %n = arith.addf %acc, %v32 : f32
    scf.yield %n : f32
  }
  vector.print %s : f32
  return
}
