// A fill of a matmul's output right before it (what bufferization makes
// of a zero-initialized accumulator) is fused into the tensor-core kernel:
// the accumulators start from the fill's value instead of reading C, and
// the fill goes. Run on the CPU by utils/simt_emulator.py with --filled:
// C must be VALUE + A * B whatever C held before (the emulator would stop
// at a linalg.fill left on the host). f16 and bf16 with k loops, bf16 in
// one k step, and a batched matmul.
//
// RUN: amp-opt %s --amp-gpu-tensor-core-contractions --mlir-print-op-generic -o %t.mlir
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func fill_f16 --func fill_batched --filled 0 | FileCheck %s --check-prefix=ZERO
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func fill_bf16_one_step --filled 2.5 | FileCheck %s --check-prefix=BIAS
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func fill_bf16_loop --filled -1 | FileCheck %s --check-prefix=NEG
// RUN: not %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func fill_f16 --filled 1 | FileCheck %s --check-prefix=WRONG
// ZERO: fill_f16: 1 launch(es), 16 blocks of 128 threads, 4 mma.sync per warp, max |C - numpy| = 0
// ZERO: fill_batched: 1 launch(es), 3 blocks of 128 threads, 3 mma.sync per warp, max |C - numpy| = 0
// BIAS: fill_bf16_one_step: 1 launch(es), 1 blocks of 128 threads, 1 mma.sync per warp, max |C - numpy| = 0
// NEG: fill_bf16_loop: 1 launch(es), 4 blocks of 128 threads, 8 mma.sync per warp, max |C - numpy| = 0
// WRONG: fill_f16: {{.*}} max |C - numpy| = 1

func.func @fill_f16(%a: memref<128x64xf16>, %b: memref<64x64xf16>, %c: memref<128x64xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<128x64xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x64xf16>) outs(%c : memref<128x64xf32>)
  return
}

func.func @fill_bf16_one_step(%a: memref<32x16xbf16>, %b: memref<16x16xbf16>, %c: memref<32x16xf32>) {
  %v = arith.constant 2.5 : f32
  linalg.fill ins(%v : f32) outs(%c : memref<32x16xf32>)
  linalg.matmul ins(%a, %b : memref<32x16xbf16>, memref<16x16xbf16>) outs(%c : memref<32x16xf32>)
  return
}

func.func @fill_batched(%a: memref<3x32x48xf16>, %b: memref<3x48x16xf16>, %c: memref<3x32x16xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<3x32x16xf32>)
  linalg.batch_matmul ins(%a, %b : memref<3x32x48xf16>, memref<3x48x16xf16>) outs(%c : memref<3x32x16xf32>)
  return
}

func.func @fill_bf16_loop(%a: memref<64x128xbf16>, %b: memref<128x32xbf16>, %c: memref<64x32xf32>) {
  %v = arith.constant -1.0 : f32
  linalg.fill ins(%v : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xbf16>, memref<128x32xbf16>) outs(%c : memref<64x32xf32>)
  return
}
