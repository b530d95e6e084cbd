// C11: in a cuda/f16 region, on f16 values from a matmul:
// - log-sum-exp of 70000 zeros: exp, the sum and log run in f32, so
//   log(70000) = 11.1563 (11.15625 at f32 print precision), not inf (an f16
//   sum overflows at 65504);
// - log_softmax of [0, -20] written as x - max - log(sum(exp(x - max))):
//   [-2.06e-9, -20] exactly; f32 rounds 1 + 2.06e-9 to 1, so the first entry
//   prints as 0 (within 2.1e-9), and the second is -20, not -inf (an f16
//   softmax underflows exp(-20) to 0 before the log).
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 11.156{{[0-9]*}}
// CHECK-NEXT: ( {{-?0|-2.06[0-9]*e-09}}, -20 )

func.func @lse(%a: tensor<1x70000x1xf32>, %b: tensor<1x1x1xf32>) -> tensor<1x1x1xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<1x1x1xf32> {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %x = tosa.matmul %a, %b, %z, %z : (tensor<1x70000x1xf32>, tensor<1x1x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x70000x1xf32>
    %e = tosa.exp %x : (tensor<1x70000x1xf32>) -> tensor<1x70000x1xf32>
    %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<1x70000x1xf32>) -> tensor<1x1x1xf32>
    %l = tosa.log %s : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    amp.yield %l : tensor<1x1x1xf32>
  }
  return %r : tensor<1x1x1xf32>
}

func.func @log_softmax(%a: tensor<1x1x1xf32>, %b: tensor<1x1x2xf32>) -> tensor<1x1x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<1x1x2xf32> {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %x = tosa.matmul %a, %b, %z, %z : (tensor<1x1x1xf32>, tensor<1x1x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2xf32>
    %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<1x1x2xf32>) -> tensor<1x1x1xf32>
    %d = tosa.sub %x, %m : (tensor<1x1x2xf32>, tensor<1x1x1xf32>) -> tensor<1x1x2xf32>
    %e = tosa.exp %d : (tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
    %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x1x2xf32>) -> tensor<1x1x1xf32>
    %l = tosa.log %s : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %y = tosa.sub %d, %l : (tensor<1x1x2xf32>, tensor<1x1x1xf32>) -> tensor<1x1x2xf32>
    amp.yield %y : tensor<1x1x2xf32>
  }
  return %r : tensor<1x1x2xf32>
}

func.func @main() {
  %a = arith.constant dense<0.0> : tensor<1x70000x1xf32>
  %one = arith.constant dense<1.0> : tensor<1x1x1xf32>
  %r = call @lse(%a, %one) : (tensor<1x70000x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %r[%c0, %c0, %c0] : tensor<1x1x1xf32>
  vector.print %v : f32
  %b = arith.constant dense<[[[0.0, -20.0]]]> : tensor<1x1x2xf32>
  %ls = call @log_softmax(%one, %b) : (tensor<1x1x1xf32>, tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %p = arith.constant 0.0 : f32
  %w = vector.transfer_read %ls[%c0, %c0, %c0], %p : tensor<1x1x2xf32>, vector<2xf32>
  vector.print %w : vector<2xf32>
  return
}
