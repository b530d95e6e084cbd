// The cast policy on arith, math and tensor ops, on tensors and scalars, both
// devices, both modes.
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt --amp-autocast=annotate | FileCheck %s -DLOW=f16 --check-prefixes=CHECK
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt --amp-autocast=annotate | FileCheck %s -DLOW=bf16 --check-prefixes=CHECK
// Eager mode gives the same types. The scalar product of a low value and an
// f32 argument is f32 in both (PyTorch promotes it; graph mode painted it low
// before issue 29 item 3).
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt "--amp-autocast=annotate mode=eager" | FileCheck %s -DLOW=f16 --check-prefixes=CHECK
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt "--amp-autocast=annotate mode=eager" | FileCheck %s -DLOW=bf16 --check-prefixes=CHECK

// CHECK-LABEL: func @arith_math_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[S:.*]]: f32, %[[SHAPE:.*]]: tensor<1xindex>)
// CHECK-DAG: %[[XL:.*]] = amp.cast %[[X]] : tensor<4x4xf32> to tensor<4x4x[[LOW]]>
// CHECK: %[[M:.*]] = linalg.matmul {amp.compute_type = [[LOW]]}
// CHECK: arith.addf %[[M]], %[[M]] {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: arith.subf {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: arith.mulf {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: arith.divf {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: arith.negf {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: arith.maximumf {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: arith.minimumf {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: arith.cmpf olt, {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: arith.select {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4xi1>, tensor<4x4x[[LOW]]>
// CHECK: math.absf {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: math.sqrt {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: math.tanh {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: math.erf {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: tensor.collapse_shape {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]> into tensor<16x[[LOW]]>
// CHECK: tensor.expand_shape {{.*}} {amp.compute_type = [[LOW]]} : tensor<16x[[LOW]]> into tensor<4x4x[[LOW]]>
// CHECK: tensor.extract_slice {{.*}} {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]> to tensor<2x4x[[LOW]]>
// CHECK: tensor.insert_slice {{.*}} {amp.compute_type = [[LOW]]} : tensor<2x4x[[LOW]]> into tensor<4x4x[[LOW]]>
// CHECK: %[[M2:.*]] = linalg.matmul {amp.compute_type = [[LOW]]}
// CHECK: %[[M2F:.*]] = amp.cast %[[M2]] : tensor<4x4x[[LOW]]> to tensor<4x4xf32>
// CHECK: math.log %[[M2F]] {amp.compute_type = f32} : tensor<4x4xf32>
// CHECK: math.rsqrt {{.*}} {amp.compute_type = f32} : tensor<4x4xf32>
// CHECK: math.powf {{.*}} {amp.compute_type = f32} : tensor<4x4xf32>
// CHECK: tensor.reshape %[[M2]](%[[SHAPE]]) {amp.compute_type = [[LOW]]} : (tensor<4x4x[[LOW]]>, tensor<1xindex>) -> tensor<16x[[LOW]]>
// CHECK: tensor.concat dim(0) %[[M2F]], %[[X]] {amp.compute_type = f32} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK: %[[EL:.*]] = tensor.extract %[[M2]][%{{.*}}, %{{.*}}] {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: %[[ELF:.*]] = amp.cast %[[EL]] : [[LOW]] to f32
// CHECK: %[[SC:.*]] = arith.mulf %[[ELF]], %[[S]] {amp.compute_type = f32} : f32
// CHECK: tensor.from_elements %[[ELF]], %[[SC]] {amp.compute_type = f32} : tensor<2xf32>
// CHECK: %[[PV:.*]] = arith.constant 0.000000e+00 : [[LOW]]
// CHECK: %[[SP:.*]] = tensor.splat %[[EL]] {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]>
// CHECK: tensor.pad %[[SP]]
// CHECK: tensor.yield %[[PV]] : [[LOW]]
// CHECK: } {amp.compute_type = [[LOW]]} : tensor<4x4x[[LOW]]> to tensor<4x4x[[LOW]]>
// CHECK: math.exp %[[S]] {amp.compute_type = f32} : f32
func.func @arith_math_tensor(%x: tensor<4x4xf32>, %s: f32, %shape: tensor<1xindex>)
    -> (tensor<4x4xf32>, tensor<16xf32>, tensor<8x4xf32>, f32, tensor<2xf32>, tensor<4x4xf32>, f32) {
  %r:7 = amp.autocast device_type(DEVICE) -> (tensor<4x4xf32>, tensor<16xf32>, tensor<8x4xf32>, f32, tensor<2xf32>, tensor<4x4xf32>, f32) {
    %e = tensor.empty() : tensor<4x4xf32>
    %m = linalg.matmul ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    // arith and math on tensors between two matmuls: low.
    %a = arith.addf %m, %m : tensor<4x4xf32>
    %b = arith.subf %a, %m : tensor<4x4xf32>
    %c = arith.mulf %b, %a : tensor<4x4xf32>
    %d = arith.divf %c, %a : tensor<4x4xf32>
    %n = arith.negf %d : tensor<4x4xf32>
    %mx = arith.maximumf %n, %m : tensor<4x4xf32>
    %mn = arith.minimumf %mx, %m : tensor<4x4xf32>
    %cmp = arith.cmpf olt, %mn, %m : tensor<4x4xf32>
    %sel = arith.select %cmp, %mn, %m : tensor<4x4xi1>, tensor<4x4xf32>
    %ab = math.absf %sel : tensor<4x4xf32>
    %sq = math.sqrt %ab : tensor<4x4xf32>
    %th = math.tanh %sq : tensor<4x4xf32>
    %er = math.erf %th : tensor<4x4xf32>
    // tensor data movement between the matmuls: low.
    %col = tensor.collapse_shape %er [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
    %exp = tensor.expand_shape %col [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
    %sl = tensor.extract_slice %exp[0, 0] [2, 4] [1, 1] : tensor<4x4xf32> to tensor<2x4xf32>
    %ins = tensor.insert_slice %sl into %exp[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
    %m2 = linalg.matmul ins(%ins, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    // fp32 math on the result.
    %lg = math.log %m2 : tensor<4x4xf32>
    %rs = math.rsqrt %lg : tensor<4x4xf32>
    %pw = math.powf %rs, %lg : tensor<4x4xf32>
    // tensor.reshape and concat (promote: f32 + low -> f32).
    %flat = tensor.reshape %m2(%shape) : (tensor<4x4xf32>, tensor<1xindex>) -> tensor<16xf32>
    %cat = tensor.concat dim(0) %m2, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    // Scalars: extract (clear) then scalar arithmetic with an f32 argument.
    %c0 = arith.constant 0 : index
    %el = tensor.extract %m2[%c0, %c0] : tensor<4x4xf32>
    %sc = arith.mulf %el, %s : f32
    %fe = tensor.from_elements %el, %sc : tensor<2xf32>
    %pad0 = arith.constant 0.0 : f32
    %sp = tensor.splat %el : tensor<4x4xf32>
    %pd = tensor.pad %sp low[0, 0] high[0, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %pad0 : f32
    } : tensor<4x4xf32> to tensor<4x4xf32>
    %ex = math.exp %s : f32
    amp.yield %pw, %flat, %cat, %sc, %fe, %pd, %ex : tensor<4x4xf32>, tensor<16xf32>, tensor<8x4xf32>, f32, tensor<2xf32>, tensor<4x4xf32>, f32
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6 : tensor<4x4xf32>, tensor<16xf32>, tensor<8x4xf32>, f32, tensor<2xf32>, tensor<4x4xf32>, f32
}
