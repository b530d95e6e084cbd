// Inputs that once broke the pass: each must give valid IR (re-parsed by a
// second amp-opt) or a diagnostic, never a crash.
// RUN: amp-opt %s -split-input-file --amp-autocast -verify-diagnostics | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file "--amp-autocast=mode=eager" -verify-diagnostics | amp-opt -split-input-file | FileCheck %s

// An autocast region inside a linalg payload: the payload is rebuilt before
// the inner region is processed (the region is collected afterwards).
// CHECK-LABEL: func @autocast_inside_payload
// CHECK: linalg.generic
// CHECK-NOT: amp.autocast
#map = affine_map<(d0) -> (d0)>
func.func @autocast_inside_payload(%x: tensor<4xf16>) -> tensor<4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf16>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f16, %o: f32):
    amp.autocast device_type(cuda) {
    }
    %s = arith.extf %a : f16 to f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Memrefs are not retyped (amp.cast takes scalars and ranked tensors); a
// remark says so (issue 29 item 4).
// CHECK-LABEL: func @memref_matmul
// CHECK-NEXT: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf32>, memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>)
func.func @memref_matmul(%a: memref<4x4xf32>, %c: memref<4x4xf32>)
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  // expected-remark @+1 {{'linalg.matmul' stays as written: it works on memrefs (buffers), which amp-autocast does not retype; run amp-autocast on tensors, before bufferization}}
  linalg.matmul ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// -----

// A cast to an unranked tensor cannot run in f16: it reads the f32 value.
// CHECK-LABEL: func @to_unranked
// CHECK: %[[M:.*]] = linalg.matmul ins({{.*}} : tensor<4x4xf16>, tensor<4x4xf16>)
// CHECK: %[[MF:.*]] = amp.cast %[[M]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: tensor.cast %[[MF]] : tensor<4x4xf32> to tensor<*xf32>
func.func @to_unranked(%x: tensor<4x4xf32>) -> tensor<*xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %m = linalg.matmul ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>
  %u = tensor.cast %m : tensor<4x4xf32> to tensor<*xf32>
  return %u : tensor<*xf32>
}

// -----

// A region the pass does not walk (tensor.generate, kept as written) reads a
// captured value at its written type.
// CHECK-LABEL: func @generate_captures
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: %[[MF:.*]] = amp.cast %[[M]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: tensor.generate
// CHECK: tensor.extract %[[MF]]
func.func @generate_captures(%x: tensor<4x4xf32>) -> tensor<4x4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %m = linalg.matmul ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = tensor.extract %m[%j, %i] : tensor<4x4xf32>
    tensor.yield %v : f32
  } : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A keep op in an inner region reads an outer value at its written type.
// CHECK-LABEL: func @inner_keep_reads_outer
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: %[[MF:.*]] = amp.cast %[[M]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: arith.truncf %[[MF]] : tensor<4x4xf32> to tensor<4x4xf16>
func.func @inner_keep_reads_outer(%x: tensor<4x4xf32>) -> tensor<4x4xf16> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf16> {
    %m = linalg.matmul ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>
    %r2 = amp.autocast device_type(cuda) -> tensor<4x4xf16> {
      %c = arith.truncf %m : tensor<4x4xf32> to tensor<4x4xf16>
      amp.yield %c : tensor<4x4xf16>
    }
    amp.yield %r2 : tensor<4x4xf16>
  }
  return %r : tensor<4x4xf16>
}

// -----

// A decorator on an external function is removed too.
// CHECK-LABEL: func private @external
// CHECK-NOT: amp.autocast
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>}

// -----

// Blocks listed out of dominance order (^bb1 uses %x and %f, defined in the
// later-listed ^bb2): ops are met in dominance order, so each value is
// retyped before its uses. Before, the cached cast of %x was created ahead
// of the walk and met again (graph mode: an f16 -> f16 cast), and a fill
// used by an earlier-listed matmul kept f32 (the matmul did not verify).
// CHECK-LABEL: func @blocks_out_of_order
// CHECK-NOT: amp.cast {{.*}} : tensor<4x4xf16> to tensor<4x4xf16>
// CHECK: ^bb1:
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[X:.*]], %[[F:.*]] : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf16>)
// CHECK: amp.cast %[[M]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: ^bb2:
// CHECK-DAG: %[[X]] = linalg.matmul {{.*}} -> tensor<4x4xf16>
// CHECK-DAG: %[[F]] = linalg.fill {{.*}} -> tensor<4x4xf16>
// CHECK-NOT: amp.cast
// CHECK: cf.br ^bb1
func.func @blocks_out_of_order(%a: tensor<4x4xf32>) -> tensor<4x4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %e = tensor.empty() : tensor<4x4xf32>
  %c = arith.constant 1.0 : f32
  cf.br ^bb2
^bb1:
  %m = linalg.matmul ins(%x, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
^bb2:
  %x = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  cf.br ^bb1
}

// -----

// A fill that is a matmul's input and its init: graph mode paints the fill
// low and retypes it in place before it meets the matmul, whose operands are
// then already f16; the matmul is still rebuilt (payload and result in f16),
// never left with an f32 payload on f16 operands.
// CHECK-LABEL: func @fill_as_input_and_init
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f16) outs(%{{.*}} : tensor<3x3xf16>)
// CHECK: linalg.matmul ins(%[[F]], %[[F]] : tensor<3x3xf16>, tensor<3x3xf16>) outs(%[[F]] : tensor<3x3xf16>) -> tensor<3x3xf16>
func.func @fill_as_input_and_init() -> tensor<3x3xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<3x3xf32> {
    %fv = arith.constant 0.5 : f32
    %fe = tensor.empty() : tensor<3x3xf32>
    %fill = linalg.fill ins(%fv : f32) outs(%fe : tensor<3x3xf32>) -> tensor<3x3xf32>
    %m = linalg.matmul ins(%fill, %fill : tensor<3x3xf32>, tensor<3x3xf32>) outs(%fill : tensor<3x3xf32>) -> tensor<3x3xf32>
    amp.yield %m : tensor<3x3xf32>
  }
  return %r : tensor<3x3xf32>
}

// -----

// A fill of a buffer writes memory: it is not a dead helper (the pass
// erased it, and every linalg.fill on a memref of the module with it).
// CHECK-LABEL: func @buffer_fill
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[Z]] : f32) outs(%arg0 : memref<4xf32>)
func.func @buffer_fill(%buf: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%buf : memref<4xf32>)
  return
}

// -----

// Roundings the user wrote in a payload stay (explicit conversions are
// "keep"): retyped with the payload, the round trip through bf16 would
// convert f32 to f32 and vanish. Under cuda the payload computes in f32
// (its input is f32): x rounded to bf16 and back, then doubled.
// CHECK-LABEL: func @explicit_rounding_in_payload
// CHECK: linalg.generic
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[E:.*]] = arith.extf %[[T]] : bf16 to f32
// CHECK: arith.addf %[[E]], %[[E]] : f32
#map1 = affine_map<(d0) -> (d0)>
func.func @explicit_rounding_in_payload(%x: tensor<8xf32>) -> tensor<8xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %t = arith.truncf %i : f32 to bf16
    %u = arith.extf %t : bf16 to f32
    %d = arith.addf %u, %u : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
