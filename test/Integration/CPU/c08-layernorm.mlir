// C08: layer normalisation (eps 1e-5) of [1, 2, 3, 4] produced by a bf16
// matmul in a cpu/bf16 region; the mean, variance and rsqrt run in f32.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( -1.3416{{[0-9]*}}, -0.4472{{[0-9]*}}, 0.4472{{[0-9]*}}, 1.3416{{[0-9]*}} )

func.func @c08(%x: tensor<1x1x4xf32>, %w: tensor<1x4x4xf32>) -> tensor<1x1x4xf32> {
  %r = amp.autocast device_type(cpu) -> tensor<1x1x4xf32> {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %inv_n = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
    %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
    %h = tosa.matmul %x, %w, %z, %z : (tensor<1x1x4xf32>, tensor<1x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4xf32>
    %sum = tosa.reduce_sum %h {axis = 2 : i32} : (tensor<1x1x4xf32>) -> tensor<1x1x1xf32>
    %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
    %d = tosa.sub %h, %mean : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    %d2 = tosa.mul %d, %d, %shift : (tensor<1x1x4xf32>, tensor<1x1x4xf32>, tensor<1xi8>) -> tensor<1x1x4xf32>
    %vs = tosa.reduce_sum %d2 {axis = 2 : i32} : (tensor<1x1x4xf32>) -> tensor<1x1x1xf32>
    %var = tosa.mul %vs, %inv_n, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
    %ve = tosa.add %var, %eps : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %rstd = tosa.rsqrt %ve : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %y = tosa.mul %d, %rstd, %shift : (tensor<1x1x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x4xf32>
    amp.yield %y : tensor<1x1x4xf32>
  }
  return %r : tensor<1x1x4xf32>
}

func.func @main() {
  %x = arith.constant dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %w = arith.constant dense<[[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]]> : tensor<1x4x4xf32>
  %r = call @c08(%x, %w) : (tensor<1x1x4xf32>, tensor<1x4x4xf32>) -> tensor<1x1x4xf32>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %r[%c0, %c0, %c0], %p : tensor<1x1x4xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  return
}
