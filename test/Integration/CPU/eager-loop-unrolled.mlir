// Eager mode is PyTorch op by op, loops included: a loop whose body turns
// the carried value from f32 into bf16 (the matmul's result) computes
// exactly what the same body written out three times computes, op by op.
// PyTorch's second and third iterations square and add the carried value in
// bf16 (rounding twice before the matmul); carrying it as f32 would round
// once. amp-autocast peels the first iteration and carries bf16 after it.
// The test prints the largest difference between the loop and the written-
// out body (0), then one element of the result (not 0).
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{-?0\.[0-9]*[1-9][0-9]*}}

func.func @loop(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cpu) -> tensor<8x8xf32> {
    %e = tensor.empty() : tensor<8x8xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<8x8xf32>) {
        %sq = arith.mulf %acc, %acc : tensor<8x8xf32>
        %s = arith.addf %sq, %acc : tensor<8x8xf32>
        %m = linalg.matmul ins(%s, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
        %t = math.tanh %m : tensor<8x8xf32>
      scf.yield %t : tensor<8x8xf32>
    }
    amp.yield %h : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

func.func @unrolled(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cpu) -> tensor<8x8xf32> {
    %e = tensor.empty() : tensor<8x8xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %sq0 = arith.mulf %x, %x : tensor<8x8xf32>
    %s0 = arith.addf %sq0, %x : tensor<8x8xf32>
    %m0 = linalg.matmul ins(%s0, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    %t0 = math.tanh %m0 : tensor<8x8xf32>
    %sq1 = arith.mulf %t0, %t0 : tensor<8x8xf32>
    %s1 = arith.addf %sq1, %t0 : tensor<8x8xf32>
    %m1 = linalg.matmul ins(%s1, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    %t1 = math.tanh %m1 : tensor<8x8xf32>
    %sq2 = arith.mulf %t1, %t1 : tensor<8x8xf32>
    %s2 = arith.addf %sq2, %t1 : tensor<8x8xf32>
    %m2 = linalg.matmul ins(%s2, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    %t2 = math.tanh %m2 : tensor<8x8xf32>
    amp.yield %t2 : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

func.func @main() {
  %x = arith.constant dense<[[0.089850, 0.645620, 0.897745, 0.727647, 0.215324, -0.398268, -0.824549, -0.863032], [0.886905, 0.776888, 0.301489, -0.315705, -0.784418, -0.884207, -0.568140, 0.015133], [0.384642, -0.229987, -0.736449, -0.896548, -0.634986, -0.074780, 0.520596, 0.871128], [-0.681122, -0.899931, -0.695488, -0.163946, 0.444702, 0.844200, 0.846658, 0.450919], [-0.749041, -0.251474, 0.364365, 0.808837, 0.872901, 0.526425, -0.067636, -0.629887], [0.280387, 0.765393, 0.890422, 0.596672, 0.022298, -0.562564, -0.882843, -0.787907], [0.899047, 0.660957, 0.112009, -0.489619, -0.860972, -0.827396, -0.404683, 0.208359], [0.200601, -0.411782, -0.830498, -0.858617, -0.482916, 0.119909, 0.666338, 0.899378]]> : tensor<8x8xf32>
  %w = arith.constant dense<[[0.429901, 0.313518, -0.145480, -0.445497, -0.258671, 0.210833, 0.449936, 0.197346], [0.163061, 0.447752, 0.243136, -0.227181, -0.449233, -0.180360, 0.285612, 0.439464], [-0.227181, 0.243136, 0.447752, 0.163061, -0.299824, -0.435059, -0.094858, 0.349005], [-0.445497, -0.145480, 0.313518, 0.429901, 0.076485, -0.360515, -0.403541, -0.005575], [-0.326670, -0.424000, -0.057980, 0.371401, 0.394912, -0.013140, -0.406832, -0.355935], [0.039375, -0.381645, -0.385600, 0.031832, 0.414477, 0.344179, -0.102241, -0.436931], [0.375621, -0.050469, -0.421406, -0.331827, 0.120374, 0.441030, 0.279724, -0.187266], [0.427605, 0.318901, -0.138300, -0.444366, -0.264826, 0.204118, 0.450000, 0.204118]]> : tensor<8x8xf32>
  %a = call @loop(%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = call @unrolled(%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = arith.subf %a, %b : tensor<8x8xf32>
  %ad = math.absf %d : tensor<8x8xf32>
  %neg = arith.constant dense<-1.0> : tensor<f32>
  %max = linalg.reduce ins(%ad : tensor<8x8xf32>) outs(%neg : tensor<f32>) dimensions = [0, 1]
    (%v: f32, %m: f32) {
      %n = arith.maximumf %v, %m : f32
      linalg.yield %n : f32
    }
  %mv = tensor.extract %max[] : tensor<f32>
  vector.print %mv : f32
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %v = tensor.extract %a[%c0, %c5] : tensor<8x8xf32>
  vector.print %v : f32
  return
}
