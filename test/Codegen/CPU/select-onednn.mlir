// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-cpu-select-onednn{cpu-features=generic}))" -verify-diagnostics | FileCheck %s

// On a generic CPU (no AVX-512); select-onednn-avx512.mlir has the same ops
// on a CPU with AVX-512.

// f32 matmuls of every form go to oneDNN: plain, B transposed (a
// linalg.matmul with indexing maps), batch_matmul.
// CHECK-LABEL: func @f32_forms
// CHECK-COUNT-3: amp_cpu.onednn
func.func @f32_forms(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %bt: tensor<32x16xf32>,
                     %c: tensor<8x32xf32>, %ba: tensor<2x8x16xf32>, %bb: tensor<2x16x32xf32>,
                     %bc: tensor<2x8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<2x8x32xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %bt : tensor<8x16xf32>, tensor<32x16xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %2 = linalg.batch_matmul ins(%ba, %bb : tensor<2x8x16xf32>, tensor<2x16x32xf32>) outs(%bc : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %0, %1, %2 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<2x8x32xf32>
}

// -----

// bf16 x bf16 -> f32 (fp32 accumulation): oneDNN on a CPU with AVX-512; on
// a generic target it stays on code generation, with a remark.
// CHECK-LABEL: func @bf16
// CHECK-NOT: amp_cpu.onednn
func.func @bf16(%a: tensor<8x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-remark @+1 {{'linalg.matmul' stays on code generation: oneDNN has no bf16 matmul on a CPU without AVX-512 (this target: no AVX-512, no AVX512-BF16, no AMX)}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// f32 NCHW convolutions go to oneDNN; a contraction with two m loops does
// not (a remark says why), nor does an f16 one.
// CHECK-LABEL: func @conv_and_others
// CHECK: linalg.conv_2d_nchw_fchw {amp_cpu.onednn
func.func @conv_and_others(%i: tensor<1x3x10x10xf32>, %f: tensor<4x3x3x3xf32>, %o: tensor<1x4x8x8xf32>,
                           %a: tensor<4x8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<4x8x32xf32>,
                           %h: tensor<8x16xf16>, %hb: tensor<16x32xf16>, %hc: tensor<8x32xf16>)
    -> (tensor<1x4x8x8xf32>, tensor<4x8x32xf32>, tensor<8x32xf16>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%i, %f : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%o : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  // expected-remark @+1 {{stays on code generation: a contraction with more than one batch, m, n or k loop}}
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
       ins(%a, %b : tensor<4x8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<4x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x32xf32>
  // expected-remark @+1 {{stays on code generation: element types f16 x f16 -> f16}}
  %2 = linalg.matmul ins(%h, %hb : tensor<8x16xf16>, tensor<16x32xf16>) outs(%hc : tensor<8x32xf16>) -> tensor<8x32xf16>
  return %0, %1, %2 : tensor<1x4x8x8xf32>, tensor<4x8x32xf32>, tensor<8x32xf16>
}

// -----

// A bf16 convolution stays on code generation without AVX-512, with a
// remark.
// CHECK-LABEL: func @bf16_conv
// CHECK-NOT: amp_cpu.onednn
func.func @bf16_conv(%i: tensor<1x3x11x11xbf16>, %f: tensor<5x3x3x3xbf16>, %o: tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32> {
  // expected-remark @+1 {{'linalg.conv_2d_nchw_fchw' stays on code generation: oneDNN has no bf16 convolution on a CPU without AVX-512 (this target: no AVX-512, no AVX512-BF16, no AMX)}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%i, %f : tensor<1x3x11x11xbf16>, tensor<5x3x3x3xbf16>) outs(%o : tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32>
  return %0 : tensor<1x5x5x5xf32>
}

// -----

// A max pooling whose output starts as -inf goes to oneDNN (f32 on any
// CPU); one that accumulates into another maximum stays, with a remark.
// CHECK-LABEL: func @max_pool
// CHECK: linalg.pooling_nchw_max {amp_cpu.onednn
// CHECK: linalg.pooling_nchw_max {dilations
func.func @max_pool(%x: tensor<1x4x9x9xf32>, %o: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %w = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %c = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%x, %w : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%c : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // expected-remark @+1 {{'linalg.pooling_nchw_max' stays on code generation: a max pooling whose output does not start as -inf}}
  %1 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%x, %w : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}
