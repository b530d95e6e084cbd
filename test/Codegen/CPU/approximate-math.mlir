// RUN: amp-opt %s --amp-cpu-approximate-math | FileCheck %s

// erf and tanh on f32 (scalars and vectors) become arith-only polynomials;
// exp and log stay (libm calls later).
// CHECK-LABEL: func @gelu_parts
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK: math.log
func.func @gelu_parts(%x: f32, %v: vector<8xf32>) -> (f32, vector<8xf32>, f32, f32) {
  %e = math.erf %x : f32
  %ev = math.exp %v : vector<8xf32>
  %t = math.tanh %x : f32
  %l = math.log %x : f32
  return %e, %ev, %t, %l : f32, vector<8xf32>, f32, f32
}
