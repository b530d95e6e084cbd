// The copies of amp-cuda-pipeline's host code run on the device: the
// buffer copy bufferization puts in a loop (the loop-carried value is
// yielded from a buffer allocated outside it) is a kernel
// (amp-gpu-copies-to-linalg), and the host-memory wrapper copies its
// argument in and its result out with the copy engine (mgpuMemcpy); no
// memrefCopy, which would run on the host over managed memory, is left.
// The argument, only read, is not copied back.
//
// RUN: amp-opt %s --amp-cuda-pipeline=format=isa | FileCheck %s

// CHECK-LABEL: llvm.func @loop(
// CHECK-COUNT-2: llvm.call @mgpuMemcpy
// CHECK-NOT: llvm.call @mgpuMemcpy
// CHECK-LABEL: llvm.func @loop__amp_managed(
// CHECK-NOT: memrefCopy
// CHECK: gpu.binary @loop__amp_managed_kernel
// CHECK-NOT: memrefCopy
func.func @loop(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %x) -> (tensor<1024xf32>) {
    %h = arith.truncf %acc : tensor<1024xf32> to tensor<1024xf16>
    %w = arith.extf %h : tensor<1024xf16> to tensor<1024xf32>
    scf.yield %w : tensor<1024xf32>
  }
  return %r : tensor<1024xf32>
}
