// Issue 29, item 1: inside autocast(cuda), an f16 matmul result [1, 2]
// meets an f32 function argument holding 70000 and 1 + 2^-12 through clear
// ops (tensor.extract_slice, expand/collapse_shape, tensor.extract,
// tosa.slice/reshape, a select written as a generic) into a promote op
// (tensor.concat, tosa.concat, tensor.from_elements, tensor.insert_slice).
// Promote ops run at their widest input (PyTorch: cat, stack, index_put,
// where), so the argument's values arrive unrounded in both modes: 70000
// (inf in f16) and 1.000244140625 (1 in f16). Graph mode used to cast the
// argument to f16 before the clear op.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>


// tensor.extract_slice -> tensor.concat
// CHECK: ( 1, 2, 70000, 1.00024 )
func.func @slice_concat(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<1x4xf32> {
    %e = tensor.empty() : tensor<1x2xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4xf32>, tensor<4x2xf32>) outs(%f : tensor<1x2xf32>) -> tensor<1x2xf32>
    %s = tensor.extract_slice %x[0, 0] [1, 2] [1, 1] : tensor<1x4xf32> to tensor<1x2xf32>
    %cat = tensor.concat dim(1) %m, %s : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
    amp.yield %cat : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// collapse_shape -> extract_slice -> expand_shape -> tensor.concat (a chain
// of clear ops)
// CHECK: ( 1, 2, 70000, 1.00024 )
func.func @reshape_concat(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<1x4xf32> {
    %e = tensor.empty() : tensor<1x2xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4xf32>, tensor<4x2xf32>) outs(%f : tensor<1x2xf32>) -> tensor<1x2xf32>
    %c = tensor.collapse_shape %x [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
    %s = tensor.extract_slice %c[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
    %x2 = tensor.expand_shape %s [[0, 1]] output_shape [1, 2] : tensor<2xf32> into tensor<1x2xf32>
    %cat = tensor.concat dim(1) %m, %x2 : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
    amp.yield %cat : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// tosa.slice -> tosa.reshape -> tosa.concat
// CHECK: ( 1, 2, 70000, 1.00024 )
func.func @tosa_concat(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<1x4xf32> {
    %e = tensor.empty() : tensor<1x2xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4xf32>, tensor<4x2xf32>) outs(%f : tensor<1x2xf32>) -> tensor<1x2xf32>
    %start = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %size = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %s = tosa.slice %x, %start, %size : (tensor<1x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x2xf32>
    %shape = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %x2 = tosa.reshape %s, %shape : (tensor<1x2xf32>, !tosa.shape<2>) -> tensor<1x2xf32>
    %cat = tosa.concat %m, %x2 {axis = 1 : i32} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
    amp.yield %cat : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// tensor.insert_slice of the matmul result into a reshape of the argument
// (index_put / slice assignment)
// CHECK: ( 70000, 1.00024, 1, 2 )
func.func @insert_slice(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<1x4xf32> {
    %e = tensor.empty() : tensor<1x2xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4xf32>, tensor<4x2xf32>) outs(%f : tensor<1x2xf32>) -> tensor<1x2xf32>
    %c = tensor.collapse_shape %x [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
    %d = tensor.expand_shape %c [[0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
    %ins = tensor.insert_slice %m into %d[0, 2] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<1x4xf32>
    amp.yield %ins : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// tensor.extract (scalars) -> tensor.from_elements (stack)
// CHECK: ( 1, 2, 70000, 1.00024 )
func.func @extract_stack(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = amp.autocast device_type(cuda) -> tensor<1x4xf32> {
    %e = tensor.empty() : tensor<1x2xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4xf32>, tensor<4x2xf32>) outs(%f : tensor<1x2xf32>) -> tensor<1x2xf32>
    %m0 = tensor.extract %m[%c0, %c0] : tensor<1x2xf32>
    %m1 = tensor.extract %m[%c0, %c1] : tensor<1x2xf32>
    %x0 = tensor.extract %x[%c0, %c0] : tensor<1x4xf32>
    %x1 = tensor.extract %x[%c0, %c1] : tensor<1x4xf32>
    %st = tensor.from_elements %m0, %m1, %x0, %x1 : tensor<1x4xf32>
    amp.yield %st : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// where(mask, matmul, x[0:2]) written as a generic (a clear op with two data
// inputs), then concatenated
// CHECK: ( 1, 2, 70000, 1.00024 )
func.func @where_generic(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %zero = arith.constant 0.0 : f32
  %mask = arith.constant dense<false> : tensor<1x2xi1>
  %r = amp.autocast device_type(cuda) -> tensor<1x4xf32> {
    %e = tensor.empty() : tensor<1x2xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4xf32>, tensor<4x2xf32>) outs(%f : tensor<1x2xf32>) -> tensor<1x2xf32>
    %s = tensor.extract_slice %x[0, 0] [1, 2] [1, 1] : tensor<1x4xf32> to tensor<1x2xf32>
    %w = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%mask, %m, %s : tensor<1x2xi1>, tensor<1x2xf32>, tensor<1x2xf32>) outs(%e : tensor<1x2xf32>) {
    ^bb0(%k: i1, %p: f32, %q: f32, %o: f32):
      %v = arith.select %k, %p, %q : f32
      linalg.yield %v : f32
    } -> tensor<1x2xf32>
    %cat = tensor.concat dim(1) %m, %w : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
    amp.yield %cat : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

func.func @print(%r: tensor<1x4xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %r[%c0, %c0], %p : tensor<1x4xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  return
}

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<1x4xf32>
  %b = arith.constant dense<[[0.25, 0.5], [0.25, 0.5], [0.25, 0.5], [0.25, 0.5]]> : tensor<4x2xf32>
  // 1 + 2^-12 = 1.000244140625
  %x = arith.constant dense<[[70000.0, 1.000244140625, 3.0, 4.0]]> : tensor<1x4xf32>
  %r0 = call @slice_concat(%a, %b, %x) : (tensor<1x4xf32>, tensor<4x2xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  call @print(%r0) : (tensor<1x4xf32>) -> ()
  %r1 = call @reshape_concat(%a, %b, %x) : (tensor<1x4xf32>, tensor<4x2xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  call @print(%r1) : (tensor<1x4xf32>) -> ()
  %r2 = call @tosa_concat(%a, %b, %x) : (tensor<1x4xf32>, tensor<4x2xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  call @print(%r2) : (tensor<1x4xf32>) -> ()
  %r3 = call @insert_slice(%a, %b, %x) : (tensor<1x4xf32>, tensor<4x2xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  call @print(%r3) : (tensor<1x4xf32>) -> ()
  %r4 = call @extract_stack(%a, %b, %x) : (tensor<1x4xf32>, tensor<4x2xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  call @print(%r4) : (tensor<1x4xf32>) -> ()
  %r5 = call @where_generic(%a, %b, %x) : (tensor<1x4xf32>, tensor<4x2xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  call @print(%r5) : (tensor<1x4xf32>) -> ()
  return
}
