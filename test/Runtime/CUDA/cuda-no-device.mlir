// On a machine without an NVIDIA driver, the first call into the project's
// CUDA runtime (linked into amp-runner) stops the program with a clear
// message and exit status 1, not a crash.
//
// UNSUPPORTED: cuda-device
// RUN: amp-opt %s --amp-cpu-pipeline | not amp-runner -e main --entry-point-result=void 2>&1 | FileCheck %s

// CHECK: amp-cuda-runtime: cannot load the CUDA driver (libcuda.so.1):
// CHECK-NEXT: amp-cuda-runtime: no NVIDIA driver on this machine: GPU code cannot run here

func.func private @mgpuStreamCreate() -> !llvm.ptr
func.func private @printF32(f32)

func.func @main() {
  %s = call @mgpuStreamCreate() : () -> !llvm.ptr
  // Never reached.
  %c = arith.constant 1.0 : f32
  call @printF32(%c) : (f32) -> ()
  return
}
