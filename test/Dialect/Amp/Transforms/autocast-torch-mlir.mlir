// Issue 26, "Cast policy on torch-mlir's decompositions": the cast policy
// classifies the pieces torch-mlir lowers one PyTorch op into as PyTorch
// classifies that op. Each case is real output of
// torch_mlir.fx.export_and_import(module, args, output_type="linalg-on-tensors")
// (torch 2.15.0, torch-mlir 20261001) for the PyTorch code in its comment,
// with seeded random weights (torch.manual_seed(0)); the only edits are the
// function's name and the decorator amp.autocast = #amp.autocast<device_type = cuda>.
// RUN: amp-opt %s -split-input-file --amp-autocast=annotate | FileCheck %s --check-prefixes=CHECK,GRAPH
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s --check-prefixes=CHECK,EAGER

// PyTorch: Conv2d(1, 1, 1, bias=False) -> F.avg_pool2d(x, 4) -> Conv2d(1, 1, 1, bias=False) on a 1x1x4x4 input.
// avg_pool2d is linalg.pooling_nchw_sum + a divide: both f32 (the window sum
// of 16 x 20000 overflows f16, the mean does not; PyTorch divides before
// rounding).
// CHECK-LABEL: func.func @avgpool
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}amp.compute_type = f16
// CHECK: linalg.pooling_nchw_sum {{.*}}amp.compute_type = f32
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.divf
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}amp.compute_type = f16
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @avgpool(%arg0: tensor<1x1x4x4xf32>) -> tensor<1x1x1x1xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense<0.536443591> : tensor<1x1x1x1xf32>
    %cst_1 = arith.constant dense<-7.486820e-03> : tensor<1x1x1x1xf32>
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
}

// -----

// PyTorch: y = Linear(4, 4, bias=False)(x); (y * y).sum(dim=-1).
// graph mode: the square between the matmul and the sum (fp32) runs f32 (not
// between lower ops); eager mode squares at the widest input, f16, as PyTorch
// eager does (case C09).
// CHECK-LABEL: func.func @sumsq
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
// GRAPH: linalg.generic {{.*}}amp.compute_type = f32
// GRAPH: arith.mulf
// EAGER: linalg.generic {{.*}}amp.compute_type = f16
// EAGER: arith.mulf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.addf
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @sumsq(%arg0: tensor<2x4xf32>) -> tensor<2xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense_resource<torch_tensor_4_4_torch.float32> : tensor<4x4xf32>
    %0 = tensor.empty() : tensor<4x4xf32>
    %transposed = linalg.transpose ins(%cst_0 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x4xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %3 : tensor<2x4xf32>, tensor<2x4xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %8 = arith.mulf %in, %in_1 : f32
      linalg.yield %8 : f32
    } -> tensor<2x4xf32>
    %5 = tensor.empty() : tensor<2xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<2xf32>) -> tensor<2xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%4 : tensor<2x4xf32>) outs(%6 : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = arith.addf %in, %out : f32
      linalg.yield %8 : f32
    } -> tensor<2xf32>
    return %7 : tensor<2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_4_torch.float32: "0x040000008C8DADBEFCF45EBE98F7393E4E94D43E48BDD2BD5C91BF3E400DA5BD10B5583D4ACDE73ECE7BEDBE6629A1BEE09E01BEDC9347BE282FDD3E1AEFA5BEC0B06BBE"
    }
  }
#-}

// -----

// PyTorch: torch.linalg.vector_norm(Linear(4, 4, bias=False)(x), dim=-1).
// the norm's reduction (abs, pow 2, add) and its pow 0.5 are fp32 (pow:
// PyTorch fp32 list; norm: fp32 list).
// CHECK-LABEL: func.func @vnorm
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: math.absf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: math.powf
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
module {
  func.func @vnorm(%arg0: tensor<2x4xf32>) -> tensor<2xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense_resource<torch_tensor_4_4_torch.float32> : tensor<4x4xf32>
    %cst_1 = arith.constant 5.000000e-01 : f32
    %cst_2 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x4xf32>
    %transposed = linalg.transpose ins(%cst_0 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x4xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %4 = tensor.empty() : tensor<2xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2xf32>) -> tensor<2xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%3 : tensor<2x4xf32>) outs(%5 : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = math.absf %in : f32
      %9 = math.powf %8, %cst_2 : f32
      %10 = arith.addf %9, %out : f32
      linalg.yield %10 : f32
    } -> tensor<2xf32>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%6 : tensor<2xf32>) outs(%4 : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = math.powf %in, %cst_1 : f32
      linalg.yield %8 : f32
    } -> tensor<2xf32>
    return %7 : tensor<2xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_4_torch.float32: "0x0400000040BAA33E827FFE3E24344B3EC8558A3DFEA4AB3EC0BB96BEF8D0BE3D6C7AC6BE186EB1BED23E84BE8CAA673EF8E74D3E6AA497BEC8AD1A3E6E898C3E203F81BD"
    }
  }
#-}

// -----

// PyTorch: Linear(4, 4, bias=False) -> torch.softmax(dim=-1) -> Linear(4, 4, bias=False).
// softmax's pieces (max, x - max, exp, sum, divide) all run f32 (softmax:
// PyTorch fp32 list): the max and the shift are recognised as softmax's, not
// as a clear max and an infer subtract.
// CHECK-LABEL: func.func @softmax
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: tensor.expand_shape {{.*}}amp.compute_type = f32
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.subf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.divf
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @softmax(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant dense_resource<torch_tensor_4_4_torch.float32_1> : tensor<4x4xf32>
    %cst_2 = arith.constant dense_resource<torch_tensor_4_4_torch.float32> : tensor<4x4xf32>
    %0 = tensor.empty() : tensor<4x4xf32>
    %transposed = linalg.transpose ins(%cst_2 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x4xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %4 = tensor.empty() : tensor<2xi64>
    %5 = linalg.fill ins(%c0_i64 : i64) outs(%4 : tensor<2xi64>) -> tensor<2xi64>
    %6 = tensor.empty() : tensor<2xf32>
    %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2xf32>) -> tensor<2xf32>
    %8:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%3 : tensor<2x4xf32>) outs(%7, %5 : tensor<2xf32>, tensor<2xi64>) {
    ^bb0(%in: f32, %out: f32, %out_4: i64):
      %16 = linalg.index 1 : index
      %17 = arith.index_cast %16 : index to i64
      %18 = arith.maximumf %in, %out : f32
      %19 = arith.cmpf ogt, %in, %out : f32
      %20 = arith.select %19, %17, %out_4 : i64
      linalg.yield %18, %20 : f32, i64
    } -> (tensor<2xf32>, tensor<2xi64>)
    %expanded = tensor.expand_shape %8#0 [[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %expanded : tensor<2x4xf32>, tensor<2x1xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %16 = arith.subf %in, %in_4 : f32
      linalg.yield %16 : f32
    } -> tensor<2x4xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<2x4xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = math.exp %in : f32
      linalg.yield %16 : f32
    } -> tensor<2x4xf32>
    %11 = tensor.empty() : tensor<2x1xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<2x1xf32>) -> tensor<2x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%10 : tensor<2x4xf32>) outs(%12 : tensor<2x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.addf %in, %out : f32
      linalg.yield %16 : f32
    } -> tensor<2x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %13 : tensor<2x4xf32>, tensor<2x1xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %16 = arith.divf %in, %in_4 : f32
      linalg.yield %16 : f32
    } -> tensor<2x4xf32>
    %transposed_3 = linalg.transpose ins(%cst_1 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %15 = linalg.matmul ins(%14, %transposed_3 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    return %15 : tensor<2x4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_4_torch.float32_1: "0x0400000096B3C7BEE86893BEF2D4F03E547FAC3EB03E5FBED4DC00BE78DDF3BE803E13BC78C8C0BEA277C5BE20B0E1BCA0BF993DF4AD51BE98E7973E38C99BBE6849E83E",
      torch_tensor_4_4_torch.float32: "0x04000000F0A6C23EFE5DFFBE08AABF3DC880ACBDB882A8BD1C5F6ABE8CE4443E34A197BEDCB13B3E1676813E5C43B73E48713F3E4A5FFDBE0011A6BE38A67F3E1853D63D"
    }
  }
#-}

// -----

// PyTorch: Linear(4, 4, bias=False) -> torch.log_softmax(dim=-1).
// log_softmax's pieces (max, x - max, exp, sum, log, subtract) all run f32
// (log_softmax: PyTorch fp32 list).
// CHECK-LABEL: func.func @logsoftmax
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: tensor.expand_shape {{.*}}amp.compute_type = f32
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.subf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: math.log
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.subf
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @logsoftmax(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant dense_resource<torch_tensor_4_4_torch.float32> : tensor<4x4xf32>
    %0 = tensor.empty() : tensor<4x4xf32>
    %transposed = linalg.transpose ins(%cst_1 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x4xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %4 = tensor.empty() : tensor<2xi64>
    %5 = linalg.fill ins(%c0_i64 : i64) outs(%4 : tensor<2xi64>) -> tensor<2xi64>
    %6 = tensor.empty() : tensor<2xf32>
    %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2xf32>) -> tensor<2xf32>
    %8:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%3 : tensor<2x4xf32>) outs(%7, %5 : tensor<2xf32>, tensor<2xi64>) {
    ^bb0(%in: f32, %out: f32, %out_2: i64):
      %16 = linalg.index 1 : index
      %17 = arith.index_cast %16 : index to i64
      %18 = arith.maximumf %in, %out : f32
      %19 = arith.cmpf ogt, %in, %out : f32
      %20 = arith.select %19, %17, %out_2 : i64
      linalg.yield %18, %20 : f32, i64
    } -> (tensor<2xf32>, tensor<2xi64>)
    %expanded = tensor.expand_shape %8#0 [[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %expanded : tensor<2x4xf32>, tensor<2x1xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %16 = arith.subf %in, %in_2 : f32
      linalg.yield %16 : f32
    } -> tensor<2x4xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<2x4xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = math.exp %in : f32
      linalg.yield %16 : f32
    } -> tensor<2x4xf32>
    %11 = tensor.empty() : tensor<2x1xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<2x1xf32>) -> tensor<2x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%10 : tensor<2x4xf32>) outs(%12 : tensor<2x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.addf %in, %out : f32
      linalg.yield %16 : f32
    } -> tensor<2x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<2x1xf32>) outs(%11 : tensor<2x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = math.log %in : f32
      linalg.yield %16 : f32
    } -> tensor<2x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %14 : tensor<2x4xf32>, tensor<2x1xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %16 = arith.subf %in, %in_2 : f32
      linalg.yield %16 : f32
    } -> tensor<2x4xf32>
    return %15 : tensor<2x4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_4_torch.float32: "0x0400000000D2D9BDF8E2DA3D76C6A6BE4034D2BC0042B73EF08852BD80AC633CC0AD30BD103DCF3D60C6A23EBA7EF23E0693A23EC40CF33E601D14BD66F8E5BE40BA72BE"
    }
  }
#-}

// -----

// PyTorch: Linear(4, 4, bias=False) -> LayerNorm(4) -> Linear(4, 4, bias=False).
// layer_norm's mean/rsqrt/scale/shift run f32 (layer_norm: PyTorch fp32 list);
// its f64 variance pieces keep their written types (no compute type).
// CHECK-LABEL: func.func @layernorm
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.extf
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.subf
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: math.rsqrt
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.subf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.addf
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @layernorm(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f64
    %cst_1 = arith.constant dense_resource<torch_tensor_4_4_torch.float32_1> : tensor<4x4xf32>
    %cst_2 = arith.constant dense_resource<torch_tensor_4_torch.float32_1> : tensor<4xf32>
    %cst_3 = arith.constant dense_resource<torch_tensor_4_torch.float32> : tensor<4xf32>
    %cst_4 = arith.constant 1.000000e-05 : f64
    %cst_5 = arith.constant dense_resource<torch_tensor_4_4_torch.float32> : tensor<4x4xf32>
    %cst_6 = arith.constant 4.000000e+00 : f64
    %cst_7 = arith.constant 4.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x4xf32>
    %transposed = linalg.transpose ins(%cst_5 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x4xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %4 = tensor.empty() : tensor<2x4xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<2x4xf32>) outs(%4 : tensor<2x4xf64>) {
    ^bb0(%in: f32, %out: f64):
      %26 = arith.extf %in : f32 to f64
      linalg.yield %26 : f64
    } -> tensor<2x4xf64>
    %6 = tensor.empty() : tensor<2x1xf64>
    %7 = linalg.fill ins(%cst_0 : f64) outs(%6 : tensor<2x1xf64>) -> tensor<2x1xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%5 : tensor<2x4xf64>) outs(%7 : tensor<2x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %26 = arith.addf %in, %out : f64
      linalg.yield %26 : f64
    } -> tensor<2x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<2x1xf64>) outs(%6 : tensor<2x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %26 = arith.divf %in, %cst_6 : f64
      linalg.yield %26 : f64
    } -> tensor<2x1xf64>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %9 : tensor<2x4xf64>, tensor<2x1xf64>) outs(%4 : tensor<2x4xf64>) {
    ^bb0(%in: f64, %in_9: f64, %out: f64):
      %26 = arith.subf %in, %in_9 : f64
      linalg.yield %26 : f64
    } -> tensor<2x4xf64>
    %11 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %10 : tensor<2x4xf64>, tensor<2x4xf64>) outs(%4 : tensor<2x4xf64>) {
    ^bb0(%in: f64, %in_9: f64, %out: f64):
      %26 = arith.mulf %in, %in_9 : f64
      linalg.yield %26 : f64
    } -> tensor<2x4xf64>
    %12 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%11 : tensor<2x4xf64>) outs(%7 : tensor<2x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %26 = arith.addf %in, %out : f64
      linalg.yield %26 : f64
    } -> tensor<2x1xf64>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<2x1xf64>) outs(%6 : tensor<2x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %26 = arith.divf %in, %cst_6 : f64
      linalg.yield %26 : f64
    } -> tensor<2x1xf64>
    %14 = tensor.empty() : tensor<2x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<2x1xf64>) outs(%14 : tensor<2x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %26 = arith.truncf %in : f64 to f32
      linalg.yield %26 : f32
    } -> tensor<2x1xf32>
    %16 = linalg.fill ins(%cst : f32) outs(%14 : tensor<2x1xf32>) -> tensor<2x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%3 : tensor<2x4xf32>) outs(%16 : tensor<2x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.addf %in, %out : f32
      linalg.yield %26 : f32
    } -> tensor<2x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%17 : tensor<2x1xf32>) outs(%14 : tensor<2x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.divf %in, %cst_7 : f32
      linalg.yield %26 : f32
    } -> tensor<2x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<2x1xf32>) outs(%14 : tensor<2x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.truncf %cst_4 : f64 to f32
      %27 = arith.addf %in, %26 : f32
      linalg.yield %27 : f32
    } -> tensor<2x1xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<2x1xf32>) outs(%14 : tensor<2x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.rsqrt %in : f32
      linalg.yield %26 : f32
    } -> tensor<2x1xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %18 : tensor<2x4xf32>, tensor<2x1xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %26 = arith.subf %in, %in_9 : f32
      linalg.yield %26 : f32
    } -> tensor<2x4xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%21, %20 : tensor<2x4xf32>, tensor<2x1xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %26 = arith.mulf %in, %in_9 : f32
      linalg.yield %26 : f32
    } -> tensor<2x4xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%22, %cst_3 : tensor<2x4xf32>, tensor<4xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %26 = arith.mulf %in, %in_9 : f32
      linalg.yield %26 : f32
    } -> tensor<2x4xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%23, %cst_2 : tensor<2x4xf32>, tensor<4xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %26 = arith.addf %in, %in_9 : f32
      linalg.yield %26 : f32
    } -> tensor<2x4xf32>
    %transposed_8 = linalg.transpose ins(%cst_1 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %25 = linalg.matmul ins(%24, %transposed_8 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    return %25 : tensor<2x4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_4_torch.float32_1: "0x0400000014B6CC3E54DFCEBEB0C25B3DC064D6BD16D0B63E08EC0E3ECC04763E40D1343E003FF6BD505AD7BD00F7D2BE4CB68A3E2642CB3E5C29AF3EAC93B4BE60AEB63C",
      torch_tensor_4_torch.float32_1: "0x0400000000000000000000000000000000000000",
      torch_tensor_4_torch.float32: "0x040000000000803F0000803F0000803F0000803F",
      torch_tensor_4_4_torch.float32: "0x04000000BAB8E5BE440ADDBE283CA0BD80E1D33BB89668BEB8DE403E3A6AE6BEC0360ABDA221E13E38D750BE362BE73E386C393EAE07E7BE74F8A13EF0536CBD708F64BE"
    }
  }
#-}

// -----

// PyTorch: Linear(4, 3) (transpose of the weight, matmul, bias broadcast, bias add).
// linear is lower precision as a whole (PyTorch lower_precision_fp: linear):
// the bias add of the matmul result and the broadcast bias is f16 in both
// modes.
// CHECK-LABEL: func.func @linear
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
// GRAPH: linalg.generic {{.*}}amp.compute_type = f16
// EAGER: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: linalg.generic {{.*}}amp.compute_type = f16
// CHECK: arith.addf
#map = affine_map<(d0, d1) -> (d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @linear(%arg0: tensor<2x4xf32>) -> tensor<2x3xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense_resource<torch_tensor_3_torch.float32> : tensor<3xf32>
    %cst_1 = arith.constant dense_resource<torch_tensor_3_4_torch.float32> : tensor<3x4xf32>
    %0 = tensor.empty() : tensor<4x3xf32>
    %transposed = linalg.transpose ins(%cst_1 : tensor<3x4xf32>) outs(%0 : tensor<4x3xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x3xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x3xf32>) outs(%2 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<3xf32>) outs(%1 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x3xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%3, %4 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%1 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.addf %in, %in_2 : f32
      linalg.yield %6 : f32
    } -> tensor<2x3xf32>
    return %5 : tensor<2x3xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_3_torch.float32: "0x0400000010F4383EC0F0673C26DADDBE",
      torch_tensor_3_4_torch.float32: "0x0400000000ED73BB086DCABD407A803D30D3E9BD003E66BBC0A7823D983EC8BE7A2D86BED8B7CE3E86C1CFBE200F13BDC03EFD3E"
    }
  }
#-}

// -----

// PyTorch: F.scaled_dot_product_attention(q, k, v) on 1x2x3x4 arguments.
// SDPA's two batch_matmuls are f16 (PyTorch lower_precision_fp:
// scaled_dot_product_attention, matmul); the softmax between them is f32
// together; the scaling of the f32 arguments runs f32 (outside-f32 rule)
// before the matmul's cast.
// CHECK-LABEL: func.func @sdpa
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.truncf
// CHECK: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.truncf
// GRAPH: tensor.collapse_shape {{.*}}amp.compute_type = f16
// EAGER: tensor.collapse_shape {{.*}}amp.compute_type = f32
// GRAPH: tensor.collapse_shape {{.*}}amp.compute_type = f16
// EAGER: tensor.collapse_shape {{.*}}amp.compute_type = f32
// CHECK: linalg.batch_matmul {{.*}}amp.compute_type = f16
// CHECK: tensor.expand_shape {{.*}}amp.compute_type = f16
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: tensor.expand_shape {{.*}}amp.compute_type = f32
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.subf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}}amp.compute_type = f16
// CHECK: arith.extf
// CHECK: linalg.generic {{.*}}) {{[{]$}}
// CHECK: arith.andi
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.select
// GRAPH: tensor.collapse_shape {{.*}}amp.compute_type = f16
// EAGER: tensor.collapse_shape {{.*}}amp.compute_type = f32
// GRAPH: tensor.collapse_shape {{.*}}amp.compute_type = f16
// EAGER: tensor.collapse_shape {{.*}}amp.compute_type = f32
// CHECK: linalg.batch_matmul {{.*}}amp.compute_type = f16
// CHECK: tensor.expand_shape {{.*}}amp.compute_type = f16
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
module {
  func.func @sdpa(%arg0: tensor<1x2x3x4xf32>, %arg1: tensor<1x2x3x4xf32>, %arg2: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<1x2x3x3xf32>
    %cst_2 = arith.constant 0xFFF0000000000000 : f64
    %cst_3 = arith.constant 0.70710678118654757 : f64
    %0 = tensor.empty() : tensor<1x2x3x4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x2x3x4xf32>) outs(%0 : tensor<1x2x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.truncf %cst_3 : f64 to f32
      %29 = arith.mulf %in, %28 : f32
      linalg.yield %29 : f32
    } -> tensor<1x2x3x4xf32>
    %2 = tensor.empty() : tensor<1x2x4x3xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<1x2x3x4xf32>) outs(%2 : tensor<1x2x4x3xf32>) permutation = [0, 1, 3, 2] 
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed : tensor<1x2x4x3xf32>) outs(%2 : tensor<1x2x4x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.truncf %cst_3 : f64 to f32
      %29 = arith.mulf %in, %28 : f32
      linalg.yield %29 : f32
    } -> tensor<1x2x4x3xf32>
    %collapsed = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<1x2x3x4xf32> into tensor<2x3x4xf32>
    %collapsed_4 = tensor.collapse_shape %3 [[0, 1], [2], [3]] : tensor<1x2x4x3xf32> into tensor<2x4x3xf32>
    %4 = tensor.empty() : tensor<2x3x3xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %6 = linalg.batch_matmul ins(%collapsed, %collapsed_4 : tensor<2x3x4xf32>, tensor<2x4x3xf32>) outs(%5 : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %expanded = tensor.expand_shape %6 [[0, 1], [2], [3]] output_shape [1, 2, 3, 3] : tensor<2x3x3xf32> into tensor<1x2x3x3xf32>
    %7 = tensor.empty() : tensor<1x2x3xi64>
    %8 = linalg.fill ins(%c0_i64 : i64) outs(%7 : tensor<1x2x3xi64>) -> tensor<1x2x3xi64>
    %9 = tensor.empty() : tensor<1x2x3xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
    %11:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded : tensor<1x2x3x3xf32>) outs(%10, %8 : tensor<1x2x3xf32>, tensor<1x2x3xi64>) {
    ^bb0(%in: f32, %out: f32, %out_9: i64):
      %28 = linalg.index 3 : index
      %29 = arith.index_cast %28 : index to i64
      %30 = arith.maximumf %in, %out : f32
      %31 = arith.cmpf ogt, %in, %out : f32
      %32 = arith.select %31, %29, %out_9 : i64
      linalg.yield %30, %32 : f32, i64
    } -> (tensor<1x2x3xf32>, tensor<1x2x3xi64>)
    %expanded_5 = tensor.expand_shape %11#0 [[0], [1], [2, 3]] output_shape [1, 2, 3, 1] : tensor<1x2x3xf32> into tensor<1x2x3x1xf32>
    %12 = tensor.empty() : tensor<1x2x3x3xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_5 : tensor<1x2x3x3xf32>, tensor<1x2x3x1xf32>) outs(%12 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %28 = arith.subf %in, %in_9 : f32
      linalg.yield %28 : f32
    } -> tensor<1x2x3x3xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x2x3x3xf32>) outs(%12 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = math.exp %in : f32
      linalg.yield %28 : f32
    } -> tensor<1x2x3x3xf32>
    %15 = tensor.empty() : tensor<1x2x3x1xf32>
    %16 = linalg.fill ins(%cst : f32) outs(%15 : tensor<1x2x3x1xf32>) -> tensor<1x2x3x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%14 : tensor<1x2x3x3xf32>) outs(%16 : tensor<1x2x3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.addf %in, %out : f32
      linalg.yield %28 : f32
    } -> tensor<1x2x3x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14, %17 : tensor<1x2x3x3xf32>, tensor<1x2x3x1xf32>) outs(%12 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %28 = arith.divf %in, %in_9 : f32
      linalg.yield %28 : f32
    } -> tensor<1x2x3x3xf32>
    %19 = tensor.empty() : tensor<1x2x3x3xi1>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<1x2x3x3xf32>) outs(%19 : tensor<1x2x3x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %28 = arith.extf %in : f32 to f64
      %29 = arith.cmpf oeq, %28, %cst_2 : f64
      linalg.yield %29 : i1
    } -> tensor<1x2x3x3xi1>
    %21 = tensor.empty() : tensor<1x2x3x1xi1>
    %22 = linalg.fill ins(%true : i1) outs(%21 : tensor<1x2x3x1xi1>) -> tensor<1x2x3x1xi1>
    %23 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%20 : tensor<1x2x3x3xi1>) outs(%22 : tensor<1x2x3x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %28 = arith.andi %in, %out : i1
      linalg.yield %28 : i1
    } -> tensor<1x2x3x1xi1>
    %24 = linalg.generic {indexing_maps = [#map2, #map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %cst_1, %18 : tensor<1x2x3x1xi1>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%12 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %28 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %28 : f32
    } -> tensor<1x2x3x3xf32>
    %collapsed_6 = tensor.collapse_shape %24 [[0, 1], [2], [3]] : tensor<1x2x3x3xf32> into tensor<2x3x3xf32>
    %collapsed_7 = tensor.collapse_shape %arg2 [[0, 1], [2], [3]] : tensor<1x2x3x4xf32> into tensor<2x3x4xf32>
    %25 = tensor.empty() : tensor<2x3x4xf32>
    %26 = linalg.fill ins(%cst : f32) outs(%25 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %27 = linalg.batch_matmul ins(%collapsed_6, %collapsed_7 : tensor<2x3x3xf32>, tensor<2x3x4xf32>) outs(%26 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %expanded_8 = tensor.expand_shape %27 [[0, 1], [2], [3]] output_shape [1, 2, 3, 4] : tensor<2x3x4xf32> into tensor<1x2x3x4xf32>
    return %expanded_8 : tensor<1x2x3x4xf32>
  }
}

// -----

// PyTorch: Linear(4, 4, bias=False) -> F.gelu -> Linear(4, 4, bias=False).
// GELU (erf chain in one generic, on no PyTorch list) runs f16 between the two
// matmuls in both modes.
// CHECK-LABEL: func.func @gelu
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
// CHECK: linalg.generic {{.*}}amp.compute_type = f16
// CHECK: arith.divf
// GRAPH: linalg.transpose {{.*}}amp.compute_type = f16
// EAGER: linalg.transpose {{.*}}amp.compute_type = f32
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @gelu(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 5.000000e-01 : f32
    %cst_2 = arith.constant dense_resource<torch_tensor_4_4_torch.float32_1> : tensor<4x4xf32>
    %cst_3 = arith.constant dense_resource<torch_tensor_4_4_torch.float32> : tensor<4x4xf32>
    %cst_4 = arith.constant 1.41421354 : f32
    %0 = tensor.empty() : tensor<4x4xf32>
    %transposed = linalg.transpose ins(%cst_3 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x4xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<2x4xf32>) outs(%1 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.divf %in, %cst_4 : f32
      %7 = math.erf %6 : f32
      %8 = arith.addf %7, %cst_0 : f32
      %9 = arith.mulf %8, %cst_1 : f32
      %10 = arith.mulf %in, %9 : f32
      linalg.yield %10 : f32
    } -> tensor<2x4xf32>
    %transposed_5 = linalg.transpose ins(%cst_2 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0] 
    %5 = linalg.matmul ins(%4, %transposed_5 : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    return %5 : tensor<2x4xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_4_torch.float32_1: "0x04000000429AD13E2441B73E22AAC53EBAA1E33EB01A03BEF447613E0414E43E1461293ECAEAFF3E18C7843E58249F3E2C3233BEF4AB753E20546B3D888CF4BD4A4F90BE",
      torch_tensor_4_4_torch.float32: "0x04000000BA8DFCBE1095CDBEB61ACA3E50818A3EE82EF03E4816CD3EA09EE4BECEB3AEBEE875A5BD3241A6BEF8C3B13EBA89C1BE38CE79BEC451F7BEC65791BEE28DD23E"
    }
  }
#-}

// -----

// PyTorch: y = Linear(4, 4, bias=False)(x); (y * y).sum(dim=-1), the sumsq
// case above after mlir-opt --linalg-fuse-elementwise-ops (one reduction
// generic), with the square's operand passed twice as two inputs (as
// torch-mlir's unfused `ins(%y, %y)` mul has it): a reduction whose body
// multiplies a value by itself is a sum of squares (sum: fp32 list), not a
// contraction (lower).
// CHECK-LABEL: func.func @sumsq_fused
// CHECK: linalg.matmul {{.*}}amp.compute_type = f16
// CHECK: linalg.generic {{.*}}amp.compute_type = f32
// CHECK: arith.mulf {{.*}} : f32
// CHECK: arith.addf {{.*}} : f32
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @sumsq_fused(%arg0: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2xf32> attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x4xf32>
    %transposed = linalg.transpose ins(%w : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) permutation = [1, 0]
    %1 = tensor.empty() : tensor<2x4xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x4xf32>, tensor<4x4xf32>) outs(%2 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %4 = tensor.empty() : tensor<2xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2xf32>) -> tensor<2xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel", "reduction"]} ins(%3, %3 : tensor<2x4xf32>, tensor<2x4xf32>) outs(%5 : tensor<2xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.mulf %in, %in_0 : f32
      %8 = arith.addf %7, %out : f32
      linalg.yield %8 : f32
    } -> tensor<2xf32>
    return %6 : tensor<2xf32>
  }
}
