// RUN: amp-opt %s --split-input-file --amp-cpu-vectorize-transposes --canonicalize | FileCheck %s
// RUN: amp-opt %s --split-input-file --amp-cpu-vectorize-transposes=block=16 --canonicalize | FileCheck %s --check-prefix=B16

// Attention's K^T (the innermost dimension moves to the front): 8x8 blocks
// of the input's and the output's innermost dimensions, each one read of
// the block's rows, a vector.transpose and one write.
// CHECK-LABEL: func @k_transpose
// CHECK-COUNT-4: scf.for
// CHECK: %[[R:.*]] = vector.transfer_read {{.*}} {in_bounds = [true, true]} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK: %[[T:.*]] = vector.transpose %[[R]], [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// CHECK: vector.transfer_write %[[T]]
// CHECK-NOT: linalg.transpose
// B16-LABEL: func @k_transpose
// B16: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
func.func @k_transpose(%k: tensor<128x4x4x64xf32>) -> tensor<4x4x64x128xf32> {
  %e = tensor.empty() : tensor<4x4x64x128xf32>
  %t = linalg.transpose ins(%k : tensor<128x4x4x64xf32>) outs(%e : tensor<4x4x64x128xf32>) permutation = [1, 2, 3, 0]
  return %t : tensor<4x4x64x128xf32>
}

// -----

// A weight's W^T whose sides 8 does not divide: blocks of the largest
// divisors up to 8 (5 of 20, 6 of 12).
// CHECK-LABEL: func @weight_transpose
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<5x6xf32> to vector<6x5xf32>
func.func @weight_transpose(%w: tensor<20x12xf32>) -> tensor<12x20xf32> {
  %e = tensor.empty() : tensor<12x20xf32>
  %t = linalg.transpose ins(%w : tensor<20x12xf32>) outs(%e : tensor<12x20xf32>) permutation = [1, 0]
  return %t : tensor<12x20xf32>
}

// -----

// Left alone: a transpose that keeps the innermost dimension (row copies,
// which the loop vectorizer takes), a side of 2 (blocks below 4 wide),
// a dynamic shape.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: vector.
// CHECK-COUNT-3: linalg.transpose
func.func @left_alone(%a: tensor<4x128x256xf32>, %b: tensor<2x64xf32>, %c: tensor<?x64xf32>, %n: index)
    -> (tensor<128x4x256xf32>, tensor<64x2xf32>, tensor<64x?xf32>) {
  %e = tensor.empty() : tensor<128x4x256xf32>
  %t = linalg.transpose ins(%a : tensor<4x128x256xf32>) outs(%e : tensor<128x4x256xf32>) permutation = [1, 0, 2]
  %e2 = tensor.empty() : tensor<64x2xf32>
  %t2 = linalg.transpose ins(%b : tensor<2x64xf32>) outs(%e2 : tensor<64x2xf32>) permutation = [1, 0]
  %e3 = tensor.empty(%n) : tensor<64x?xf32>
  %t3 = linalg.transpose ins(%c : tensor<?x64xf32>) outs(%e3 : tensor<64x?xf32>) permutation = [1, 0]
  return %t, %t2, %t3 : tensor<128x4x256xf32>, tensor<64x2xf32>, tensor<64x?xf32>
}
