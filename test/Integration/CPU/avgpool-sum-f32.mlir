// Issue 26: avg_pool2d as torch-mlir decomposes it (linalg.pooling_nchw_sum
// + a divide generic; the exported Conv2d(1, 1, 1) -> F.avg_pool2d(x, 4) ->
// Conv2d(1, 1, 1) of test/Dialect/Amp/Transforms/autocast-torch-mlir.mlir,
// with weights 1) between two f16 convolutions: the window sum
// 16 x 20000 = 320000 overflows f16, the mean 20000 does not. The sum and
// its divide stay f32 together (PyTorch divides before rounding); on main
// graph mode rounded the sum to f16 (inf).
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( 20000 )

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @avgpool(%arg0: tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant dense<1.0> : tensor<1x1x1x1xf32>
  %cst_1 = arith.constant dense<1.0> : tensor<1x1x1x1xf32>
  %cst_2 = arith.constant 1.600000e+01 : f32
  %0 = tensor.empty() : tensor<1x1x4x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%arg0, %cst_1 : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) outs(%1 : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %3 = tensor.empty() : tensor<1x1x1x1xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %5 = tensor.empty() : tensor<4x4xf32>
  %6 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<4> : vector<2xi64>} ins(%2, %5 : tensor<1x1x4x4xf32>, tensor<4x4xf32>) outs(%4 : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6 : tensor<1x1x1x1xf32>) outs(%3 : tensor<1x1x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %9 = arith.divf %in, %cst_2 : f32
    linalg.yield %9 : f32
  } -> tensor<1x1x1x1xf32>
  %8 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%7, %cst_0 : tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) outs(%4 : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return %8 : tensor<1x1x1x1xf32>
}

func.func @main() {
  %x = arith.constant dense<20000.0> : tensor<1x1x4x4xf32>
  %r = call @avgpool(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %r[%c0, %c0, %c0, %c0], %p : tensor<1x1x1x1xf32>, vector<1xf32>
  vector.print %v : vector<1xf32>
  return
}
