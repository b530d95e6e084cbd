// amp-cpu-pipeline: autocast IR down to the LLVM dialect; bad options are
// rejected with a message.
// RUN: amp-opt %s --amp-cpu-pipeline=cpu-features=generic | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline="parallel=false cpu-features=generic" | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=cpu-features=avx512bf16 | FileCheck %s --check-prefix=DOT
// RUN: amp-opt %s --amp-cpu-pipeline="mode=eager cpu-features=generic cache-tile=32,32,32 register-tile=4,8,4" | FileCheck %s --check-prefix=PAR
// RUN: amp-opt %s --amp-cpu-pipeline="cache-tile=32,32,32 parallel=false cpu-features=generic" | FileCheck %s --check-prefix=SEQ
// RUN: not amp-opt %s --amp-cpu-pipeline=mode=fast 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not amp-opt %s --amp-cpu-pipeline=cpu-features=sse 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not amp-opt %s --amp-cpu-pipeline=register-tile=4,8 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not amp-opt %s --amp-cpu-pipeline=cache-tile=0,8,8 2>&1 | FileCheck %s --check-prefix=CTILE

// Only LLVM dialect ops remain; the contraction became vector FMAs on
// f32 (bf16 inputs extended in registers), the result rounded to bf16 with
// integer code (round to nearest even) and extended back.
// CHECK-LABEL: llvm.func @mm
// CHECK-NOT: linalg.
// CHECK-NOT: vector.
// CHECK-NOT: amp.
// CHECK: llvm.intr.fmuladd{{.*}}vector<{{[0-9]+}}xf32>
// CHECK-LABEL: llvm.func @_mlir_ciface_mm

// With AVX512-BF16 the autocast bf16 x bf16 -> f32 matmul is vdpbf16ps
// (B packed in VNNI layout, x86vector.avx512.dot lowered to its intrinsic);
// the f32 @big keeps FMAs.
// DOT-LABEL: llvm.func @mm
// DOT-NOT: vector.
// DOT-NOT: x86vector.
// DOT: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"({{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// DOT-NOT: llvm.intr.fmuladd
// DOT-LABEL: llvm.func @_mlir_ciface_mm
// DOT-LABEL: llvm.func @big
// DOT-NOT: dpbf16ps
// DOT: llvm.intr.fmuladd{{.*}}vector<16xf32>
// DOT-NOT: dpbf16ps

// With 32x32 cache tiles the 8x8 tiles of the 256^3 matmul (2^25 flops, the
// threshold) are the iterations of one OpenMP worksharing loop (both tile
// dimensions collapsed), with the FMAs of the 4x8 register tiles inside.
// The 64^3 @mm is too small to be worth threads.
// PAR-LABEL: llvm.func @mm
// PAR-NOT: omp.
// PAR-LABEL: llvm.func @big
// B's 16-column panels are packed first, by a parallel loop over the panels.
// PAR: omp.parallel {
// PAR-NEXT: omp.wsloop {
// PAR-NEXT: omp.loop_nest ({{.*}}) : i64 = ({{.*}}) to ({{.*}}) step ({{.*}}) {
// PAR: omp.parallel {
// PAR-NEXT: omp.wsloop {
// PAR-NEXT: omp.loop_nest ({{.*}}) : i64 = ({{.*}}) to ({{.*}}) step ({{.*}}) collapse(2) {
// PAR: llvm.intr.fmuladd{{.*}}vector<8xf32>
// PAR: omp.yield
// PAR: omp.terminator
// SEQ-LABEL: llvm.func @mm
// SEQ-NOT: omp.
// SEQ: llvm.intr.fmuladd{{.*}}vector<16xf32>
// SEQ-LABEL: llvm.func @_mlir_ciface_mm
// MODE: amp-cpu-pipeline: mode must be 'graph' or 'eager', got 'fast'
// FEATURES: amp-cpu-pipeline: cpu-features must be host, generic, avx512bf16 or amx, got 'sse'
// TILE: amp-cpu-pipeline: register-tile takes three positive sizes (m, n, k)
// CTILE: amp-cpu-pipeline: cache-tile takes three positive sizes (m, n, k)

func.func @mm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {amp.autocast = #amp.autocast<device_type = cpu>, llvm.emit_c_interface} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}
// AMX tiles for the autocast (bf16) matmul, and no warning.
// RUN: amp-opt %s --amp-cpu-pipeline=cpu-features=amx 2>&1 | FileCheck %s --check-prefix=AMX
// AMX-NOT: warning
// AMX-LABEL: llvm.func @mm(
// AMX: llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// AMX: llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
// AMX: llvm.call_intrinsic "llvm.x86.tilestored64.internal"

func.func @big(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %m : tensor<256x256xf32>
}
