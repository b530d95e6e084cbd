// An elementwise op on a matmul's output right after it (keep-narrow-
// rounding's f32 -> f16/bf16 -> f32 rounding of an autocast matmul's
// result) is applied by the tensor-core kernel to its accumulators before
// it stores them, and the op goes. Run on the CPU by utils/simt_emulator.py
// with --round-output: C must be A * B (+ C, or the fill) rounded to the
// type (the emulator would stop at a linalg.generic left on the host).
// With k = 1024 the sums (of products of integers in [-3, 3]) spread to
// a few hundred, beyond bf16's 8 significant bits; the f16 matmul starts
// from a fill of 3001, beyond f16's 11 bits: the rounding shows, and the
// same kernels against the unrounded product differ. The last function
// runs its fill, matmul and rounding three times in a loop around the
// launch (both still fused).
//
// RUN: amp-opt %s --amp-gpu-tensor-core-contractions --mlir-print-op-generic -o %t.mlir
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func round_bf16 --func round_bf16_batched --round-output bf16 | FileCheck %s --check-prefix=BF16
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func round_f16_filled --func round_f16_in_loop --filled 3001 --round-output f16 | FileCheck %s --check-prefix=F16
// RUN: not %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func round_bf16 | FileCheck %s --check-prefix=UNROUNDED
// RUN: not %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func round_f16_filled --filled 3001 | FileCheck %s --check-prefix=UNROUNDED
// BF16: round_bf16: 1 launch(es), {{.*}} max |C - numpy| = 0
// BF16: round_bf16_batched: 1 launch(es), {{.*}} max |C - numpy| = 0
// F16: round_f16_filled: 1 launch(es), {{.*}} max |C - numpy| = 0
// F16: round_f16_in_loop: 3 launch(es), {{.*}} max |C - numpy| = 0
// UNROUNDED: max |C - numpy| = {{[1-9]}}

#id = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @round_bf16(%a: memref<128x1024xbf16>, %b: memref<1024x64xbf16>, %c: memref<128x64xf32>) {
  linalg.matmul ins(%a, %b : memref<128x1024xbf16>, memref<1024x64xbf16>) outs(%c : memref<128x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<128x64xf32>) outs(%c : memref<128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    linalg.yield %e : f32
  }
  return
}

func.func @round_bf16_batched(%a: memref<3x64x1024xbf16>, %b: memref<3x1024x32xbf16>, %c: memref<3x64x32xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x64x1024xbf16>, memref<3x1024x32xbf16>) outs(%c : memref<3x64x32xf32>)
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : memref<3x64x32xf32>) outs(%c : memref<3x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    linalg.yield %e : f32
  }
  return
}

func.func @round_f16_filled(%a: memref<64x512xf16>, %b: memref<512x64xf16>, %c: memref<64x64xf32>) {
  %z = arith.constant 3001.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x512xf16>, memref<512x64xf16>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to f16
    %e = arith.extf %t : f16 to f32
    linalg.yield %e : f32
  }
  return
}

func.func @round_f16_in_loop(%a: memref<64x512xf16>, %b: memref<512x64xf16>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 3001.0 : f32
  scf.for %i = %c0 to %c3 step %c1 {
    linalg.fill ins(%z : f32) outs(%c : memref<64x64xf32>)
    linalg.matmul ins(%a, %b : memref<64x512xf16>, memref<512x64xf16>) outs(%c : memref<64x64xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %t = arith.truncf %in : f32 to f16
      %e = arith.extf %t : f16 to f32
      linalg.yield %e : f32
    }
  }
  return
}
