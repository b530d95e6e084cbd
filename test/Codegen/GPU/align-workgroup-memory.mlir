// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(amp-gpu-align-workgroup-memory))" | FileCheck %s

// Every workgroup attribution gets a 16-byte alignment; a larger one stays,
// a smaller one is raised. Private attributions are not shared memory and
// are left alone.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME: workgroup(%{{.*}} : memref<32x40xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64}, %{{.*}} : memref<4xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: private(%{{.*}} : memref<2xf32, #gpu.address_space<private>>)
// CHECK-SAME: kernel
gpu.module @kernels {
  gpu.func @kernel() workgroup(%a : memref<32x40xf16, #gpu.address_space<workgroup>>,
                               %b : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                               %c : memref<4xi8, #gpu.address_space<workgroup>> {llvm.align = 4 : i64})
                     private(%p : memref<2xf32, #gpu.address_space<private>>) kernel {
    gpu.return
  }
}

// -----

// Through convert-gpu-to-nvvm: the shared-memory global carries it.
// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(gpu.module(amp-gpu-align-workgroup-memory,convert-gpu-to-nvvm))" | FileCheck %s --check-prefix=NVVM
// NVVM: llvm.mlir.global internal @__wg_staged_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1280 x f16>
gpu.module @kernels {
  gpu.func @staged() workgroup(%a : memref<32x40xf16, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
}
