// RUN: amp-opt %s -split-input-file -amp-dp-bucket-all-reduce | FileCheck %s
// RUN: amp-opt %s -split-input-file "-amp-dp-bucket-all-reduce=bucket-bytes=256" | FileCheck %s --check-prefix=SMALL

// The gradients of a data-parallel step (a matrix, a vector, a scalar):
// their three sum all-reduces become one on a packed 1-D tensor, at the
// position of the last one, and the results are sliced back.

shard.grid @amp_dp(shape = 2)

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<145xf32>
// CHECK: %[[WF:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1]] : tensor<8x16xf32> into tensor<128xf32>
// CHECK: %[[P0:.*]] = tensor.insert_slice %[[WF]] into %[[E]][0] [128] [1]
// CHECK: %[[P1:.*]] = tensor.insert_slice %[[B]] into %[[P0]][128] [16] [1]
// CHECK: %[[SF:.*]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[P2:.*]] = tensor.insert_slice %[[SF]] into %[[P1]][144] [1] [1]
// CHECK: %[[SUM:.*]] = shard.all_reduce %[[P2]] on @amp_dp grid_axes = [0] : tensor<145xf32> -> tensor<145xf32>
// CHECK: %[[GW:.*]] = tensor.extract_slice %[[SUM]][0] [128] [1] : tensor<145xf32> to tensor<128xf32>
// CHECK: %[[RW:.*]] = tensor.expand_shape %[[GW]] {{\[\[}}0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
// CHECK: %[[RB:.*]] = tensor.extract_slice %[[SUM]][128] [16] [1] : tensor<145xf32> to tensor<16xf32>
// CHECK: %[[GS:.*]] = tensor.extract_slice %[[SUM]][144] [1] [1] : tensor<145xf32> to tensor<1xf32>
// CHECK: %[[RS:.*]] = tensor.collapse_shape %[[GS]] [] : tensor<1xf32> into tensor<f32>
// CHECK-NOT: shard.all_reduce
// CHECK: return %[[RW]], %[[RB]], %[[RS]]

// Buckets of at most 256 bytes: the 512-byte matrix alone, then the vector
// and the scalar (68 bytes).
// SMALL-LABEL: func.func @step
// SMALL: shard.all_reduce %{{.*}} on @amp_dp grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
// SMALL: shard.all_reduce %{{.*}} on @amp_dp grid_axes = [0] : tensor<17xf32> -> tensor<17xf32>
// SMALL-NOT: shard.all_reduce
func.func @step(%dw: tensor<8x16xf32>, %db: tensor<16xf32>, %ds: tensor<f32>)
    -> (tensor<8x16xf32>, tensor<16xf32>, tensor<f32>) {
  %0 = shard.all_reduce %dw on @amp_dp grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
  %1 = shard.all_reduce %db on @amp_dp grid_axes = [0] : tensor<16xf32> -> tensor<16xf32>
  %2 = shard.all_reduce %ds on @amp_dp grid_axes = [0] : tensor<f32> -> tensor<f32>
  return %0, %1, %2 : tensor<8x16xf32>, tensor<16xf32>, tensor<f32>
}

// -----

// Only sums of one element type share a bucket; the max vote on the loss
// scaler's flag stays as it is.

shard.grid @amp_dp(shape = 4)

// CHECK-LABEL: func.func @kinds
// SMALL-LABEL: func.func @kinds
// CHECK-DAG: shard.all_reduce %{{.*}} on @amp_dp grid_axes = [0] : tensor<12xf32> -> tensor<12xf32>
// CHECK-DAG: shard.all_reduce %{{.*}} on @amp_dp grid_axes = [0] : tensor<6xf64> -> tensor<6xf64>
// CHECK-DAG: shard.all_reduce %{{.*}} on @amp_dp grid_axes = [0] reduction = max : tensor<1xi32> -> tensor<1xi32>
// CHECK-NOT: shard.all_reduce
func.func @kinds(%a: tensor<4xf32>, %b: tensor<3xf64>, %c: tensor<8xf32>,
                 %d: tensor<3xf64>, %flag: tensor<1xi32>)
    -> (tensor<4xf32>, tensor<3xf64>, tensor<8xf32>, tensor<3xf64>, tensor<1xi32>) {
  %0 = shard.all_reduce %a on @amp_dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  %1 = shard.all_reduce %b on @amp_dp grid_axes = [0] : tensor<3xf64> -> tensor<3xf64>
  %2 = shard.all_reduce %flag on @amp_dp grid_axes = [0] reduction = max : tensor<1xi32> -> tensor<1xi32>
  %3 = shard.all_reduce %c on @amp_dp grid_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  %4 = shard.all_reduce %d on @amp_dp grid_axes = [0] : tensor<3xf64> -> tensor<3xf64>
  return %0, %1, %3, %4, %2 : tensor<4xf32>, tensor<3xf64>, tensor<8xf32>, tensor<3xf64>, tensor<1xi32>
}

// -----

// A result used before the next all-reduce closes the bucket (the packed
// all-reduce could not sit after both): the first stays alone, and so does
// the second, its input computed from the first's result.

shard.grid @amp_dp(shape = 2)

// CHECK-LABEL: func.func @dependent
// CHECK: %[[A:.*]] = shard.all_reduce %{{.*}} : tensor<4xf32> -> tensor<4xf32>
// CHECK: %[[X:.*]] = arith.addf %[[A]]
// CHECK: shard.all_reduce %[[X]] on @amp_dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
func.func @dependent(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = shard.all_reduce %a on @amp_dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  %1 = arith.addf %0, %a : tensor<4xf32>
  %2 = shard.all_reduce %1 on @amp_dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
