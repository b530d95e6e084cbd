// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-cpu-select-onednn{cpu-features=avx512bf16}))" 2>/dev/null | FileCheck %s

// The ops of select-onednn.mlir on a CPU with AVX-512 (the remarks are
// checked there, on a generic CPU).

// f32 matmuls of every form go to oneDNN: plain, B transposed (a
// linalg.matmul with indexing maps), batch_matmul.
// CHECK-LABEL: func @f32_forms
// CHECK: linalg.matmul {amp_cpu.onednn}
// CHECK: linalg.matmul indexing_maps = [#{{.*}}] {amp_cpu.onednn}
// CHECK: linalg.batch_matmul {amp_cpu.onednn}
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
// CHECK: linalg.matmul {amp_cpu.onednn}
func.func @bf16(%a: tensor<8x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// f32 NCHW convolutions go to oneDNN; a contraction with two m loops does
// not (a remark says why), nor does an f16 one.
// CHECK-LABEL: func @conv_and_others
// CHECK: linalg.conv_2d_nchw_fchw {amp_cpu.onednn
// CHECK: linalg.generic
// CHECK-NOT: amp_cpu.onednn
func.func @conv_and_others(%i: tensor<1x3x10x10xf32>, %f: tensor<4x3x3x3xf32>, %o: tensor<1x4x8x8xf32>,
                           %a: tensor<4x8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<4x8x32xf32>,
                           %h: tensor<8x16xf16>, %hb: tensor<16x32xf16>, %hc: tensor<8x32xf16>)
    -> (tensor<1x4x8x8xf32>, tensor<4x8x32xf32>, tensor<8x32xf16>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%i, %f : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%o : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
       ins(%a, %b : tensor<4x8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<4x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x32xf32>
  %2 = linalg.matmul ins(%h, %hb : tensor<8x16xf16>, tensor<16x32xf16>) outs(%hc : tensor<8x32xf16>) -> tensor<8x32xf16>
  return %0, %1, %2 : tensor<1x4x8x8xf32>, tensor<4x8x32xf32>, tensor<8x32xf16>
}

// -----

// A bf16 x bf16 -> f32 convolution (autocast's form of a torch-mlir conv:
// fp32 accumulation) goes to oneDNN on a CPU with AVX-512.
// CHECK-LABEL: func @bf16_conv
// CHECK: linalg.conv_2d_nchw_fchw {amp_cpu.onednn
func.func @bf16_conv(%i: tensor<1x3x11x11xbf16>, %f: tensor<5x3x3x3xbf16>, %o: tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%i, %f : tensor<1x3x11x11xbf16>, tensor<5x3x3x3xbf16>) outs(%o : tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32>
  return %0 : tensor<1x5x5x5xf32>
}
