// RUN: amp-opt %s -split-input-file --amp-gpu-tensor-core-contractions -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-gpu-tensor-core-contractions=chip=sm_75 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: not amp-opt %s --amp-gpu-tensor-core-contractions=chip=volta 2>&1 | FileCheck %s --check-prefix=CHIP

// One block of one warp per 16x8 output tile, k in steps of 16, one
// m16n8k16 mma.sync with f16 operands and f32 accumulators per step.
// CHECK-LABEL: func @f16_matmul
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c4, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c1, {{.*}} = %c1)
// CHECK: scf.for {{.*}} = %c0 to %c128 step %c16
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT: linalg.matmul
// SM75: warning: amp-gpu-tensor-core-contractions: sm_75 has no mma.sync m16n8k16 (sm_80+); this contraction runs as SIMT code with f32 accumulation
// SM75-LABEL: func @f16_matmul
// SM75-NOT: gpu.launch
// SM75: linalg.matmul
// CHIP: amp-gpu-tensor-core-contractions: chip must be sm_<NN>[a], got 'volta'
func.func @f16_matmul(%a: memref<64x128xf16>, %b: memref<128x32xf16>, %c: memref<64x32xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%c : memref<64x32xf32>)
  return
}

// -----

// Other matmuls stay for the SIMT path, each with the reason.
// CHECK-LABEL: func @fallbacks
// CHECK-NOT: gpu.launch
// CHECK-COUNT-4: linalg.matmul
func.func @fallbacks(%a: memref<10x16xf16>, %b: memref<16x8xf16>, %c: memref<10x8xf32>,
                     %d: memref<32x16xbf16>, %e: memref<16x8xbf16>, %f: memref<32x8xf32>,
                     %g: memref<?x16xf16>, %h: memref<?x8xf32>,
                     %i: memref<16x16xf32>, %j: memref<16x8xf32>, %k: memref<16x8xf32>) {
  // expected-remark @below {{10x8x16 is not a multiple of the 16x8x16 mma tile; SIMT fallback}}
  linalg.matmul ins(%a, %b : memref<10x16xf16>, memref<16x8xf16>) outs(%c : memref<10x8xf32>)
  // expected-remark @below {{bf16 mma.sync fragments are not supported by convert-vector-to-gpu in MLIR 22; SIMT fallback with f32 accumulation}}
  linalg.matmul ins(%d, %e : memref<32x16xbf16>, memref<16x8xbf16>) outs(%f : memref<32x8xf32>)
  // expected-remark @below {{dynamic shape or strided layout; SIMT fallback}}
  linalg.matmul ins(%g, %b : memref<?x16xf16>, memref<16x8xf16>) outs(%h : memref<?x8xf32>)
  // f32 matmuls are not autocast contractions: no remark.
  linalg.matmul ins(%i, %j : memref<16x16xf32>, memref<16x8xf32>) outs(%k : memref<16x8xf32>)
  return
}

// -----

// A transposed A (k x m in memory): not the plain row-major form.
// CHECK-LABEL: func @transposed
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
func.func @transposed(%a: memref<32x32xf16>, %b: memref<32x16xf16>, %c: memref<32x16xf32>) {
  // expected-remark @below {{amp-gpu-tensor-core-contractions: transposed or broadcast operands; SIMT fallback}}
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                 affine_map<(d0, d1, d2) -> (d2, d1)>,
                                 affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%a, %b : memref<32x32xf16>, memref<32x16xf16>) outs(%c : memref<32x16xf32>)
  return
}
