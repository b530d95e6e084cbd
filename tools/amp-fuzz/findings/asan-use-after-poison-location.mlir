
// CHECK-LABEL: func @underflow
// CHECK: tosa.matmul {{.*}} {amp.compute_type = f32}
// CHECK: tosa.matmul {{.*}} {amp.compute_type = clear = [c.func @underflow(%x: tensor<1x2x2xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %tiny = "tosa.const"() <{values = dense<1.0e-10> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %a = amp.autocast device_type(cuda) -> tensor<1x2x2xf32> {
    // expected-remark @+1 {{stays f32: constant dense<1.000000e-10> : tensor<1x2x2xf32> does not fit in 'f16'}}
    %m = tosa.matmul %x, %tiny, %z, %z : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    amp.yield %m : tensor<1x2x2xf32>
  }
  %b = amp.autocast device_type(cpu) -> tensor<1x2x2xf32> {
    %m = tosa.matmul %x, %tiny, %z, %z : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    amp.yield %m : tensor<1x2x2xf32>
  }
  return %a, %b : tensor<1x2x2xf32>, tensor<1x2x2xf32>
}
