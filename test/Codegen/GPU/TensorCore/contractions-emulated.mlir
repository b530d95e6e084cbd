// The tensor-core kernels of amp-gpu-tensor-core-contractions, run on the
// CPU by utils/simt_emulator.py: every thread of every block in lockstep,
// mma.sync and ldmatrix on the warp's fragments as the PTX ISA lays them
// out (written in the emulator apart from the pass), shared memory per
// block with a race check at every access (a thread reading what another
// wrote, or overwriting what another read, since the last barrier), and
// the k loop's cp.async stages (copies land late, at their wait). Each
// function's C += A * B on small integers must equal numpy's exactly.
// Covers the tilings the pass chooses: 64 x 64 warp tiles in 2 x 2-warp
// blocks with four k steps of 32, 32 x 32, 64 x 32 in 2 x 1-warp blocks
// with one k step of 16 (no loop), the 16 x 8 mma tile alone with three k
// steps of 16, one-warp blocks, in f16 (upstream's nvgpu conversion) and
// bf16 (the pass's own lowering), both with ldmatrix; and batched matmuls
// (a block per batch element along z, the batch element's matrices
// through memref.reinterpret_cast views, the accumulator carried across
// the k loop).
// python/tests/test_scripts.py checks that the emulator catches a kernel
// with a wrong fragment position and one with a barrier missing.
//
// RUN: amp-opt %s --amp-gpu-tensor-core-contractions --mlir-print-op-generic -o %t.mlir
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir | FileCheck %s

// CHECK: f16_64x64_tiles: 1 launch(es), 144 blocks of 128 threads, 256 mma.sync per warp, max |C - numpy| = 0
func.func @f16_64x64_tiles(%a: memref<1536x128xf16>, %b: memref<128x1536xf16>, %c: memref<1536x1536xf32>) {
  linalg.matmul ins(%a, %b : memref<1536x128xf16>, memref<128x1536xf16>) outs(%c : memref<1536x1536xf32>)
  return
}

// CHECK: bf16_64x64_tiles: 1 launch(es), 144 blocks of 128 threads, 256 mma.sync per warp, max |C - numpy| = 0
func.func @bf16_64x64_tiles(%a: memref<1536x128xbf16>, %b: memref<128x1536xbf16>, %c: memref<1536x1536xf32>) {
  linalg.matmul ins(%a, %b : memref<1536x128xbf16>, memref<128x1536xbf16>) outs(%c : memref<1536x1536xf32>)
  return
}

// CHECK: f16_32x32_tiles: 1 launch(es), 256 blocks of 128 threads, 32 mma.sync per warp, max |C - numpy| = 0
func.func @f16_32x32_tiles(%a: memref<1024x64xf16>, %b: memref<64x1024xf16>, %c: memref<1024x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x64xf16>, memref<64x1024xf16>) outs(%c : memref<1024x1024xf32>)
  return
}

// CHECK: bf16_wide_n: 1 launch(es), 296 blocks of 64 threads, 16 mma.sync per warp, max |C - numpy| = 0
func.func @bf16_wide_n(%a: memref<1024x16xbf16>, %b: memref<16x1184xbf16>, %c: memref<1024x1184xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x16xbf16>, memref<16x1184xbf16>) outs(%c : memref<1024x1184xf32>)
  return
}

// CHECK: f16_mma_tiles: 1 launch(es), 300 blocks of 64 threads, 3 mma.sync per warp, max |C - numpy| = 0
func.func @f16_mma_tiles(%a: memref<384x48xf16>, %b: memref<48x200xf16>, %c: memref<384x200xf32>) {
  linalg.matmul ins(%a, %b : memref<384x48xf16>, memref<48x200xf16>) outs(%c : memref<384x200xf32>)
  return
}

// CHECK: bf16_one_warp_blocks: 1 launch(es), 9 blocks of 32 threads, 2 mma.sync per warp, max |C - numpy| = 0
func.func @bf16_one_warp_blocks(%a: memref<48x32xbf16>, %b: memref<32x24xbf16>, %c: memref<48x24xf32>) {
  linalg.matmul ins(%a, %b : memref<48x32xbf16>, memref<32x24xbf16>) outs(%c : memref<48x24xf32>)
  return
}

// 16 k steps through 4 stages (32 x 16 block tiles, 6.5 KiB a stage):
// every stage reused four times, the last three steps' copies clamped;
// then 3 k steps through 3 stages in bf16.
// CHECK: f16_four_stages: 1 launch(es), 64 blocks of 128 threads, 32 mma.sync per warp, max |C - numpy| = 0
func.func @f16_four_stages(%a: memref<256x512xf16>, %b: memref<512x128xf16>, %c: memref<256x128xf32>) {
  linalg.matmul ins(%a, %b : memref<256x512xf16>, memref<512x128xf16>) outs(%c : memref<256x128xf32>)
  return
}

// CHECK: bf16_three_stages: 1 launch(es), 16 blocks of 128 threads, 6 mma.sync per warp, max |C - numpy| = 0
func.func @bf16_three_stages(%a: memref<128x96xbf16>, %b: memref<96x64xbf16>, %c: memref<128x64xf32>) {
  linalg.matmul ins(%a, %b : memref<128x96xbf16>, memref<96x64xbf16>) outs(%c : memref<128x64xf32>)
  return
}

// CHECK: f16_small: 1 launch(es), 4 blocks of 128 threads, 8 mma.sync per warp, max |C - numpy| = 0
func.func @f16_small(%a: memref<64x128xf16>, %b: memref<128x32xf16>, %c: memref<64x32xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%c : memref<64x32xf32>)
  return
}

// Attention's scores (q k^T per head), batched: 33 batch elements of
// 256 x 256 keep the 64 x 64 warp tiles in 2 x 2-warp blocks (528 warps),
// the accumulators of views carried across 2 k steps.
// CHECK: batched_64x64_tiles: 1 launch(es), 132 blocks of 128 threads, 128 mma.sync per warp, max |C - numpy| = 0
func.func @batched_64x64_tiles(%q: memref<33x256x64xf16>, %k: memref<33x64x256xf16>, %s: memref<33x256x256xf32>) {
  linalg.batch_matmul ins(%q, %k : memref<33x256x64xf16>, memref<33x64x256xf16>) outs(%s : memref<33x256x256xf32>)
  return
}

// Two batch elements: smaller warp tiles for parallelism, 16 x 8 here.
// CHECK: batched_scores_f16: 1 launch(es), 256 blocks of 128 threads, 4 mma.sync per warp, max |C - numpy| = 0
func.func @batched_scores_f16(%q: memref<2x256x64xf16>, %k: memref<2x64x256xf16>, %s: memref<2x256x256xf32>) {
  linalg.batch_matmul ins(%q, %k : memref<2x256x64xf16>, memref<2x64x256xf16>) outs(%s : memref<2x256x256xf32>)
  return
}

// Values (p v) in bf16: eight k steps of 32.
// CHECK: batched_values_bf16: 1 launch(es), 64 blocks of 128 threads, 16 mma.sync per warp, max |C - numpy| = 0
func.func @batched_values_bf16(%p: memref<2x256x256xbf16>, %v: memref<2x256x64xbf16>, %o: memref<2x256x64xf32>) {
  linalg.batch_matmul ins(%p, %v : memref<2x256x256xbf16>, memref<2x256x64xbf16>) outs(%o : memref<2x256x64xf32>)
  return
}

// One k step (no loop): the copies to shared memory come after the views.
// CHECK: batched_one_step_bf16: 1 launch(es), 5 blocks of 32 threads, 1 mma.sync per warp, max |C - numpy| = 0
func.func @batched_one_step_bf16(%a: memref<5x16x16xbf16>, %b: memref<5x16x8xbf16>, %c: memref<5x16x8xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<5x16x16xbf16>, memref<5x16x8xbf16>) outs(%c : memref<5x16x8xf32>)
  return
}
