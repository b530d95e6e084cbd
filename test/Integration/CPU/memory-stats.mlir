// amp-runner --amp-memory-stats: the CPU runtime counts the JIT's buffers.
// @twice allocates its 1024x1024 f32 result (4 MiB; malloc's usable size
// is the request rounded up to the page, minus its header) and frees it
// after the print: peak 4 MiB, nothing live at exit.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void --amp-memory-stats 2>&1 | FileCheck %s
// CHECK: 2
// CHECK-NEXT: amp-runner: JIT buffers: peak 41943{{[0-9][0-9]}} bytes, live at exit 0 bytes

func.func @twice(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %y = arith.addf %x, %x : tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}

func.func @main() {
  %x = arith.constant dense<1.0> : tensor<1024x1024xf32>
  %y = call @twice(%x) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c5 = arith.constant 5 : index
  %v = tensor.extract %y[%c5, %c5] : tensor<1024x1024xf32>
  vector.print %v : f32
  return
}
