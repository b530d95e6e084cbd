// The AVX512-BF16 path (vdpbf16ps on VNNI-packed B) JIT-run: a 10x7 by 7x40
// bf16 matmul (odd K: a zero-padded last pair; N = 40 in one 48-wide
// panel; 10 rows: a 6-row tile and a 4-row remainder) and the same product
// with B transposed (40x7), accumulating into C = 0.25. A[i][k] = k + 1,
// B = 0.5: every element is 0.5 * (1 + ... + 7) = 14 (14.25 with C), exact
// in bf16 products and f32 sums. The second RUN gives the FMA path
// (cpu-features=generic) the same checks; test_cpu_bf16_dot.py runs more
// shapes on both paths.
// REQUIRES: avx512bf16
// RUN: amp-opt %s --amp-cpu-pipeline=cpu-features=avx512bf16 | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=cpu-features=generic | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 14
// CHECK-NEXT: 14
// CHECK-NEXT: 14
// CHECK-NEXT: 14.25
// CHECK-NEXT: 14.25
// CHECK-NEXT: 14.25

func.func @mm(%a: tensor<10x7xbf16>, %b: tensor<7x40xbf16>) -> tensor<10x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<10x40xf32>) -> tensor<10x40xf32>
  %m = linalg.matmul ins(%a, %b : tensor<10x7xbf16>, tensor<7x40xbf16>) outs(%f : tensor<10x40xf32>) -> tensor<10x40xf32>
  return %m : tensor<10x40xf32>
}

func.func @mm_bt(%a: tensor<10x7xbf16>, %bt: tensor<40x7xbf16>, %c: tensor<10x40xf32>) -> tensor<10x40xf32> {
  %m = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %bt : tensor<10x7xbf16>, tensor<40x7xbf16>) outs(%c : tensor<10x40xf32>) -> tensor<10x40xf32>
  return %m : tensor<10x40xf32>
}

func.func @main() {
  %row = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<7xbf16>
  %ae = tensor.empty() : tensor<10x7xbf16>
  %a = linalg.broadcast ins(%row : tensor<7xbf16>) outs(%ae : tensor<10x7xbf16>) dimensions = [0]
  %b = arith.constant dense<0.5> : tensor<7x40xbf16>
  %bt = arith.constant dense<0.5> : tensor<40x7xbf16>
  %c = arith.constant dense<0.25> : tensor<10x40xf32>
  %r = call @mm(%a, %b) : (tensor<10x7xbf16>, tensor<7x40xbf16>) -> tensor<10x40xf32>
  %s = call @mm_bt(%a, %bt, %c) : (tensor<10x7xbf16>, tensor<40x7xbf16>, tensor<10x40xf32>) -> tensor<10x40xf32>
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c9 = arith.constant 9 : index
  %c39 = arith.constant 39 : index
  %c17 = arith.constant 17 : index
  %r0 = tensor.extract %r[%c0, %c0] : tensor<10x40xf32>
  %r1 = tensor.extract %r[%c5, %c17] : tensor<10x40xf32>
  %r2 = tensor.extract %r[%c9, %c39] : tensor<10x40xf32>
  %s0 = tensor.extract %s[%c0, %c0] : tensor<10x40xf32>
  %s1 = tensor.extract %s[%c5, %c17] : tensor<10x40xf32>
  %s2 = tensor.extract %s[%c9, %c39] : tensor<10x40xf32>
  vector.print %r0 : f32
  vector.print %r1 : f32
  vector.print %r2 : f32
  vector.print %s0 : f32
  vector.print %s1 : f32
  vector.print %s2 : f32
  return
}
