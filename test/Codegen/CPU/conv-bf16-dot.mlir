// RUN: amp-opt %s -split-input-file --amp-cpu-conv-bf16-dot=cpu-features=avx512bf16 | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-cpu-conv-bf16-dot=cpu-features=avx512bf16 --amp-cpu-tile-and-vectorize=cpu-features=avx512bf16 | FileCheck %s --check-prefix=TILE
// RUN: amp-opt %s -split-input-file --amp-cpu-conv-bf16-dot=cpu-features=generic | FileCheck %s --check-prefix=GENERIC

// The digits CNN's second convolution under autocast (64 x 16 x 6 x 6
// padded input, 32 x 16 x 3 x 3 filter): K = 144, P = 16 output positions,
// one 16-wide panel. The gather writes [N, P/16, K/2, 16, 2] (its loops
// (b, pb, k2, t, pr)), the filter is a reshape to [F, K/2, 2], the
// accumulator a reshape to [N, F, 1, 16]; the contraction's loops are
// (b, pb, f, pr, k2, t), marked for the dot tiles.
// CHECK-LABEL: func @conv_bf16
// CHECK: %[[COL:.*]] = linalg.generic {indexing_maps = [#[[$COLMAP:.*]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<64x1x72x16x2xbf16>)
// CHECK: tensor.extract %{{.*}} : tensor<64x16x6x6xbf16>
// CHECK: %[[W:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [32, 72, 2] : tensor<32x144xbf16> into tensor<32x72x2xbf16>
// CHECK: %[[ACC:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [64, 32, 1, 16] : tensor<64x32x16xf32> into tensor<64x32x1x16xf32>
// CHECK: linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[W]], %[[COL]] : tensor<32x72x2xbf16>, tensor<64x1x72x16x2xbf16>) outs(%[[ACC]] : tensor<64x32x1x16xf32>) attrs =  {__amp_bf16_dot__}
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// TILE-LABEL: func @conv_bf16
// TILE: x86vector.avx512.dot {{.*}} : vector<32xbf16> -> vector<16xf32>
// TILE-NOT: vector.contract
// GENERIC-LABEL: func @conv_bf16
// GENERIC: linalg.conv_2d_nchw_fchw
// GENERIC-NOT: __amp_bf16_dot__
func.func @conv_bf16(%x: tensor<64x16x6x6xbf16>, %w: tensor<32x16x3x3xbf16>, %b: tensor<64x32x4x4xf32>) -> tensor<64x32x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<64x16x6x6xbf16>, tensor<32x16x3x3xbf16>) outs(%b : tensor<64x32x4x4xf32>) -> tensor<64x32x4x4xf32>
  return %r : tensor<64x32x4x4xf32>
}

// -----

// A weight gradient (9 output positions, K = 1024) and an odd K (3 x 3 on
// one channel): P padded to one 16-wide panel (the padding sliced off the
// result), K to an even number (the filter padded with a zero column).
// CHECK-LABEL: func @conv_bf16_padded
// CHECK: outs(%{{.*}} : tensor<2x1x5x16x2xbf16>)
// CHECK: arith.cmpi ult
// CHECK: arith.select
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 1]
// CHECK: tensor<8x10xbf16>
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 7]
// CHECK: tensor<2x8x16xf32>
// CHECK: attrs =  {__amp_bf16_dot__}
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [2, 8, 9] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x8x9xf32>
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 8, 3, 3] : tensor<2x8x9xf32> into tensor<2x8x3x3xf32>
// TILE-LABEL: func @conv_bf16_padded
// TILE: x86vector.avx512.dot
func.func @conv_bf16_padded(%x: tensor<2x1x5x5xbf16>, %w: tensor<8x1x3x3xbf16>, %b: tensor<2x8x3x3xf32>) -> tensor<2x8x3x3xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x1x5x5xbf16>, tensor<8x1x3x3xbf16>) outs(%b : tensor<2x8x3x3xf32>) -> tensor<2x8x3x3xf32>
  return %r : tensor<2x8x3x3xf32>
}

// -----

// f32 convolutions and those oneDNN computes are left alone.
// CHECK-LABEL: func @conv_f32
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_nchw_fchw {amp_cpu.onednn
// CHECK-NOT: __amp_bf16_dot__
func.func @conv_f32(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<1x4x4x4xf32>,
                    %xb: tensor<1x2x6x6xbf16>, %wb: tensor<4x2x3x3xbf16>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) outs(%b : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s = linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%xb, %wb : tensor<1x2x6x6xbf16>, tensor<4x2x3x3xbf16>) outs(%b : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r, %s : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}
