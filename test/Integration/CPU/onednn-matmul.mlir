// amp-cpu-pipeline{gemm=onednn} runs matmuls on the CPU runtime's oneDNN
// primitives: f32, B transposed and accumulating into an argument, batched,
// and bf16 x bf16 -> f32 (on a CPU without AVX-512 the bf16 one stays on
// code generation, with the same numbers). Small integer values: every
// product and sum is exact, so the printed values are exact.
// REQUIRES: onednn, avx512
// RUN: amp-opt %s "--amp-cpu-pipeline=gemm=onednn autocast=0" | FileCheck %s --check-prefix=IR
// RUN: amp-opt %s "--amp-cpu-pipeline=gemm=onednn autocast=0" | amp-runner -e main --entry-point-result=void 2>&1 | FileCheck %s
// IR-DAG: llvm.call @_mlir_ciface_ampOnednnMatmul_f32_f32_f32
// IR-DAG: llvm.func @_mlir_ciface_ampOnednnMatmul_bf16_bf16_f32
// (numpy: a @ b, c + a @ bt.T, ba @ bb, a @ b)
// CHECK-NOT: reference loop
// CHECK: {{\[\[}}8,   11,   14],
// CHECK-NEXT: [24,   35,   46]]
// CHECK: {{\[\[}}108,   112,   116],
// CHECK-NEXT: [127,   139,   151]]
// CHECK: {{\[\[\[}}11,    13,    15],
// CHECK-NEXT: [23,    27,    31]],
// CHECK-NEXT: {{\[\[}}59,    70,    81],
// CHECK-NEXT: [79,    94,    109]]]
// CHECK: {{\[\[}}8,   11,   14],
// CHECK-NEXT: [24,   35,   46]]

#ab = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>

func.func @mm(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x4xf32>, tensor<4x3xf32>) outs(%f : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// C + A * Bt^T with C = 100 + iota.
func.func @mm_bt(%a: tensor<2x4xf32>, %bt: tensor<3x4xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = linalg.matmul indexing_maps = [#ab, #bt, #c] ins(%a, %bt : tensor<2x4xf32>, tensor<3x4xf32>) outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @bmm(%a: tensor<2x2x2xf32>, %b: tensor<2x2x3xf32>) -> tensor<2x2x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x2x2xf32>, tensor<2x2x3xf32>) outs(%f : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  return %r : tensor<2x2x3xf32>
}

func.func @mm_bf16(%a: tensor<2x4xbf16>, %b: tensor<4x3xbf16>) -> tensor<2x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x4xbf16>, tensor<4x3xbf16>) outs(%f : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  // A = [[0 1 2 3] [4 5 6 7]], B = [[0 1 2] [1 1 1] [2 2 2] [1 2 3]].
  %a = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<2x4xf32>
  %b = arith.constant dense<[[0.0, 1.0, 2.0], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [1.0, 2.0, 3.0]]> : tensor<4x3xf32>
  %bt = arith.constant dense<[[0.0, 1.0, 2.0, 1.0], [1.0, 1.0, 2.0, 2.0], [2.0, 1.0, 2.0, 3.0]]> : tensor<3x4xf32>
  %c = arith.constant dense<[[100.0, 101.0, 102.0], [103.0, 104.0, 105.0]]> : tensor<2x3xf32>
  %r0 = call @mm(%a, %b) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %u0 = tensor.cast %r0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %r1 = call @mm_bt(%a, %bt, %c) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %u1 = tensor.cast %r1 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %ba = arith.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
  %bb = arith.constant dense<[[[1.0, 1.0, 1.0], [5.0, 6.0, 7.0]], [[1.0, 2.0, 3.0], [9.0, 10.0, 11.0]]]> : tensor<2x2x3xf32>
  %r2 = call @bmm(%ba, %bb) : (tensor<2x2x2xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %u2 = tensor.cast %r2 : tensor<2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  %a16 = arith.truncf %a : tensor<2x4xf32> to tensor<2x4xbf16>
  %b16 = arith.truncf %b : tensor<4x3xf32> to tensor<4x3xbf16>
  %r3 = call @mm_bf16(%a16, %b16) : (tensor<2x4xbf16>, tensor<4x3xbf16>) -> tensor<2x3xf32>
  %u3 = tensor.cast %r3 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  return
}
