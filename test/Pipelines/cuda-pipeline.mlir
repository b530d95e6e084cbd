// amp-cuda-pipeline on an autocast(cuda) layer: the f16 matmul runs on
// tensor cores (mma.sync m16n8k16, f16 operands, f32 accumulators), bias +
// exp run as SIMT kernels, buffers are managed memory, and the kernels are
// PTX for sm_90.
//
// RUN: amp-opt %s --amp-cuda-pipeline=format=isa | FileCheck %s
// RUN: amp-opt %s --amp-cuda-pipeline="format=isa chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: amp-opt %s --amp-cuda-pipeline="format=isa chip=sm_75" 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: not amp-opt %s --amp-cuda-pipeline=chip=sm_61 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not amp-opt %s --amp-cuda-pipeline=chip=sm_80a 2>&1 | FileCheck %s --check-prefix=CHIPA
// RUN: not amp-opt %s --amp-cuda-pipeline=toolkit=/nonexistent 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: amp-opt %s --amp-cuda-pipeline="format=isa chip=sm_100f" | FileCheck %s --check-prefix=SM100F
// RUN: amp-opt %s --amp-cuda-pipeline="gemm=cublas format=isa" | FileCheck %s --check-prefix=CUBLAS
// RUN: not amp-opt %s --amp-cuda-pipeline=gemm=magic 2>&1 | FileCheck %s --check-prefix=GEMM
// RUN: not amp-opt %s --amp-cuda-pipeline=format=elf 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not amp-opt %s --amp-cuda-pipeline=mode=fast 2>&1 | FileCheck %s --check-prefix=MODE

// CHECK-NOT: amp.
// CHECK-DAG: llvm.func @layer(
// CHECK-DAG: gpu.binary @layer__amp_managed_kernel
// CHECK-DAG: llvm.call @mgpuMemAlloc
// CHECK-DAG: llvm.call @mgpuMemFree
// CHECK-DAG: gpu.launch_func <%{{.*}} : !llvm.ptr> @layer__amp_managed_kernel::@layer__amp_managed_kernel
// The PTX: the ISA version of sm_90 and one tensor-core kernel.
// CHECK-DAG: .version 8.0
// CHECK-DAG: .target sm_90
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// SM80: .version 7.0
// SM80: .target sm_80
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// sm_75 has no m16n8k16 mma.sync: the matmul is a SIMT kernel, with a
// warning, and still accumulates in f32.
// SM75: warning: amp-gpu-tensor-core-contractions: sm_75 has no mma.sync m16n8k16 (sm_80+); this contraction runs as SIMT code with f32 accumulation
// SM75-NOT: mma.sync
// SM75: .target sm_75
// SM75-NOT: mma.sync

// CHIP: amp-cuda-pipeline: unknown chip 'sm_61' (sm_75, sm_80, sm_86, sm_87, sm_89, sm_90[a], sm_100[a|f], sm_101[a], sm_103[a], sm_120[a|f], sm_121[a])
// CHIPA: amp-cuda-pipeline: unknown chip 'sm_80a'
// TOOLKIT: amp-cuda-pipeline: toolkit '/nonexistent' has no nvvm/libdevice/libdevice.10.bc
// SM100F: .version 8.8
// SM100F: .target sm_100f
// With gemm=cublas the matmul is a call into the CUDA runtime's
// cublasGemmEx wrapper (fp32 compute); only the SIMT kernels remain.
// CUBLAS-DAG: llvm.call @_mlir_ciface_ampCublasMatmulF16F32(
// CUBLAS-DAG: llvm.func @_mlir_ciface_ampCublasMatmulF16F32(!llvm.ptr, !llvm.ptr, !llvm.ptr, f32)
// CUBLAS-NOT: mma.sync
// GEMM: amp-cuda-pipeline: gemm must be codegen or cublas, got 'magic'
// FORMAT: amp-cuda-pipeline: format must be isa, bin or fatbin, got 'elf'
// MODE: amp-cuda-pipeline: mode must be 'graph' or 'eager', got 'fast'

func.func @layer(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>, %b: tensor<32xf32>) -> tensor<64x32xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<64x32xf32> {
    %z = tensor.empty() : tensor<64x32xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
    %y = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x32xf32>) outs(%zf : tensor<64x32xf32>) -> tensor<64x32xf32>
    %bb = linalg.broadcast ins(%b : tensor<32xf32>) outs(%z : tensor<64x32xf32>) dimensions = [0]
    %s = arith.addf %y, %bb : tensor<64x32xf32>
    %e = math.exp %s : tensor<64x32xf32>
    amp.yield %e : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}
