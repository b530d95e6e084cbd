// amp-cuda-pipeline leaves no loads or stores of buffers in host code for a
// loss-style computation (a mean over a batch, 0-d arithmetic, an inf/NaN
// check): amp-gpu-scalar-kernels makes them kernels, so the host never
// reads managed memory and never waits for the stream but at the end
// (amp-gpu-async-launches).
//
// RUN: amp-opt %s --amp-cuda-pipeline=format=isa | FileCheck %s

// CHECK-LABEL: llvm.func @loss__amp_managed(
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: gpu.launch_func <%[[S:.*]] : !llvm.ptr> @loss__amp_managed_kernel
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK-NOT: llvm.call @mgpuStreamSynchronize
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: llvm.return
// The reduction kernel: warp shuffles and a block barrier (gpu.all_reduce).
// CHECK: shfl.sync.bfly
// CHECK: bar.sync
func.func @loss(%x: tensor<1024x16xf32>, %scale: tensor<f32>) -> (tensor<f32>, tensor<i1>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%x : tensor<1024x16xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %n = arith.constant dense<6.103515625e-05> : tensor<f32>
  %mean = arith.mulf %s, %n : tensor<f32>
  %scaled = arith.mulf %mean, %scale : tensor<f32>
  %false = arith.constant false
  %inf = arith.constant 0x7F800000 : f32
  %eb = tensor.empty() : tensor<i1>
  %fb = linalg.fill ins(%false : i1) outs(%eb : tensor<i1>) -> tensor<i1>
  %any = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1024x16xf32>) outs(%fb : tensor<i1>) {
    ^bb0(%in: f32, %acc: i1):
      %a = math.absf %in : f32
      %c = arith.cmpf uge, %a, %inf : f32
      %o = arith.ori %acc, %c : i1
      linalg.yield %o : i1
  } -> tensor<i1>
  return %scaled, %any : tensor<f32>, tensor<i1>
}
