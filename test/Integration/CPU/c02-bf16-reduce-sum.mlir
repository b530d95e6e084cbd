// C02: tosa.reduce_sum over 1024 bf16 ones in a cpu/bf16 region sums in f32:
// 1024 (a bf16 accumulator stops at 256).
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 1024

func.func @c02(%x: tensor<1024xbf16>) -> tensor<1xf32> {
  %r = amp.autocast device_type(cpu) -> tensor<1xf32> {
    %s = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<1024xbf16>) -> tensor<1xbf16>
    %f = tosa.cast %s : (tensor<1xbf16>) -> tensor<1xf32>
    amp.yield %f : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}

func.func @main() {
  %x = arith.constant dense<1.0> : tensor<1024xbf16>
  %r = call @c02(%x) : (tensor<1024xbf16>) -> tensor<1xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %r[%c0] : tensor<1xf32>
  vector.print %v : f32
  return
}
