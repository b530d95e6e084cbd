// Eager mode against the same body written out (test/Integration/CPU/eager-loop-unrolled.mlir):
// a loop whose initial value arrives in bf16 (a matmul's result); all three iterations square and add in bf16 as PyTorch does (they ran in f32 before, off by 0.0077).
// Prints the largest difference between the loop and the written-out body (0),
// then one element of each (equal).
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}[[V:-?[0-9][0-9.e+-]*]]{{$}}
// CHECK-NEXT: {{^}}[[V]]{{$}}

func.func @loop(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cpu) -> tensor<8x8xf32> {
    %e = tensor.empty() : tensor<8x8xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m0 = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %m0) -> (tensor<8x8xf32>) {
      %s = arith.mulf %acc, %acc : tensor<8x8xf32>
      %t = arith.addf %s, %acc : tensor<8x8xf32>
      scf.yield %t : tensor<8x8xf32>
    }
    %p = math.tanh %h : tensor<8x8xf32>
    amp.yield %p : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

func.func @unrolled(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cpu) -> tensor<8x8xf32> {
    %e = tensor.empty() : tensor<8x8xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m0 = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    %s0 = arith.mulf %m0, %m0 : tensor<8x8xf32>
    %t0 = arith.addf %s0, %m0 : tensor<8x8xf32>
    %s1 = arith.mulf %t0, %t0 : tensor<8x8xf32>
    %t1 = arith.addf %s1, %t0 : tensor<8x8xf32>
    %s2 = arith.mulf %t1, %t1 : tensor<8x8xf32>
    %t2 = arith.addf %s2, %t1 : tensor<8x8xf32>
    %p = math.tanh %t2 : tensor<8x8xf32>
    amp.yield %p : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

func.func @main() {
  %x = arith.constant dense<[[-0.658144, 0.625381, 0.474794, -0.440876, -0.008217, -0.090916, 0.272867, 0.519702], [-0.731053, -0.848975, 0.604377, -0.121019, 0.472104, -0.896209, -0.098303, 0.398772], [-0.488228, 0.801487, 0.722569, -0.844938, -0.854197, 0.074542, 0.790468, -0.213832], [-0.510121, -0.140190, -0.847727, -0.500955, -0.111802, -0.007538, -0.480448, -0.484440], [-0.506194, -0.072714, -0.378393, -0.861319, 0.607640, 0.101618, 0.256130, -0.565369], [0.886578, 0.647904, -0.682398, -0.301149, 0.398672, 0.380145, 0.785593, -0.140207], [0.594064, 0.306550, -0.353937, 0.157645, 0.688462, 0.623155, 0.009511, 0.160204], [-0.837854, -0.463068, 0.535328, -0.154235, -0.588587, 0.087838, 0.365473, 0.314074]]> : tensor<8x8xf32>
  %w = arith.constant dense<[[0.820862, 0.806089, -0.798208, -0.747230, 0.603898, 0.424746, 0.305515, -0.345354], [0.190699, 0.192243, 0.146167, -0.614911, -0.124795, -0.191643, 0.401422, 0.890675], [0.808912, 0.079519, -0.099262, -0.417167, -0.835336, -0.850599, -0.063191, -0.326763], [-0.215973, 0.705221, 0.046355, 0.108919, -0.474978, -0.857055, -0.314743, -0.653945], [0.018403, 0.897630, 0.314063, -0.572682, 0.708429, 0.534168, 0.421923, 0.731869], [0.473194, 0.521546, -0.263183, 0.865758, 0.831422, -0.609868, 0.457207, 0.387272], [-0.069468, 0.054640, -0.017975, 0.764698, 0.001514, 0.596744, -0.262936, 0.689132], [0.719461, -0.070178, 0.121869, 0.756595, 0.402791, -0.024105, -0.500740, -0.315599]]> : tensor<8x8xf32>
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
  %e = tensor.extract %a[%c0, %c5] : tensor<8x8xf32>
  vector.print %e : f32
  %f = tensor.extract %b[%c0, %c5] : tensor<8x8xf32>
  vector.print %f : f32
  return
}
