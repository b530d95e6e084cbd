// Two ranks under mpirun run one data-parallel, loss-scaled SGD step twice.
// Rank r's gradient is (r + 1) * [1, 2, 3, 4] (times the loss scale): both
// ranks apply the mean, 1.5 * [1, 2, 3, 4]. In the second step rank 1's
// gradient is inf: both ranks skip the update and halve the scale. Each
// rank prints the same bit patterns.
//
// REQUIRES: mpirun
// RUN: amp-opt %s --amp-cpu-pipeline -o %t.mlir
// RUN: %mpirun -np 2 --tag-output amp-runner %t.mlir -e main --entry-point-result=void --shared-libs=%mpi_library > %t.out
// RUN: grep '^\[[0-9]*,0\]' %t.out | FileCheck %s
// RUN: grep '^\[[0-9]*,1\]' %t.out | FileCheck %s

shard.grid @amp_dp(shape = 2)

// The data-parallel step as amp_mlir.training builds it: the unscaled
// gradient's mean over the ranks, and the skip decision taken on the max of
// the ranks' found_inf flags.
func.func @step(%w: tensor<4xf32>, %g: tensor<4xf32>, %scale: tensor<f32>,
                %tracker: tensor<i32>) -> (tensor<4xf32>, tensor<f32>, tensor<i32>) {
  %ug, %found_inf = amp.unscale %g by %scale : tensor<4xf32>
  %sum = shard.all_reduce %ug on @amp_dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %mean = arith.divf %sum, %two : tensor<4xf32>
  %flag = arith.extui %found_inf : i1 to i32
  %flags = tensor.from_elements %flag : tensor<1xi32>
  %any = shard.all_reduce %flags on @amp_dp grid_axes = [0] reduction = max : tensor<1xi32> -> tensor<1xi32>
  %c0 = arith.constant 0 : index
  %anyi = tensor.extract %any[%c0] : tensor<1xi32>
  %zero = arith.constant 0 : i32
  %found_any = arith.cmpi ne, %anyi, %zero : i32
  %nw = amp.step_if_finite %found_any keep(%w : tensor<4xf32>) {
    %lr = arith.constant dense<0.5> : tensor<4xf32>
    %d = arith.mulf %mean, %lr : tensor<4xf32>
    %w1 = arith.subf %w, %d : tensor<4xf32>
    amp.yield %w1 : tensor<4xf32>
  }
  %ns, %nt = amp.update_scale %scale, %tracker, %found_any
  return %nw, %ns, %nt : tensor<4xf32>, tensor<f32>, tensor<i32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

func.func @report(%w: tensor<4xf32>, %s: tensor<f32>) {
  %su = tensor.cast %s : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%su) : (tensor<*xf32>) -> ()
  %bits = arith.bitcast %w : tensor<4xf32> to tensor<4xi32>
  %bu = tensor.cast %bits : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%bu) : (tensor<*xi32>) -> ()
  return
}

func.func @main() {
  mpi.init
  %world = mpi.comm_world : !mpi.comm
  %rank = mpi.comm_rank(%world) : i32
  %one = arith.constant 1.0 : f32
  %rf = arith.sitofp %rank : i32 to f32
  %k = arith.addf %rf, %one : f32
  %empty = tensor.empty() : tensor<4xf32>
  %kt = linalg.fill ins(%k : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %base = arith.constant dense<[65536.0, 131072.0, 196608.0, 262144.0]> : tensor<4xf32>
  %g1 = arith.mulf %kt, %base : tensor<4xf32>
  %w0 = arith.constant dense<[1.0, -2.0, 0.1, 3.0]> : tensor<4xf32>
  %s0, %t0 = amp.init_loss_scale

  // w1 = w0 - 0.5 * 1.5 * [1, 2, 3, 4] = [0.25, -3.5, -2.15, 0]
  %w1, %s1, %t1 = call @step(%w0, %g1, %s0, %t0)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
      -> (tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @report(%w1, %s1) : (tensor<4xf32>, tensor<f32>) -> ()
  // CHECK: [65536]
  // CHECK: [1048576000,  -1067450368,  -1073112678,  0]

  // Rank 1's gradient is inf: both skip (w unchanged) and halve the scale.
  %c1 = arith.constant 1 : i32
  %is1 = arith.cmpi eq, %rank, %c1 : i32
  %inf = arith.constant 0x7F800000 : f32
  %f = arith.select %is1, %inf, %one : f32
  %ft = linalg.fill ins(%f : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %g2 = arith.mulf %g1, %ft : tensor<4xf32>
  %w2, %s2, %t2 = call @step(%w1, %g2, %s1, %t1)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<i32>)
      -> (tensor<4xf32>, tensor<f32>, tensor<i32>)
  call @report(%w2, %s2) : (tensor<4xf32>, tensor<f32>) -> ()
  // CHECK: [32768]
  // CHECK: [1048576000,  -1067450368,  -1073112678,  0]
  mpi.finalize
  return
}
