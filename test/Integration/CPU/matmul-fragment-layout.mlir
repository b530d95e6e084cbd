// Autocast f16 and bf16 matmuls (64x128 * 128x32) of non-uniform integer
// matrices against the same matmul in f32: every input is exact in f16 and
// bf16 and every sum exact in f32, so each element must match exactly.
// Unlike all-equal inputs, this catches an element loaded from the wrong
// position (the GPU pipeline's tensor-core fragment layout:
// test/Integration/CUDA/tensor-core-matmul.mlir runs this file on a GPU). Prints the
// largest |difference| for f16 and bf16 (0), then the sum of the f32 result
// (29, numpy's value).
//
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 0
// CHECK-NEXT: 0
// CHECK-NEXT: 29

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

func.func @f32_mm(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %z = tensor.empty() : tensor<64x32xf32>
  %c = arith.constant 0.0 : f32
  %zf = linalg.fill ins(%c : f32) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x32xf32>) outs(%zf : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}

func.func @f16_mm(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<64x32xf32> {
    %z = tensor.empty() : tensor<64x32xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
    %y = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x32xf32>) outs(%zf : tensor<64x32xf32>) -> tensor<64x32xf32>
    amp.yield %y : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

func.func @bf16_mm(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %r = amp.autocast device_type(cuda) dtype(bf16) -> tensor<64x32xf32> {
    %z = tensor.empty() : tensor<64x32xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
    %y = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x32xf32>) outs(%zf : tensor<64x32xf32>) -> tensor<64x32xf32>
    amp.yield %y : tensor<64x32xf32>
  }
  return %r : tensor<64x32xf32>
}

// max |a - b| over all elements
func.func @max_abs_diff(%a: tensor<64x32xf32>, %b: tensor<64x32xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#map, #map, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<64x32xf32>, tensor<64x32xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %m = math.absf %d : f32
    %n = arith.maximumf %acc, %m : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
}

func.func @sum(%a: tensor<64x32xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#map, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<64x32xf32>) outs(%init : tensor<f32>) {
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
  %ea0 = tensor.empty() : tensor<64x128xf32>
  %eb0 = tensor.empty() : tensor<128x32xf32>
  %eac = tensor.cast %ea0 : tensor<64x128xf32> to tensor<?x?xf32>
  %ebc = tensor.cast %eb0 : tensor<128x32xf32> to tensor<?x?xf32>
  // A[i, k] = (7i + 3k) mod 11 - 5, B[k, j] = (5k + 2j) mod 9 - 4
  %ad = call @pattern(%c7, %c3, %c11, %c5f, %eac) : (index, index, index, f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %bd = call @pattern(%c5, %c2, %c9, %c4f, %ebc) : (index, index, index, f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %a = tensor.cast %ad : tensor<?x?xf32> to tensor<64x128xf32>
  %b = tensor.cast %bd : tensor<?x?xf32> to tensor<128x32xf32>
  %ref = call @f32_mm(%a, %b) : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %h = call @f16_mm(%a, %b) : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %g = call @bf16_mm(%a, %b) : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  %dh = call @max_abs_diff(%h, %ref) : (tensor<64x32xf32>, tensor<64x32xf32>) -> f32
  %dg = call @max_abs_diff(%g, %ref) : (tensor<64x32xf32>, tensor<64x32xf32>) -> f32
  %s = call @sum(%ref) : (tensor<64x32xf32>) -> f32
  call @printF32(%dh) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%dg) : (f32) -> ()
  call @printNewline() : () -> ()
  call @printF32(%s) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}
