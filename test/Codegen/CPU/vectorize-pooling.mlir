// RUN: amp-opt %s --split-input-file --amp-cpu-vectorize-pooling --canonicalize | FileCheck %s

// torch's max_pool2d(2) on bf16 (the digits CNN's first pooling): the input
// read as [N, C, OH, KH, OW, KW], one (n, c) plane per step, one transfer
// read of the plane and a multi_reduction over the window dimensions.
// CHECK-LABEL: func @pool_bf16
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [64, 16, 4, 2, 4, 2]
// CHECK-COUNT-2: scf.for
// CHECK: %[[R:.*]] = vector.transfer_read {{.*}} : tensor<4x2x4x2xbf16>, vector<4x2x4x2xbf16>
// CHECK: %[[A:.*]] = vector.transfer_read {{.*}} : tensor<4x4xbf16>, vector<4x4xbf16>
// CHECK: vector.multi_reduction <maximumf>, %[[R]], %[[A]] [1, 3] : vector<4x2x4x2xbf16> to vector<4x4xbf16>
// CHECK-NOT: linalg.pooling_nchw_max
func.func @pool_bf16(%in: tensor<64x16x8x8xbf16>) -> tensor<64x16x4x4xbf16> {
  %ninf = arith.constant 0xFF80 : bf16
  %e = tensor.empty() : tensor<64x16x4x4xbf16>
  %f = linalg.fill ins(%ninf : bf16) outs(%e : tensor<64x16x4x4xbf16>) -> tensor<64x16x4x4xbf16>
  %w = tensor.empty() : tensor<2x2xbf16>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%in, %w : tensor<64x16x8x8xbf16>, tensor<2x2xbf16>) outs(%f : tensor<64x16x4x4xbf16>) -> tensor<64x16x4x4xbf16>
  return %r : tensor<64x16x4x4xbf16>
}

// -----

// A plane above 512 elements: bands of two output rows (2 x 3 x 63 = 378
// elements of the 108 x 63 plane read); a 3x3 window; the last row and
// two last columns of the 109 x 65 input (floor mode) sliced off.
// CHECK-LABEL: func @pool_band
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 8, 108, 63] [1, 1, 1, 1] : tensor<1x8x109x65xf32> to tensor<1x8x108x63xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 8, 36, 3, 21, 3]
// CHECK: vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [1, 3] : vector<2x3x21x3xf32> to vector<2x21xf32>
func.func @pool_band(%in: tensor<1x8x109x65xf32>, %init: tensor<1x8x36x21xf32>) -> tensor<1x8x36x21xf32> {
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<3> : vector<2xi64>} ins(%in, %w : tensor<1x8x109x65xf32>, tensor<3x3xf32>) outs(%init : tensor<1x8x36x21xf32>) -> tensor<1x8x36x21xf32>
  return %r : tensor<1x8x36x21xf32>
}

// -----

// Overlapping windows (3x3, stride 2: resnet's max pooling) stay as they are.
// CHECK-LABEL: func @pool_overlapping
// CHECK: linalg.pooling_nchw_max
// CHECK-NOT: vector.
func.func @pool_overlapping(%in: tensor<1x64x113x113xf32>, %init: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%in, %w : tensor<1x64x113x113xf32>, tensor<3x3xf32>) outs(%init : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// -----

// A pooling oneDNN computes (amp-cpu-select-onednn's mark) is left alone.
// CHECK-LABEL: func @pool_onednn
// CHECK: linalg.pooling_nchw_max {amp_cpu.onednn
func.func @pool_onednn(%in: tensor<2x4x8x8xf32>, %init: tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %r = linalg.pooling_nchw_max {amp_cpu.onednn, dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%in, %w : tensor<2x4x8x8xf32>, tensor<2x2xf32>) outs(%init : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  return %r : tensor<2x4x4x4xf32>
}
