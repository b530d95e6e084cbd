// C09: a sum-of-squares loss, pred * pred summed, where pred = 300 comes from
// an f16 matmul in a cuda/f16 region. Graph mode runs the mul in f32 (it
// sits between a lower op and an fp32 op): 90000. Eager mode squares in f16
// as PyTorch eager does on the same ops (docs/Autocast.md): 90000 > 65504,
// so inf.
// RUN: amp-opt %s --amp-cpu-pipeline=mode=graph | amp-runner -e main --entry-point-result=void | FileCheck %s --check-prefix=GRAPH
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s --check-prefix=EAGER
// GRAPH: 90000
// EAGER: inf

func.func @c09(%a: tensor<1x1x1xf32>, %b: tensor<1x1x1xf32>) -> tensor<1x1x1xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<1x1x1xf32> {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %pred = tosa.matmul %a, %b, %z, %z : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1xf32>
    %sq = tosa.mul %pred, %pred, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
    %s = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    amp.yield %s : tensor<1x1x1xf32>
  }
  return %r : tensor<1x1x1xf32>
}

func.func @main() {
  %a = arith.constant dense<300.0> : tensor<1x1x1xf32>
  %b = arith.constant dense<1.0> : tensor<1x1x1xf32>
  %r = call @c09(%a, %b) : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %r[%c0, %c0, %c0] : tensor<1x1x1xf32>
  vector.print %v : f32
  return
}
