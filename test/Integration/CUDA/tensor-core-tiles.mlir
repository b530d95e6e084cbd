// The tensor-core kernels at the tiling a large matmul gets (1536 x 128 x
// 1536: 64 x 64 warp tiles in blocks of 2 x 2 warps, A and B staged in
// shared memory, four software-pipelined k steps of 32), f16 and bf16
// autocast against the f32 matmul (SIMT kernels), all on the GPU: the
// integer inputs are exact in f16 and bf16 and every sum exact in f32, so
// the largest |difference| must be 0. Then numpy's sum of the product (27)
// and two corners of it (78 in f16, -63 in bf16). The same kernels run on
// the CPU through utils/simt_emulator.py in
// test/Codegen/GPU/TensorCore/contractions-emulated.mlir.
//
// REQUIRES: cuda-device
// RUN: amp-opt %s --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cuda-pipeline=gemm=cublas | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 0
// CHECK-NEXT: 0
// CHECK-NEXT: 27
// CHECK-NEXT: 78
// CHECK-NEXT: -63

#map = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

func.func private @printF32(f32)
func.func private @printNewline()

// m[i, j] = ((i * ri + j * rj) mod modulus) - offset
func.func @pattern(%ri: index, %rj: index, %modulus: index, %offset: f32,
                   %e: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.muli %i, %ri : index
    %b = arith.muli %j, %rj : index
    %s = arith.addi %a, %b : index
    %m = arith.remui %s, %modulus : index
    %n = arith.index_cast %m : index to i32
    %f = arith.sitofp %n : i32 to f32
    %v = arith.subf %f, %offset : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @f32_mm(%x: tensor<1536x128xf32>, %w: tensor<128x1536xf32>) -> tensor<1536x1536xf32> {
  %z = tensor.empty() : tensor<1536x1536xf32>
  %c = arith.constant 0.0 : f32
  %zf = linalg.fill ins(%c : f32) outs(%z : tensor<1536x1536xf32>) -> tensor<1536x1536xf32>
  %y = linalg.matmul ins(%x, %w : tensor<1536x128xf32>, tensor<128x1536xf32>) outs(%zf : tensor<1536x1536xf32>) -> tensor<1536x1536xf32>
  return %y : tensor<1536x1536xf32>
}

func.func @f16_mm(%x: tensor<1536x128xf32>, %w: tensor<128x1536xf32>) -> tensor<1536x1536xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<1536x1536xf32> {
    %z = tensor.empty() : tensor<1536x1536xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<1536x1536xf32>) -> tensor<1536x1536xf32>
    %y = linalg.matmul ins(%x, %w : tensor<1536x128xf32>, tensor<128x1536xf32>) outs(%zf : tensor<1536x1536xf32>) -> tensor<1536x1536xf32>
    amp.yield %y : tensor<1536x1536xf32>
  }
  return %r : tensor<1536x1536xf32>
}

func.func @bf16_mm(%x: tensor<1536x128xf32>, %w: tensor<128x1536xf32>) -> tensor<1536x1536xf32> {
  %r = amp.autocast device_type(cuda) dtype(bf16) -> tensor<1536x1536xf32> {
    %z = tensor.empty() : tensor<1536x1536xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<1536x1536xf32>) -> tensor<1536x1536xf32>
    %y = linalg.matmul ins(%x, %w : tensor<1536x128xf32>, tensor<128x1536xf32>) outs(%zf : tensor<1536x1536xf32>) -> tensor<1536x1536xf32>
    amp.yield %y : tensor<1536x1536xf32>
  }
  return %r : tensor<1536x1536xf32>
}

// max |a - b| over all elements
func.func @max_abs_diff(%a: tensor<1536x1536xf32>, %b: tensor<1536x1536xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#map, #map, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<1536x1536xf32>, tensor<1536x1536xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %m = math.absf %d : f32
    %n = arith.maximumf %acc, %m : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
}

func.func @sum(%a: tensor<1536x1536xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#map, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<1536x1536xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %n = arith.addf %acc, %x : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
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
  %ea0 = tensor.empty() : tensor<1536x128xf32>
  %eb0 = tensor.empty() : tensor<128x1536xf32>
  %eac = tensor.cast %ea0 : tensor<1536x128xf32> to tensor<?x?xf32>
  %ebc = tensor.cast %eb0 : tensor<128x1536xf32> to tensor<?x?xf32>
  // A[i, k] = (7i + 3k) mod 11 - 5, B[k, j] = (5k + 2j) mod 9 - 4
  %ad = call @pattern(%c7, %c3, %c11, %c5f, %eac) : (index, index, index, f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %bd = call @pattern(%c5, %c2, %c9, %c4f, %ebc) : (index, index, index, f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %a = tensor.cast %ad : tensor<?x?xf32> to tensor<1536x128xf32>
  %b = tensor.cast %bd : tensor<?x?xf32> to tensor<128x1536xf32>
  %ref = call @f32_mm(%a, %b) : (tensor<1536x128xf32>, tensor<128x1536xf32>) -> tensor<1536x1536xf32>
  %h = call @f16_mm(%a, %b) : (tensor<1536x128xf32>, tensor<128x1536xf32>) -> tensor<1536x1536xf32>
  %g = call @bf16_mm(%a, %b) : (tensor<1536x128xf32>, tensor<128x1536xf32>) -> tensor<1536x1536xf32>
  %dh = call @max_abs_diff(%h, %ref) : (tensor<1536x1536xf32>, tensor<1536x1536xf32>) -> f32
  %dg = call @max_abs_diff(%g, %ref) : (tensor<1536x1536xf32>, tensor<1536x1536xf32>) -> f32
  %s = call @sum(%ref) : (tensor<1536x1536xf32>) -> f32
  %c0 = arith.constant 0 : index
  %last = arith.constant 1535 : index
  %first = tensor.extract %h[%c0, %c0] : tensor<1536x1536xf32>
  %end = tensor.extract %g[%last, %last] : tensor<1536x1536xf32>
  call @printF32(%dh) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%dg) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%s) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%first) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%end) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}
