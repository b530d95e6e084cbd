// The cast policy on tosa ops, both devices (cuda: f16, cpu: bf16), graph
// mode; eager mode for the infer chain.
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt -split-input-file --amp-autocast=annotate | FileCheck %s -DLOW=f16
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt -split-input-file --amp-autocast=annotate | FileCheck %s -DLOW=bf16
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s --check-prefix=EAGER -DLOW=bf16
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s --check-prefix=EAGER -DLOW=f16

// Lower: tosa.matmul. Infer and clear ops between the two matmuls run low in
// graph mode (zero points and constants follow at compile time); fp32 ops
// (exp, log, pow, reciprocal, rsqrt, reduce_sum, reduce_product) run f32;
// max/min reductions, tile and gather are clear; concat promotes to f32 with
// an f32 input; an explicit tosa.cast keeps its f32 operand.
// CHECK-LABEL: func @tosa_ops
// CHECK: "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x[[LOW]]>}>
// CHECK: tosa.matmul {{.*}} {amp.compute_type = [[LOW]]} : (tensor<1x8x8x[[LOW]]>, tensor<1x8x8x[[LOW]]>, tensor<1x[[LOW]]>, tensor<1x[[LOW]]>) -> tensor<1x8x8x[[LOW]]>
// CHECK: tosa.add {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.sub {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.mul {{.*}} {amp.compute_type = [[LOW]]} : (tensor<1x8x8x[[LOW]]>, tensor<1x8x8x[[LOW]]>, tensor<1xi8>)
// CHECK: tosa.negate {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.abs {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.tanh {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.sigmoid {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.erf {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.clamp {{.*}} {amp.compute_type = [[LOW]], max_val = 6.000000e+00 : [[LOW]], min_val = {{.*}} : [[LOW]]}
// CHECK: tosa.maximum {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.minimum {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.transpose {{.*}} {amp.compute_type = [[LOW]]
// CHECK: tosa.reshape {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.reverse {{.*}} {amp.compute_type = [[LOW]]
// CHECK: tosa.select {{.*}} {amp.compute_type = [[LOW]]} : (tensor<1x8x8xi1>, tensor<1x8x8x[[LOW]]>, tensor<1x8x8x[[LOW]]>)
// CHECK: %[[M2:.*]] = tosa.matmul {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: %[[M2F:.*]] = amp.cast %[[M2]] : tensor<1x8x8x[[LOW]]> to tensor<1x8x8xf32>
// CHECK: tosa.exp %[[M2F]] {amp.compute_type = f32}
// CHECK: tosa.log {{.*}} {amp.compute_type = f32}
// CHECK: tosa.pow {{.*}} {amp.compute_type = f32}
// CHECK: tosa.reciprocal {{.*}} {amp.compute_type = f32}
// CHECK: tosa.rsqrt {{.*}} {amp.compute_type = f32}
// CHECK: tosa.reduce_sum {{.*}} {amp.compute_type = f32
// CHECK: tosa.reduce_product {{.*}} {amp.compute_type = f32
// CHECK: tosa.add {{.*}} {amp.compute_type = f32}
// CHECK: tosa.reduce_max %[[M2]] {amp.compute_type = [[LOW]]
// CHECK: tosa.reduce_min {{.*}} {amp.compute_type = [[LOW]]
// CHECK: tosa.tile {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.concat %[[M2F]], %{{.*}} {amp.compute_type = f32
// CHECK: tosa.cast %[[M2F]] : (tensor<1x8x8xf32>) -> tensor<1x8x8xi32>
// CHECK: tosa.gather %[[M2]], %{{.*}} {amp.compute_type = [[LOW]]}
// In eager mode the infer chain runs at the widest input, low here (the add
// reads the matmul twice; an f32 argument joining it would make it f32 in
// both modes, autocast-modes.mlir), as PyTorch would.
// EAGER-LABEL: func @tosa_ops
// EAGER: tosa.matmul {{.*}} {amp.compute_type = [[LOW]]}
// EAGER: tosa.add {{.*}} {amp.compute_type = [[LOW]]}
// EAGER: tosa.select {{.*}} {amp.compute_type = [[LOW]]}
// EAGER: tosa.matmul {{.*}} {amp.compute_type = [[LOW]]}
// EAGER: tosa.reduce_max {{.*}} {amp.compute_type = [[LOW]]
// EAGER: tosa.concat {{.*}} {amp.compute_type = f32
func.func @tosa_ops(%x: tensor<1x8x8xf32>, %w: tensor<1x8x8xf32>, %pred: tensor<1x8x8xi1>, %idx: tensor<1x4xi32>)
    -> (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x16x8xf32>, tensor<1x8x8xi32>, tensor<1x4x8xf32>) {
  %r:6 = amp.autocast device_type(DEVICE) -> (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x16x8xf32>, tensor<1x8x8xi32>, tensor<1x4x8xf32>) {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    // lower
    %m = tosa.matmul %x, %w, %z, %z : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
    // infer ops between two lower ops
    %a = tosa.add %m, %m : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %s = tosa.sub %a, %m : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %mu = tosa.mul %s, %a, %shift : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xi8>) -> tensor<1x8x8xf32>
    %n = tosa.negate %mu, %z, %z : (tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
    %ab = tosa.abs %n : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %t = tosa.tanh %ab : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %sg = tosa.sigmoid %t : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %er = tosa.erf %sg : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %cl = tosa.clamp %er {min_val = -1.0e+05 : f32, max_val = 6.0 : f32} : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %mx = tosa.maximum %cl, %m : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %mn = tosa.minimum %mx, %m : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    // clear ops between lower ops
    %perms = tosa.transpose %mn {perms = array<i32: 0, 2, 1>} : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %shape = tosa.const_shape {values = dense<[1, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %rs = tosa.reshape %perms, %shape : (tensor<1x8x8xf32>, !tosa.shape<3>) -> tensor<1x8x8xf32>
    %rv = tosa.reverse %rs {axis = 1 : i32} : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %sel = tosa.select %pred, %rv, %m : (tensor<1x8x8xi1>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %m2 = tosa.matmul %sel, %w, %z, %z : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
    // fp32 ops
    %e = tosa.exp %m2 : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %l = tosa.log %e : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %p = tosa.pow %l, %e : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %rc = tosa.reciprocal %p : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %rq = tosa.rsqrt %rc : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
    %rsum = tosa.reduce_sum %rq {axis = 2 : i32} : (tensor<1x8x8xf32>) -> tensor<1x8x1xf32>
    %rprod = tosa.reduce_product %rsum {axis = 1 : i32} : (tensor<1x8x1xf32>) -> tensor<1x1x1xf32>
    %bc = tosa.add %rq, %rprod : (tensor<1x8x8xf32>, tensor<1x1x1xf32>) -> tensor<1x8x8xf32>
    // max/min reductions are clear
    %rmax = tosa.reduce_max %m2 {axis = 2 : i32} : (tensor<1x8x8xf32>) -> tensor<1x8x1xf32>
    %rmin = tosa.reduce_min %rmax {axis = 1 : i32} : (tensor<1x8x1xf32>) -> tensor<1x1x1xf32>
    %tmul = tosa.const_shape {values = dense<[1, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %tile = tosa.tile %rmin, %tmul : (tensor<1x1x1xf32>, !tosa.shape<3>) -> tensor<1x8x8xf32>
    // promote: concat of the f16 matmul result with an f32 value
    %cat = tosa.concat %m2, %x {axis = 1 : i32} : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x16x8xf32>
    // keep: an explicit cast
    %ci = tosa.cast %m2 : (tensor<1x8x8xf32>) -> tensor<1x8x8xi32>
    // gather (clear) of the lower result
    %g = tosa.gather %m2, %idx : (tensor<1x8x8xf32>, tensor<1x4xi32>) -> tensor<1x4x8xf32>
    amp.yield %bc, %tile, %m2, %cat, %ci, %g : tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x16x8xf32>, tensor<1x8x8xi32>, tensor<1x4x8xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x16x8xf32>, tensor<1x8x8xi32>, tensor<1x4x8xf32>
}

// -----

// Convolutions and pooling: conv2d, depthwise_conv2d, transpose_conv2d and
// conv3d are lower; max_pool2d, slice and pad are clear; avg_pool2d is infer
// (it runs low between the convs and the result, accumulating in f32 through
// acc_type).
// CHECK-LABEL: func @tosa_conv
// CHECK: %[[C:.*]] = tosa.conv2d {{.*}} {acc_type = f32, amp.compute_type = [[LOW]], {{.*}} : (tensor<1x8x8x4x[[LOW]]>, tensor<4x3x3x4x[[LOW]]>, tensor<4x[[LOW]]>, tensor<1x[[LOW]]>, tensor<1x[[LOW]]>) -> tensor<1x8x8x4x[[LOW]]>
// CHECK: tosa.depthwise_conv2d {{.*}} {acc_type = f32, amp.compute_type = [[LOW]]
// CHECK: tosa.transpose_conv2d {{.*}} {acc_type = f32, amp.compute_type = [[LOW]]
// CHECK: tosa.max_pool2d {{.*}} {amp.compute_type = [[LOW]]
// CHECK: tosa.avg_pool2d {{.*}} {acc_type = f32, amp.compute_type = [[LOW]]
// CHECK: tosa.conv3d {{.*}} {acc_type = f32, amp.compute_type = [[LOW]]
// CHECK: tosa.slice %[[C]], {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: tosa.pad {{.*}} {amp.compute_type = [[LOW]]} : (tensor<1x2x2x4x[[LOW]]>, !tosa.shape<8>, tensor<1x[[LOW]]>)
func.func @tosa_conv(%img: tensor<1x8x8x4xf32>, %k: tensor<4x3x3x4xf32>, %bias: tensor<4xf32>,
                     %dk: tensor<3x3x4x1xf32>, %vol: tensor<1x4x8x8x4xf32>, %k3: tensor<4x3x3x3x4xf32>)
    -> (tensor<1x3x3x4xf32>, tensor<1x2x6x6x4xf32>, tensor<1x2x2x4xf32>) {
  %r:3 = amp.autocast device_type(DEVICE) -> (tensor<1x3x3x4xf32>, tensor<1x2x6x6x4xf32>, tensor<1x2x2x4xf32>) {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %c = tosa.conv2d %img, %k, %bias, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
    %d = tosa.depthwise_conv2d %c, %dk, %bias, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
    %t = tosa.transpose_conv2d %d, %k, %bias, %z, %z {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x10x4xf32>
    %mp = tosa.max_pool2d %t {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x10x10x4xf32>) -> tensor<1x5x5x4xf32>
    %ap = tosa.avg_pool2d %mp, %z, %z {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x5x5x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x4xf32>
    %c3 = tosa.conv3d %vol, %k3, %bias, %z, %z {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x4x8x8x4xf32>, tensor<4x3x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x6x6x4xf32>
    %start = tosa.const_shape {values = dense<[0, 1, 1, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %size = tosa.const_shape {values = dense<[1, 2, 2, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %sl = tosa.slice %c, %start, %size : (tensor<1x8x8x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x2x4xf32>
    %padding = tosa.const_shape {values = dense<[0, 0, 0, 0, 0, 0, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
    %pv = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %pd = tosa.pad %sl, %padding, %pv : (tensor<1x2x2x4xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x2x2x4xf32>
    amp.yield %ap, %c3, %pd : tensor<1x3x3x4xf32>, tensor<1x2x6x6x4xf32>, tensor<1x2x2x4xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1x3x3x4xf32>, tensor<1x2x6x6x4xf32>, tensor<1x2x2x4xf32>
}

// -----

// argmax is clear: it reads the low matmul result (the index is an i32).
// CHECK-LABEL: func @tosa_argmax
// CHECK: %[[M:.*]] = tosa.matmul {{.*}} -> tensor<1x8x8x[[LOW]]>
// CHECK: tosa.argmax %[[M]] {amp.compute_type = [[LOW]], axis = 2 : i32} : (tensor<1x8x8x[[LOW]]>) -> tensor<1x8xi32>
// EAGER-LABEL: func @tosa_argmax
// EAGER: tosa.argmax %{{.*}} {amp.compute_type = [[LOW]], axis = 2 : i32}
func.func @tosa_argmax(%x: tensor<1x8x8xf32>) -> tensor<1x8xi32> {
  %r = amp.autocast device_type(DEVICE) -> tensor<1x8xi32> {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %x, %x, %z, %z : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
    %a = tosa.argmax %m {axis = 2 : i32} : (tensor<1x8x8xf32>) -> tensor<1x8xi32>
    amp.yield %a : tensor<1x8xi32>
  }
  return %r : tensor<1x8xi32>
}
