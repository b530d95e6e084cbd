// RUN: amp-opt %s --split-input-file --amp-cpu-approximate-math | FileCheck %s

// erf, tanh and exp on f32 (scalars and vectors) become arith-only
// polynomials (exp: a Cody-Waite reduction, the Cephes polynomial and
// 2^n built from the exponent bits); log stays (a libm call later).
// CHECK-LABEL: func @gelu_parts
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK: arith.fptosi %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.shli %{{.*}} : vector<8xi32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK: math.log
func.func @gelu_parts(%x: f32, %v: vector<8xf32>) -> (f32, vector<8xf32>, f32, f32) {
  %e = math.erf %x : f32
  %ev = math.exp %v : vector<8xf32>
  %t = math.tanh %x : f32
  %l = math.log %x : f32
  return %e, %ev, %t, %l : f32, vector<8xf32>, f32, f32
}

// -----

// exp on f16 stays: amp-cpu-pipeline extends narrow math to f32 only after
// this pass, so f16/bf16 math keeps libm's results.
// CHECK-LABEL: func @narrow_exp
// CHECK: math.exp %{{.*}} : f16
func.func @narrow_exp(%x: f16) -> f16 {
  %e = math.exp %x : f16
  return %e : f16
}
