// Float ops NVPTX has no instruction for reach libdevice inside kernels:
// arith.remf becomes __nv_fmodf (convert-gpu-to-nvvm), which upstream's
// gpu-lower-to-nvvm-pipeline order cannot do (its module-wide
// convert-arith-to-llvm makes llvm.frem first, which the NVVM conversion
// rejects). On the host, arith.remf stays LLVM's frem. ptxas accepts the
// kernels, and libdevice is linked in (no external function is left).
//
// REQUIRES: ptxas
// RUN: amp-opt %s --amp-cuda-pipeline=format=isa -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %python %amp_src_root/utils/extract_ptx.py %t.mlir %t --ptxas %ptxas --arch sm_90 | FileCheck %s
// RUN: cat %t/*.ptx | FileCheck %s --check-prefix=PTX

// CHECK: ptxas -arch=sm_90: ok
// PTX: .visible .entry
// PTX-NOT: .extern .func
// PTX: cvt.rzi.f32.f32

// HOST-LABEL: llvm.func @host_remainder
// HOST: llvm.frem

func.func @remainder(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = arith.remf %a, %b : tensor<1024xf32>
  return %r : tensor<1024xf32>
}

func.func @host_remainder(%a: f32, %b: f32) -> f32 {
  %r = arith.remf %a, %b : f32
  return %r : f32
}
