// Case C14: dynamic loss scaling from 65536. Three steps whose gradients hold
// NaN or inf halve the scale (32768, 16384, 8192) and leave the weights and
// the momentum bit-identical; the fourth, finite step updates them and keeps
// the scale at 8192 with growth tracker 1.
//
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s

// One momentum-SGD step (lr 0.5, momentum 0.9) on scaled gradients.
func.func @step(%w: tensor<4xf32>, %m: tensor<4xf32>, %g: tensor<4xf32>,
                %scale: tensor<f32>, %tracker: tensor<i32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>) {
  %ug, %found_inf = amp.unscale %g by %scale : tensor<4xf32>
  %nw, %nm = amp.step_if_finite %found_inf keep(%w, %m : tensor<4xf32>, tensor<4xf32>) {
    %mu = arith.constant dense<0.9> : tensor<4xf32>
    %lr = arith.constant dense<0.5> : tensor<4xf32>
    %mm = arith.mulf %m, %mu : tensor<4xf32>
    %m1 = arith.addf %mm, %ug : tensor<4xf32>
    %d = arith.mulf %m1, %lr : tensor<4xf32>
    %w1 = arith.subf %w, %d : tensor<4xf32>
    amp.yield %w1, %m1 : tensor<4xf32>, tensor<4xf32>
  }
  %ns, %nt = amp.update_scale %scale, %tracker, %found_inf
  return %nw, %nm, %ns, %nt : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

// Prints the scale, the tracker and the weights' bit patterns.
func.func @report(%w: tensor<4xf32>, %s: tensor<f32>, %t: tensor<i32>) {
  %su = tensor.cast %s : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%su) : (tensor<*xf32>) -> ()
  %tu = tensor.cast %t : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%tu) : (tensor<*xi32>) -> ()
  %bits = arith.bitcast %w : tensor<4xf32> to tensor<4xi32>
  %bu = tensor.cast %bits : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%bu) : (tensor<*xi32>) -> ()
  return
}

func.func @main() {
  %w0 = arith.constant dense<[1.0, -2.0, 0.1, 3.0]> : tensor<4xf32>
  %m0 = arith.constant dense<[0.25, 0.0, -0.125, 0.3]> : tensor<4xf32>
  %nan = arith.constant dense<[6553.6, 0x7FC00000, 1.0, 2.0]> : tensor<4xf32>
  %inf = arith.constant dense<[0x7F800000, 1.0, 1.0, 2.0]> : tensor<4xf32>
  %ninf = arith.constant dense<[1.0, 1.0, 0xFF800000, 0x7FC00000]> : tensor<4xf32>
  // 8192 * [0.5, -1, 0.25, 2]
  %good = arith.constant dense<[4096.0, -8192.0, 2048.0, 16384.0]> : tensor<4xf32>
  %s0, %t0 = amp.init_loss_scale
  call @report(%w0, %s0, %t0) : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> ()
  // CHECK: data =
  // CHECK-NEXT: [65536]
  // CHECK: [0]
  // CHECK: [1065353216,  -1073741824,  1036831949,  1077936128]

  %w1, %m1, %s1, %t1 = call @step(%w0, %m0, %nan, %s0, %t0)
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @report(%w1, %s1, %t1) : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> ()
  // CHECK: [32768]
  // CHECK: [0]
  // CHECK: [1065353216,  -1073741824,  1036831949,  1077936128]

  %w2, %m2, %s2, %t2 = call @step(%w1, %m1, %inf, %s1, %t1)
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @report(%w2, %s2, %t2) : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> ()
  // CHECK: [16384]
  // CHECK: [0]
  // CHECK: [1065353216,  -1073741824,  1036831949,  1077936128]

  %w3, %m3, %s3, %t3 = call @step(%w2, %m2, %ninf, %s2, %t2)
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @report(%w3, %s3, %t3) : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> ()
  // CHECK: [8192]
  // CHECK: [0]
  // CHECK: [1065353216,  -1073741824,  1036831949,  1077936128]
  %mb = arith.bitcast %m3 : tensor<4xf32> to tensor<4xi32>
  %mbu = tensor.cast %mb : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%mbu) : (tensor<*xi32>) -> ()
  // The momentum is untouched too: bits of [0.25, 0.0, -0.125, 0.3].
  // CHECK: [1048576000,  0,  -1107296256,  1050253722]

  // Finite step: m = 0.9 m + g/8192 = [0.725, -1, 0.1375, 2.27],
  // w = w - 0.5 m = [0.6375, -1.5, 0.03125, 1.865].
  %w4, %m4, %s4, %t4 = call @step(%w3, %m3, %good, %s3, %t3)
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
  %w4u = tensor.cast %w4 : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%w4u) : (tensor<*xf32>) -> ()
  // CHECK: [0.6375,  -1.5,  0.03125,  1.865]
  %s4u = tensor.cast %s4 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%s4u) : (tensor<*xf32>) -> ()
  // CHECK: [8192]
  %t4u = tensor.cast %t4 : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%t4u) : (tensor<*xi32>) -> ()
  // CHECK: [1]
  return
}
