// RUN: amp-opt %s -split-input-file --amp-fp32-accumulation | FileCheck %s
// RUN: amp-opt %s --amp-fp32-accumulation -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: 'amp-fp32-accumulation'
// STATS-NEXT: (S) {{ *}}11 contractions
// STATS-NEXT: (S) {{ *}}7 reductions

// Case C01: a 1x4096 by 4096x1 f16 matmul accumulates in f32 (the named op's
// payload extends the f16 inputs) and rounds once.
// CHECK-LABEL: func @c01_matmul_f16
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x4096xf16>, tensor<4096x1xf16>) outs(%[[F]] : tensor<1x1xf32>) -> tensor<1x1xf32>
// CHECK: %[[R:.*]] = amp.cast %[[M]] : tensor<1x1xf32> to tensor<1x1xf16>
// CHECK: return %[[R]]
// The generic form shows the payload: inputs extended, f32 mul-add.
// RUN: amp-opt %s -split-input-file --amp-fp32-accumulation --linalg-generalize-named-ops | FileCheck %s --check-prefix=GEN
// GEN-LABEL: func @c01_matmul_f16
// GEN: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %[[ACC:.*]]: f32):
// GEN: %[[AE:.*]] = arith.extf %[[A]] : f16 to f32
// GEN: %[[BE:.*]] = arith.extf %[[B]] : f16 to f32
// GEN: %[[P:.*]] = arith.mulf %[[AE]], %[[BE]] : f32
// GEN: arith.addf %[[ACC]], %[[P]] : f32
func.func @c01_matmul_f16(%a: tensor<1x4096xf16>, %b: tensor<4096x1xf16>) -> tensor<1x1xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x1xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<1x1xf16>) -> tensor<1x1xf16>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf16>, tensor<4096x1xf16>) outs(%f : tensor<1x1xf16>) -> tensor<1x1xf16>
  return %r : tensor<1x1xf16>
}

// -----

// Case C02: tosa.reduce_sum over bf16 sums f32 values.
// CHECK-LABEL: func @c02_reduce_sum_bf16
// CHECK: %[[W:.*]] = amp.cast %{{.*}} : tensor<1024xbf16> to tensor<1024xf32>
// CHECK: %[[S:.*]] = tosa.reduce_sum %[[W]] {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1xf32>
// CHECK: amp.cast %[[S]] : tensor<1xf32> to tensor<1xbf16>
func.func @c02_reduce_sum_bf16(%x: tensor<1024xbf16>) -> tensor<1xbf16> {
  %0 = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<1024xbf16>) -> tensor<1xbf16>
  return %0 : tensor<1xbf16>
}

// -----

// Case C03 in tosa form: a bf16 -> bf16 tosa.matmul gets an f32 result (upstream
// lowers it to an f32-accumulating batch_matmul) and one rounding.
// CHECK-LABEL: func @c03_tosa_matmul_bf16
// CHECK: %[[M:.*]] = tosa.matmul {{.*}} : (tensor<1x1024x1024xbf16>, tensor<1x1024x1024xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x1024x1024xf32>
// CHECK: amp.cast %[[M]] : tensor<1x1024x1024xf32> to tensor<1x1024x1024xbf16>
func.func @c03_tosa_matmul_bf16(%a: tensor<1x1024x1024xbf16>, %b: tensor<1x1024x1024xbf16>) -> tensor<1x1024x1024xbf16> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x1024x1024xbf16>, tensor<1x1024x1024xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x1024x1024xbf16>
  return %0 : tensor<1x1024x1024xbf16>
}

// -----

// tosa convolutions and average pooling carry their accumulator type.
// CHECK-LABEL: func @tosa_acc_type
// CHECK: tosa.conv2d {{.*}} {acc_type = f32,
// CHECK: tosa.avg_pool2d {{.*}} {acc_type = f32,
func.func @tosa_acc_type(%x: tensor<1x8x8x4xf16>, %w: tensor<2x3x3x4xf16>, %bias: tensor<2xf16>) -> tensor<1x4x4x2xf16> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.conv2d %x, %w, %bias, %z, %z {acc_type = f16, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf16>, tensor<2x3x3x4xf16>, tensor<2xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x6x6x2xf16>
  %1 = tosa.avg_pool2d %0, %z, %z {acc_type = f16, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x2xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x4x2xf16>
  return %1 : tensor<1x4x4x2xf16>
}

// -----

// Sum reductions: linalg.reduce and a sum-shaped generic (its real f16
// accumulator is extended exactly); a max reduction is left alone; softmax
// (its internal sum) computes in f32; sum pooling accumulates in f32.
// CHECK-LABEL: func @reductions
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}} : f32
// CHECK: %[[INIT:.*]] = amp.cast %{{.*}} : tensor<4xf16> to tensor<4xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf16>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.reduce { arith.maximumf } ins(%{{.*}} : tensor<4x8xf16>) outs(%{{.*}} : tensor<4xf16>)
// CHECK: %[[SIN:.*]] = amp.cast %{{.*}} : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: %[[SM:.*]] = linalg.softmax dimension(1) ins(%[[SIN]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: amp.cast %[[SM]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: linalg.pooling_nhwc_sum {{.*}} ins(%{{.*}} : tensor<1x4x4x2xf16>, tensor<2x2xf16>) outs(%{{.*}} : tensor<1x2x2x2xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @reductions(%x: tensor<4x8xf16>, %init: tensor<4xf16>, %img: tensor<1x4x4x2xf16>)
    -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4x8xf16>, tensor<1x2x2x2xf16>) {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<4xf16>) -> tensor<4xf16>
  %s = linalg.reduce { arith.addf } ins(%x : tensor<4x8xf16>) outs(%f : tensor<4xf16>) dimensions = [1]
  %g = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf16>) outs(%init : tensor<4xf16>) {
  ^bb0(%a: f16, %acc: f16):
    %y = arith.addf %acc, %a : f16
    linalg.yield %y : f16
  } -> tensor<4xf16>
  %m = linalg.reduce { arith.maximumf } ins(%x : tensor<4x8xf16>) outs(%f : tensor<4xf16>) dimensions = [1]
  %e2 = tensor.empty() : tensor<4x8xf16>
  %sm = linalg.softmax dimension(1) ins(%x : tensor<4x8xf16>) outs(%e2 : tensor<4x8xf16>) -> tensor<4x8xf16>
  %w = tensor.empty() : tensor<2x2xf16>
  %pe = tensor.empty() : tensor<1x2x2x2xf16>
  %pf = linalg.fill ins(%z : f16) outs(%pe : tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xf16>
  %p = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%img, %w : tensor<1x4x4x2xf16>, tensor<2x2xf16>) outs(%pf : tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xf16>
  return %s, %g, %m, %sm, %p : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4x8xf16>, tensor<1x2x2x2xf16>
}

// -----

// f32 contractions are not touched.
// CHECK-LABEL: func @f32_untouched
// CHECK-NEXT: tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: linalg.matmul ins(%{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK-NOT: amp.cast
func.func @f32_untouched(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// The rest of the contraction family, f16 and bf16: tosa convolutions get
// acc_type = f32; linalg contractions (named, linalg.contract, a
// contraction-shaped generic) get an f32 init and a cast of the result;
// tosa.reduce_product multiplies f32 values.
// CHECK-LABEL: func @contraction_family
// CHECK: tosa.depthwise_conv2d {{.*}}{acc_type = f32,{{.*}} -> tensor<1x8x8x4xf16>
// CHECK: tosa.transpose_conv2d {{.*}}{acc_type = f32,{{.*}} -> tensor<1x10x10x4xf16>
// CHECK: tosa.conv3d {{.*}}{acc_type = f32,{{.*}} -> tensor<1x2x6x6x4xf16>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK:   arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:   arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: amp.cast %[[G]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[BM:.*]] = linalg.batch_matmul ins({{.*}} : tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) outs(%{{.*}} : tensor<2x4x4xf32>)
// CHECK: amp.cast %[[BM]] : tensor<2x4x4xf32> to tensor<2x4x4xbf16>
// CHECK: %[[PW:.*]] = amp.cast %{{.*}} : tensor<2x8xbf16> to tensor<2x8xf32>
// CHECK: %[[P:.*]] = tosa.reduce_product %[[PW]] {axis = 1 : i32} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK: amp.cast %[[P]] : tensor<2x1xf32> to tensor<2x1xbf16>
// CHECK: %[[CV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins({{.*}} : tensor<1x4x6x6xf16>, tensor<4x4x3x3xf16>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK: amp.cast %[[CV]] : tensor<1x4x4x4xf32> to tensor<1x4x4x4xf16>
// CHECK: %[[CT:.*]] = linalg.contract {{.*}} ins({{.*}} : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK: amp.cast %[[CT]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[D:.*]] = linalg.dot ins({{.*}} : tensor<4xf16>, tensor<4xf16>) outs(%{{.*}} : tensor<f32>)
// CHECK: amp.cast %[[D]] : tensor<f32> to tensor<f16>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @contraction_family(%x: tensor<1x8x8x4xf16>, %w: tensor<3x3x4x1xf16>, %bias: tensor<4xf16>,
    %k: tensor<4x3x3x4xf16>, %vol: tensor<1x4x8x8x4xf16>, %k3: tensor<4x3x3x3x4xf16>,
    %b3: tensor<4xf16>, %a: tensor<4x4xf16>, %bb: tensor<2x4x4xbf16>, %p: tensor<2x8xbf16>,
    %img: tensor<1x4x6x6xf16>, %fk: tensor<4x4x3x3xf16>, %v: tensor<4xf16>)
    -> (tensor<1x8x8x4xf16>, tensor<1x10x10x4xf16>, tensor<1x2x6x6x4xf16>, tensor<4x4xf16>,
        tensor<2x4x4xbf16>, tensor<2x1xbf16>, tensor<1x4x4x4xf16>, tensor<4x4xf16>, tensor<f16>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %d = tosa.depthwise_conv2d %x, %w, %bias, %z, %z {acc_type = f16, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf16>, tensor<3x3x4x1xf16>, tensor<4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x8x4xf16>
  %t = tosa.transpose_conv2d %x, %k, %bias, %z, %z {acc_type = f16, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf16>, tensor<4x3x3x4xf16>, tensor<4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x10x10x4xf16>
  %c3 = tosa.conv3d %vol, %k3, %b3, %z, %z {acc_type = f16, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x4x8x8x4xf16>, tensor<4x3x3x3x4xf16>, tensor<4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x6x6x4xf16>
  %e = tensor.empty() : tensor<4x4xf16>
  %g = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %a : tensor<4x4xf16>, tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
    ^bb0(%i: f16, %j: f16, %acc: f16):
      %m = arith.mulf %i, %j : f16
      %s = arith.addf %acc, %m : f16
      linalg.yield %s : f16
  } -> tensor<4x4xf16>
  %e3 = tensor.empty() : tensor<2x4x4xbf16>
  %bm = linalg.batch_matmul ins(%bb, %bb : tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) outs(%e3 : tensor<2x4x4xbf16>) -> tensor<2x4x4xbf16>
  %rp = tosa.reduce_product %p {axis = 1 : i32} : (tensor<2x8xbf16>) -> tensor<2x1xbf16>
  %e4 = tensor.empty() : tensor<1x4x4x4xf16>
  %cv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%img, %fk : tensor<1x4x6x6xf16>, tensor<4x4x3x3xf16>) outs(%e4 : tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  %con = linalg.contract indexing_maps = [#mk, #kn, #mn] ins(%a, %a : tensor<4x4xf16>, tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) -> tensor<4x4xf16>
  %ed = tensor.empty() : tensor<f16>
  %dot = linalg.dot ins(%v, %v : tensor<4xf16>, tensor<4xf16>) outs(%ed : tensor<f16>) -> tensor<f16>
  return %d, %t, %c3, %g, %bm, %rp, %cv, %con, %dot : tensor<1x8x8x4xf16>, tensor<1x10x10x4xf16>, tensor<1x2x6x6x4xf16>, tensor<4x4xf16>, tensor<2x4x4xbf16>, tensor<2x1xbf16>, tensor<1x4x4x4xf16>, tensor<4x4xf16>, tensor<f16>
}
