// The partial-reduction kernels of amp-gpu-reduction-kernels on the GPU:
// row sums of a 1000 x 300 matrix (one block per row, gpu.all_reduce),
// column sums (a bias gradient's form: 32 x 32-thread blocks, partial sums
// in shared memory) and row maxima, each sum against a matmul by ones (a
// contraction, left to the parallel-loop path). The integer inputs make
// every sum exact in f32: the differences must be 0. Then numpy's values:
// the sums of the row sums, of the column sums and of the row maxima, the
// first row's sum and the last column's. The CPU pipeline prints the same
// (checked when this test was written). The kernels also run on the CPU
// through utils/simt_emulator.py in
// test/Codegen/GPU/reduction-kernels-emulated.mlir.
//
// REQUIRES: cuda-device
// RUN: amp-opt %s --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 0
// CHECK-NEXT: 0
// CHECK-NEXT: -6
// CHECK-NEXT: -6
// CHECK-NEXT: 5000
// CHECK-NEXT: -6
// CHECK-NEXT: -5

#map = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#scalar3 = affine_map<(d0, d1, d2) -> ()>

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

// Row sums (rows contiguous: one block per row, gpu.all_reduce) and their
// reference, a matmul by a column of ones (a contraction: the parallel-loop
// path).
func.func @row_sums(%x: tensor<1000x300xf32>) -> (tensor<1000xf32>, tensor<1000x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  %r = linalg.reduce ins(%x : tensor<1000x300xf32>) outs(%init : tensor<1000xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %eo = tensor.empty() : tensor<300x1xf32>
  %ones = linalg.fill ins(%one : f32) outs(%eo : tensor<300x1xf32>) -> tensor<300x1xf32>
  %em = tensor.empty() : tensor<1000x1xf32>
  %zm = linalg.fill ins(%zero : f32) outs(%em : tensor<1000x1xf32>) -> tensor<1000x1xf32>
  %ref = linalg.matmul ins(%x, %ones : tensor<1000x300xf32>, tensor<300x1xf32>) outs(%zm : tensor<1000x1xf32>) -> tensor<1000x1xf32>
  return %r, %ref : tensor<1000xf32>, tensor<1000x1xf32>
}

// Column sums (a bias gradient's form: 32 x TY blocks, shared partials)
// and their reference, a row of ones times the matrix.
func.func @column_sums(%x: tensor<1000x300xf32>) -> (tensor<300xf32>, tensor<1x300xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<300xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<300xf32>) -> tensor<300xf32>
  %r = linalg.reduce ins(%x : tensor<1000x300xf32>) outs(%init : tensor<300xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %eo = tensor.empty() : tensor<1x1000xf32>
  %ones = linalg.fill ins(%one : f32) outs(%eo : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %em = tensor.empty() : tensor<1x300xf32>
  %zm = linalg.fill ins(%zero : f32) outs(%em : tensor<1x300xf32>) -> tensor<1x300xf32>
  %ref = linalg.matmul ins(%ones, %x : tensor<1x1000xf32>, tensor<1000x300xf32>) outs(%zm : tensor<1x300xf32>) -> tensor<1x300xf32>
  return %r, %ref : tensor<300xf32>, tensor<1x300xf32>
}

// Row maxima from -inf.
func.func @row_max(%x: tensor<1000x300xf32>) -> tensor<1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  %r = linalg.reduce ins(%x : tensor<1000x300xf32>) outs(%init : tensor<1000xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<1000xf32>
}

func.func @max_abs_diff_1d(%a: tensor<?xf32>, %b: tensor<?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %m = math.absf %d : f32
    %n = arith.maximumf %acc, %m : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
}

func.func @sum_1d(%a: tensor<?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<?xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
}

func.func @print(%v: f32) {
  call @printF32(%v) : (f32) -> ()
  call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c5f = arith.constant 5.0 : f32
  %ex0 = tensor.empty() : tensor<1000x300xf32>
  %exc = tensor.cast %ex0 : tensor<1000x300xf32> to tensor<?x?xf32>
  // X[i, j] = (7i + 3j) mod 11 - 5
  %xd = call @pattern(%c7, %c3, %c11, %c5f, %exc) : (index, index, index, f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<1000x300xf32>
  %rs, %rref = call @row_sums(%x) : (tensor<1000x300xf32>) -> (tensor<1000xf32>, tensor<1000x1xf32>)
  %cs, %cref = call @column_sums(%x) : (tensor<1000x300xf32>) -> (tensor<300xf32>, tensor<1x300xf32>)
  %rm = call @row_max(%x) : (tensor<1000x300xf32>) -> tensor<1000xf32>
  %rref1 = tensor.collapse_shape %rref [[0, 1]] : tensor<1000x1xf32> into tensor<1000xf32>
  %cref1 = tensor.collapse_shape %cref [[0, 1]] : tensor<1x300xf32> into tensor<300xf32>
  %rsd = tensor.cast %rs : tensor<1000xf32> to tensor<?xf32>
  %rrd = tensor.cast %rref1 : tensor<1000xf32> to tensor<?xf32>
  %csd = tensor.cast %cs : tensor<300xf32> to tensor<?xf32>
  %crd = tensor.cast %cref1 : tensor<300xf32> to tensor<?xf32>
  %rmd = tensor.cast %rm : tensor<1000xf32> to tensor<?xf32>
  %d1 = call @max_abs_diff_1d(%rsd, %rrd) : (tensor<?xf32>, tensor<?xf32>) -> f32
  %d2 = call @max_abs_diff_1d(%csd, %crd) : (tensor<?xf32>, tensor<?xf32>) -> f32
  %s1 = call @sum_1d(%rsd) : (tensor<?xf32>) -> f32
  %s2 = call @sum_1d(%csd) : (tensor<?xf32>) -> f32
  %s3 = call @sum_1d(%rmd) : (tensor<?xf32>) -> f32
  %c0 = arith.constant 0 : index
  %c299 = arith.constant 299 : index
  %r0 = tensor.extract %rs[%c0] : tensor<1000xf32>
  %cl = tensor.extract %cs[%c299] : tensor<300xf32>
  call @print(%d1) : (f32) -> ()
  call @print(%d2) : (f32) -> ()
  call @print(%s1) : (f32) -> ()
  call @print(%s2) : (f32) -> ()
  call @print(%s3) : (f32) -> ()
  call @print(%r0) : (f32) -> ()
  call @print(%cl) : (f32) -> ()
  return
}
