// Batched matmuls on tensor cores (amp-gpu-tensor-core-contractions: a
// block per batch element along z, the batch element's matrices through
// memref.reinterpret_cast views): 6 x 128 x 64 x 96, f16 and bf16
// autocast against the f32 batched matmul (SIMT kernels). The integer
// inputs are exact in f16 and bf16 and every sum exact in f32, so the
// largest |difference| must be 0. Then numpy's sum of the product (219)
// and two corners of it (15 in f16, -60 in bf16). The CPU pipeline prints
// the same (checked when this test was written); the kernels run on the CPU
// through utils/simt_emulator.py in
// test/Codegen/GPU/TensorCore/contractions-emulated.mlir.
//
// REQUIRES: cuda-device
// RUN: amp-opt %s --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cuda-pipeline=gemm=cublas | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 0
// CHECK-NEXT: 0
// CHECK-NEXT: 219
// CHECK-NEXT: 15
// CHECK-NEXT: -60

#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#scalar3 = affine_map<(d0, d1, d2) -> ()>

func.func private @printF32(f32)
func.func private @printNewline()

// m[b, i, j] = ((b * rb + i * ri + j * rj) mod modulus) - offset
func.func @pattern(%rb: index, %ri: index, %rj: index, %modulus: index, %offset: f32,
                   %e: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %x = arith.muli %b, %rb : index
    %y = arith.muli %i, %ri : index
    %z = arith.muli %j, %rj : index
    %s0 = arith.addi %x, %y : index
    %s = arith.addi %s0, %z : index
    %m = arith.remui %s, %modulus : index
    %n = arith.index_cast %m : index to i32
    %f = arith.sitofp %n : i32 to f32
    %v = arith.subf %f, %offset : f32
    linalg.yield %v : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @f32_bmm(%a: tensor<6x128x64xf32>, %b: tensor<6x64x96xf32>) -> tensor<6x128x96xf32> {
  %z = tensor.empty() : tensor<6x128x96xf32>
  %c = arith.constant 0.0 : f32
  %zf = linalg.fill ins(%c : f32) outs(%z : tensor<6x128x96xf32>) -> tensor<6x128x96xf32>
  %y = linalg.batch_matmul ins(%a, %b : tensor<6x128x64xf32>, tensor<6x64x96xf32>) outs(%zf : tensor<6x128x96xf32>) -> tensor<6x128x96xf32>
  return %y : tensor<6x128x96xf32>
}

func.func @f16_bmm(%a: tensor<6x128x64xf32>, %b: tensor<6x64x96xf32>) -> tensor<6x128x96xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<6x128x96xf32> {
    %z = tensor.empty() : tensor<6x128x96xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<6x128x96xf32>) -> tensor<6x128x96xf32>
    %y = linalg.batch_matmul ins(%a, %b : tensor<6x128x64xf32>, tensor<6x64x96xf32>) outs(%zf : tensor<6x128x96xf32>) -> tensor<6x128x96xf32>
    amp.yield %y : tensor<6x128x96xf32>
  }
  return %r : tensor<6x128x96xf32>
}

func.func @bf16_bmm(%a: tensor<6x128x64xf32>, %b: tensor<6x64x96xf32>) -> tensor<6x128x96xf32> {
  %r = amp.autocast device_type(cuda) dtype(bf16) -> tensor<6x128x96xf32> {
    %z = tensor.empty() : tensor<6x128x96xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<6x128x96xf32>) -> tensor<6x128x96xf32>
    %y = linalg.batch_matmul ins(%a, %b : tensor<6x128x64xf32>, tensor<6x64x96xf32>) outs(%zf : tensor<6x128x96xf32>) -> tensor<6x128x96xf32>
    amp.yield %y : tensor<6x128x96xf32>
  }
  return %r : tensor<6x128x96xf32>
}

func.func @max_abs_diff(%a: tensor<6x128x96xf32>, %b: tensor<6x128x96xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#map3, #map3, #scalar3], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%a, %b : tensor<6x128x96xf32>, tensor<6x128x96xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %m = math.absf %d : f32
    %n = arith.maximumf %acc, %m : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
}

func.func @sum(%a: tensor<6x128x96xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#map3, #scalar3], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%a : tensor<6x128x96xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %n = arith.addf %acc, %x : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
}

func.func @print(%v: f32) {
  call @printF32(%v) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %c11 = arith.constant 11 : index
  %c4f = arith.constant 4.0 : f32
  %c5f = arith.constant 5.0 : f32
  %ea0 = tensor.empty() : tensor<6x128x64xf32>
  %eb0 = tensor.empty() : tensor<6x64x96xf32>
  %eac = tensor.cast %ea0 : tensor<6x128x64xf32> to tensor<?x?x?xf32>
  %ebc = tensor.cast %eb0 : tensor<6x64x96xf32> to tensor<?x?x?xf32>
  // A[b, i, k] = (2b + 7i + 3k) mod 11 - 5, B[b, k, j] = (3b + 5k + 2j) mod 9 - 4
  %ad = call @pattern(%c2, %c7, %c3, %c11, %c5f, %eac) : (index, index, index, index, f32, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %bd = call @pattern(%c3, %c5, %c2, %c9, %c4f, %ebc) : (index, index, index, index, f32, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %a = tensor.cast %ad : tensor<?x?x?xf32> to tensor<6x128x64xf32>
  %b = tensor.cast %bd : tensor<?x?x?xf32> to tensor<6x64x96xf32>
  %ref = call @f32_bmm(%a, %b) : (tensor<6x128x64xf32>, tensor<6x64x96xf32>) -> tensor<6x128x96xf32>
  %h = call @f16_bmm(%a, %b) : (tensor<6x128x64xf32>, tensor<6x64x96xf32>) -> tensor<6x128x96xf32>
  %g = call @bf16_bmm(%a, %b) : (tensor<6x128x64xf32>, tensor<6x64x96xf32>) -> tensor<6x128x96xf32>
  %dh = call @max_abs_diff(%h, %ref) : (tensor<6x128x96xf32>, tensor<6x128x96xf32>) -> f32
  %dg = call @max_abs_diff(%g, %ref) : (tensor<6x128x96xf32>, tensor<6x128x96xf32>) -> f32
  %s = call @sum(%ref) : (tensor<6x128x96xf32>) -> f32
  %c0 = arith.constant 0 : index
  %c127 = arith.constant 127 : index
  %c95 = arith.constant 95 : index
  %first = tensor.extract %h[%c0, %c0, %c0] : tensor<6x128x96xf32>
  %last = tensor.extract %g[%c5, %c127, %c95] : tensor<6x128x96xf32>
  call @print(%dh) : (f32) -> ()
  call @print(%dg) : (f32) -> ()
  call @print(%s) : (f32) -> ()
  call @print(%first) : (f32) -> ()
  call @print(%last) : (f32) -> ()
  return
}
