// RUN: not amp-opt %s "-amp-dp-bucket-all-reduce=bucket-bytes=0" 2>&1 | FileCheck %s

// CHECK: error: amp-dp-bucket-all-reduce: bucket-bytes must be at least 1, got 0
shard.grid @amp_dp(shape = 2)
func.func @step(%dw: tensor<4xf32>) -> tensor<4xf32> {
  %g = shard.all_reduce %dw on @amp_dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}
