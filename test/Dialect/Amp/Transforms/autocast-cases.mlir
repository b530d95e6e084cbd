// The failure cases of ../shared/cases/CASES.md at the IR level, through
// amp-autocast and amp-fp32-accumulation, in both modes (the checks hold in
// both). C05, C09 and C13 are in autocast-constants.mlir,
// autocast-modes.mlir and autocast-regions.mlir; C06 and C07 (rounding) in
// Dialect/Amp/canonicalize.mlir.
// RUN: amp-opt %s -split-input-file --amp-autocast=annotate --amp-fp32-accumulation | FileCheck %s
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate mode=eager" --amp-fp32-accumulation | FileCheck %s

// C01: dot product of 4096 ones in a cuda/f16 region: f16 inputs, f32
// accumulator, one rounding.
// CHECK-LABEL: func @c01
// CHECK: linalg.matmul {{.*}}ins(%{{.*}}, %{{.*}} : tensor<1x4096xf16>, tensor<4096x1xf16>) outs(%{{.*}} : tensor<1x1xf32>)
func.func @c01(%a: tensor<1x4096xf32>, %b: tensor<4096x1xf32>) -> tensor<1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<1x1xf32> {
    %e = tensor.empty() : tensor<1x1xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4096xf32>, tensor<4096x1xf32>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
    amp.yield %m : tensor<1x1xf32>
  }
  return %r : tensor<1x1xf32>
}

// -----

// C02: tosa.reduce_sum of bf16 values in a cpu/bf16 region sums in f32.
// CHECK-LABEL: func @c02
// CHECK: %[[W:.*]] = amp.cast %{{.*}} : tensor<1024xbf16> to tensor<1024xf32>
// CHECK: tosa.reduce_sum %[[W]] {amp.compute_type = f32, axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1xf32>
func.func @c02(%x: tensor<1024xbf16>) -> tensor<1xf32> {
  %r = amp.autocast device_type(cpu) -> tensor<1xf32> {
    %s = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<1024xbf16>) -> tensor<1xbf16>
    %f = tosa.cast %s : (tensor<1xbf16>) -> tensor<1xf32>
    amp.yield %f : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}

// -----

// C03: a 1024x1024 matmul in a cpu/bf16 region: bf16 inputs, f32 accumulator.
// CHECK-LABEL: func @c03
// CHECK: linalg.matmul {{.*}}ins(%{{.*}}, %{{.*}} : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) outs(%{{.*}} : tensor<1024x1024xf32>)
func.func @c03(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cpu) -> tensor<1024x1024xf32> {
    %e = tensor.empty() : tensor<1024x1024xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    amp.yield %m : tensor<1024x1024xf32>
  }
  return %r : tensor<1024x1024xf32>
}

// -----

// C04: concat of an f16 lower-op result with an f32 [70000] is f32 (promote
// never narrows): 70000 is not turned into inf.
// CHECK-LABEL: func @c04
// CHECK: %[[M:.*]] = amp.cast %{{.*}} : tensor<1x2xf16> to tensor<1x2xf32>
// CHECK: %[[C:.*]] = arith.constant dense<7.000000e+04> : tensor<1x1xf32>
// CHECK: tensor.concat dim(1) %[[M]], %[[C]] {amp.compute_type = f32} : (tensor<1x2xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
func.func @c04(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>) -> tensor<1x3xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<1x3xf32> {
    %e = tensor.empty() : tensor<1x2xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4xf32>, tensor<4x2xf32>) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %c = arith.constant dense<70000.0> : tensor<1x1xf32>
    %cat = tensor.concat dim(1) %m, %c : (tensor<1x2xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
    amp.yield %cat : tensor<1x3xf32>
  }
  return %r : tensor<1x3xf32>
}

// -----

// C08: layer normalisation of a bf16 matmul's output: the reductions, the
// variance and rsqrt run in f32.
// CHECK-LABEL: func @c08
// CHECK: tosa.matmul {{.*}} -> tensor<1x1x4xf32>
// CHECK: tosa.reduce_sum {{.*}} {amp.compute_type = f32
// CHECK: tosa.mul {{.*}} {amp.compute_type = f32}
// CHECK: tosa.sub {{.*}} {amp.compute_type = f32}
// CHECK: tosa.mul {{.*}} {amp.compute_type = f32}
// CHECK: tosa.reduce_sum {{.*}} {amp.compute_type = f32
// CHECK: tosa.mul {{.*}} {amp.compute_type = f32}
// CHECK: tosa.add {{.*}} {amp.compute_type = f32}
// CHECK: tosa.rsqrt {{.*}} {amp.compute_type = f32}
// CHECK: tosa.mul {{.*}} {amp.compute_type = f32}
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

// -----

// C12: the backward matmul of a cpu/bf16 step (dW = x^T dy with x = 300 and
// dy = 256) runs in bf16, whose range holds 76800; f16 would overflow.
// CHECK-LABEL: func @c12
// CHECK-DAG: arith.constant dense<3.000000e+02> : tensor<1x1xbf16>
// CHECK-DAG: arith.constant dense<2.560000e+02> : tensor<1x1xbf16>
// CHECK: linalg.matmul {{.*}}ins(%{{.*}}, %{{.*}} : tensor<1x1xbf16>, tensor<1x1xbf16>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK-NOT: xf16>
func.func @c12() -> tensor<1x1xf32> {
  %xt = arith.constant dense<300.0> : tensor<1x1xf32>
  %dy = arith.constant dense<256.0> : tensor<1x1xf32>
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cpu) -> tensor<1x1xf32> {
    %e = tensor.empty() : tensor<1x1xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
    %dw = linalg.matmul ins(%xt, %dy : tensor<1x1xf32>, tensor<1x1xf32>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
    amp.yield %dw : tensor<1x1xf32>
  }
  return %r : tensor<1x1xf32>
}
