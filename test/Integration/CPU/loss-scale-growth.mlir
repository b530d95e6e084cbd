// amp.update_scale on finite steps: the tracker counts to growth_interval,
// then the scale grows and the count restarts; a scale whose growth would
// overflow f32 stays as it is (GradScaler never grows the scale to inf).
//
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s

func.func private @printF32(f32)
func.func private @printI64(i64)
func.func private @printNewline()

func.func @update(%s: tensor<f32>, %t: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %false = arith.constant false
  %ns, %nt = amp.update_scale %s, %t, %false {growth_interval = 2 : i32, growth_factor = 4.0}
  %x = tensor.extract %ns[] : tensor<f32>
  %y = tensor.extract %nt[] : tensor<i32>
  call @printF32(%x) : (f32) -> ()
  call @printNewline() : () -> ()
  %y64 = arith.extsi %y : i32 to i64
  call @printI64(%y64) : (i64) -> ()
  call @printNewline() : () -> ()
  return %ns, %nt : tensor<f32>, tensor<i32>
}

func.func @main() {
  %s0, %t0 = amp.init_loss_scale {init_scale = 1024.0 : f32}
  %s1, %t1 = call @update(%s0, %t0) : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  // CHECK: 1024
  // CHECK-NEXT: 1
  %s2, %t2 = call @update(%s1, %t1) : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  // CHECK-NEXT: 4096
  // CHECK-NEXT: 0
  // 2^126 * 4 = 2^128 overflows f32: the scale stays 2^126, the count restarts.
  %big, %zero = amp.init_loss_scale {init_scale = 8.50705917e+37 : f32}
  %b1, %u1 = call @update(%big, %zero) : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  // CHECK-NEXT: 8.50706e+37
  // CHECK-NEXT: 1
  %b2, %u2 = call @update(%b1, %u1) : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  // CHECK-NEXT: 8.50706e+37
  // CHECK-NEXT: 0
  return
}
