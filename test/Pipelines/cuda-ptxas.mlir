// Every kernel amp-cuda-pipeline makes of a real model (resnet18: im2col-free
// convolutions, batch norm, pooling, the classifier) and of an f16 autocast
// layer is PTX that CUDA's assembler accepts for sm_90.
//
// REQUIRES: ptxas
// RUN: amp-opt %models/resnet18.mlir --amp-cuda-pipeline=format=isa -o %t.resnet18.mlir
// RUN: %python %amp_src_root/utils/extract_ptx.py %t.resnet18.mlir %t.resnet18 --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=RESNET
// RUN: amp-opt %s --amp-cuda-pipeline=format=isa -o %t.layer.mlir
// RUN: %python %amp_src_root/utils/extract_ptx.py %t.layer.mlir %t.layer --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=LAYER
// RUN: cat %t.layer/*.ptx | FileCheck %s --check-prefix=PTX
// RUN: amp-opt %S/../Integration/CPU/matmul-fragment-layout.mlir --amp-cuda-pipeline=format=isa -o %t.layout.mlir
// RUN: %python %amp_src_root/utils/extract_ptx.py %t.layout.mlir %t.layout --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=LAYOUT
// RUN: cat %t.layout/*.ptx | FileCheck %s --check-prefix=LAYOUT-PTX
// RUN: cat %t.layout/f16*.ptx | FileCheck %s --check-prefix=ACC-IN-REGISTERS
// RUN: cat %t.layout/bf16*.ptx | FileCheck %s --check-prefix=ACC-IN-REGISTERS
// RUN: amp-opt %s --amp-cuda-pipeline="format=isa chip=sm_80" -o %t.sm80.mlir
// The other real models compile too (their 0-d fills, depthwise and
// grouped convolutions, hard swish and squeeze-excitation blocks):
// RUN: amp-opt %models/mobilenet_v2.mlir --amp-cuda-pipeline=format=isa | FileCheck %s --check-prefix=MODEL
// RUN: amp-opt %models/efficientnet_b0.mlir --amp-cuda-pipeline=format=isa | FileCheck %s --check-prefix=MODEL
// RUN: %python %amp_src_root/utils/extract_ptx.py %t.sm80.mlir %t.sm80 --ptxas %ptxas --arch sm_80 | FileCheck %s --check-prefix=LAYER

// RESNET-COUNT-60: ptxas -arch=sm_90: ok
// MODEL: llvm.func @forward(
// MODEL: gpu.binary @forward__amp_managed_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx{{[0-9]+}}">, {{.*}}assembly = "
// LAYER-COUNT-3: ptxas -arch={{sm_[89]0}}: ok

// LAYOUT: ptxas -arch=sm_90: ok
// The f16 and the bf16 matmul of test/Integration/CPU/matmul-fragment-layout.mlir.
// LAYOUT-PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// LAYOUT-PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// Their A and B tiles staged in 16-byte aligned shared memory by cp.async
// (16-byte copies bypassing L1), a commit group per k step, waited for;
// fragments through ldmatrix (B transposed).
// LAYOUT-PTX-DAG: .shared .align 16 .b8
// LAYOUT-PTX-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// LAYOUT-PTX-DAG: cp.async.commit_group
// LAYOUT-PTX-DAG: cp.async.wait_group
// LAYOUT-PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// LAYOUT-PTX-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// LAYOUT-PTX-DAG: bar.sync

// In both, the k loop (mma.sync, then the branch back) stores nothing: each
// lane's four f32 accumulators are stored once after it.
// ACC-IN-REGISTERS: mma.sync.aligned.m16n8k16.row.col.f32
// ACC-IN-REGISTERS-NOT: st.global
// ACC-IN-REGISTERS: bra
// ACC-IN-REGISTERS-NOT: mma.sync
// ACC-IN-REGISTERS-COUNT-4: st.global.b32
// ACC-IN-REGISTERS-NEXT: ret;

// PTX: .visible .entry
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

func.func @layer(%x: tensor<32x64xf32>, %w: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<32x16xf32> {
    %z = tensor.empty() : tensor<32x16xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<32x16xf32>) -> tensor<32x16xf32>
    %y = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x16xf32>) outs(%zf : tensor<32x16xf32>) -> tensor<32x16xf32>
    %t = math.tanh %y : tensor<32x16xf32>
    amp.yield %t : tensor<32x16xf32>
  }
  return %r : tensor<32x16xf32>
}
