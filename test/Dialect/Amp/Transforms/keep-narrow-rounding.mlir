// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-keep-narrow-rounding))" | FileCheck %s
// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-keep-narrow-rounding,canonicalize))" | FileCheck %s --check-prefix=FOLD

// What math-extend-to-supported-types makes of sin(sin(x)) on bf16: the
// contract flag goes from the truncations to bf16 and the extensions from
// it (other flags stay), so canonicalization keeps the rounding between the
// two sins. Without the pass, canonicalize folds extf(truncf(%s1)) to %s1.
// CHECK-LABEL: func @chain
// CHECK: arith.extf %arg0 : bf16 to f32
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} fastmath<nnan> : f32 to bf16
// CHECK: arith.extf %[[T]] : bf16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// FOLD-LABEL: func @chain
// FOLD: %[[S1:.*]] = math.sin
// FOLD: %[[T:.*]] = arith.truncf %[[S1]]
// FOLD: %[[E:.*]] = arith.extf %[[T]]
// FOLD: math.sin %[[E]]
func.func @chain(%x: bf16) -> bf16 {
  %e0 = arith.extf %x fastmath<contract> : bf16 to f32
  %s0 = math.sin %e0 : f32
  %t0 = arith.truncf %s0 fastmath<contract,nnan> : f32 to bf16
  %e1 = arith.extf %t0 fastmath<contract> : bf16 to f32
  %s1 = math.sin %e1 : f32
  %t1 = arith.truncf %s1 fastmath<contract> : f32 to bf16
  return %t1 : bf16
}

// -----

// f16 vectors too; conversions between f32 and f64 keep their flags.
// CHECK-LABEL: func @others
// CHECK: arith.truncf %arg0 : vector<4xf32> to vector<4xf16>
// CHECK: arith.extf %{{.*}} : vector<4xf16> to vector<4xf32>
// CHECK: arith.extf %arg1 fastmath<contract> : f32 to f64
func.func @others(%v: vector<4xf32>, %s: f32) -> (vector<4xf32>, f64) {
  %t = arith.truncf %v fastmath<contract> : vector<4xf32> to vector<4xf16>
  %e = arith.extf %t fastmath<contract> : vector<4xf16> to vector<4xf32>
  %d = arith.extf %s fastmath<contract> : f32 to f64
  return %e, %d : vector<4xf32>, f64
}
