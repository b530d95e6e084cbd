// tosa.cond_if (TOSA's controlflow extension) compiles and runs: the front
// end lowers it with upstream's tosa-to-scf before tosa-to-linalg (before,
// the pipeline stopped at "failed to legalize operation 'tosa.yield'").
// select(c, x * x, x + x) with x = [1.5, -3]: c true: [2.25, 9];
// c false: [3, -6] (exact in f16), in f32 and in a cuda/f16 region.
// RUN: amp-opt %s --amp-cpu-pipeline=autocast=false | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( 2.25, 9 )
// CHECK-NEXT: ( 3, -6 )

func.func @branch(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<2xf32> {
    %y = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<2xf32>) -> tensor<2xf32> {
    ^bb0(%t: tensor<2xf32>):
      %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
      %m = tosa.mul %t, %t, %s : (tensor<2xf32>, tensor<2xf32>, tensor<1xi8>) -> tensor<2xf32>
      tosa.yield %m : tensor<2xf32>
    } else {
    ^bb0(%e: tensor<2xf32>):
      %d = tosa.add %e, %e : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      tosa.yield %d : tensor<2xf32>
    }
    amp.yield %y : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

func.func @main() {
  %x = arith.constant dense<[1.5, -3.0]> : tensor<2xf32>
  %t = arith.constant dense<true> : tensor<i1>
  %f = arith.constant dense<false> : tensor<i1>
  %rt = call @branch(%t, %x) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  %rf = call @branch(%f, %x) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %vt = vector.transfer_read %rt[%c0], %p : tensor<2xf32>, vector<2xf32>
  vector.print %vt : vector<2xf32>
  %vf = vector.transfer_read %rf[%c0], %p : tensor<2xf32>, vector<2xf32>
  vector.print %vf : vector<2xf32>
  return
}
