// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-narrow-softmax-readers))" | FileCheck %s

// Autocast's attention softmax after fusion: one generic yields the f32
// softmax (a safe softmax: select over exp / sum(exp)) and its bf16 rounding
// for P @ V. The backward generic reads the bf16 copy, extended in its body;
// the f32 result goes.
// CHECK-LABEL: func @softmax_backward_reads_bf16
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4x8xbf16>)
// CHECK: arith.divf
// CHECK: %[[R:.*]] = arith.truncf
// CHECK: linalg.yield %[[R]] : bf16
// CHECK: } -> tensor<4x8xbf16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[S]] : tensor<4x8xf32>, tensor<4x8xbf16>)
// CHECK-NEXT: ^bb0(%[[DY:.*]]: f32, %[[Y:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT: %[[YF:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT: arith.mulf %[[DY]], %[[YF]] : f32
// CHECK: return %[[S]], %{{.*}} : tensor<4x8xbf16>, tensor<4x8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
func.func @softmax_backward_reads_bf16(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %m: tensor<4x1xi1>)
    -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %eb = tensor.empty() : tensor<4x8xbf16>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = math.exp %in : f32
      linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x1xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x8xf32>) outs(%z1 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = arith.addf %in, %out : f32
      linalg.yield %v : f32
  } -> tensor<4x1xf32>
  %y:2 = linalg.generic {indexing_maps = [#row, #id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %exp, %sum : tensor<4x1xi1>, tensor<4x8xf32>, tensor<4x1xf32>) outs(%e, %eb : tensor<4x8xf32>, tensor<4x8xbf16>) {
    ^bb0(%c: i1, %a: f32, %b: f32, %o: f32, %ob: bf16):
      %d = arith.divf %a, %b : f32
      %s = arith.select %c, %zero, %d : f32
      %t = arith.truncf %s : f32 to bf16
      linalg.yield %s, %t : f32, bf16
  } -> (tensor<4x8xf32>, tensor<4x8xbf16>)
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dy, %y#0 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %v = arith.mulf %a, %b : f32
      linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %y#1, %g : tensor<4x8xbf16>, tensor<4x8xf32>
}

// -----

// Not a softmax (a layer norm's scaled output has no exp / sum(exp)): the
// f32 reader keeps the f32 value.
// CHECK-LABEL: func @not_softmax
// CHECK: %[[Y:.*]]:2 = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[Y]]#0 : tensor<4x8xf32>, tensor<4x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
func.func @not_softmax(%x: tensor<4x8xf32>, %r: tensor<4x1xf32>, %dy: tensor<4x8xf32>)
    -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %eb = tensor.empty() : tensor<4x8xbf16>
  %y:2 = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e, %eb : tensor<4x8xf32>, tensor<4x8xbf16>) {
    ^bb0(%a: f32, %b: f32, %o: f32, %ob: bf16):
      %d = arith.divf %a, %b : f32
      %t = arith.truncf %d : f32 to bf16
      linalg.yield %d, %t : f32, bf16
  } -> (tensor<4x8xf32>, tensor<4x8xbf16>)
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dy, %y#0 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %v = arith.mulf %a, %b : f32
      linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %y#1, %g : tensor<4x8xbf16>, tensor<4x8xf32>
}
