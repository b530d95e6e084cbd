// Which operands decide "the widest input type" of promote and infer ops,
// in both modes and on both devices:
// - tosa zero points and pad constants (one-element f32 tensors) do not: a
//   negate, pad or avg_pool2d of an f16 matmul result stays low, as
//   PyTorch's neg, constant_pad_nd and avg_pool2d of a half tensor are half;
// - the destination of tensor.insert_slice and tensor.insert does: inserting
//   a low value into an f32 tensor runs in f32 (the value is extended, the
//   destination is never narrowed), as a slice assignment into an f32 tensor
//   stays f32 in PyTorch.
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt -split-input-file --amp-autocast=annotate | FileCheck %s -DLOW=f16
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s -DLOW=f16
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt -split-input-file --amp-autocast=annotate | FileCheck %s -DLOW=bf16
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s -DLOW=bf16

// CHECK-LABEL: func @zero_points
// CHECK: %[[M:.*]] = tosa.matmul {{.*}} -> tensor<1x8x8x[[LOW]]>
// CHECK: tosa.negate %[[M]], %{{.*}}, %{{.*}} {amp.compute_type = [[LOW]]} : (tensor<1x8x8x[[LOW]]>, tensor<1x[[LOW]]>, tensor<1x[[LOW]]>) -> tensor<1x8x8x[[LOW]]>
// CHECK: tosa.pad %[[M]], %{{.*}}, %{{.*}} {amp.compute_type = [[LOW]]} : (tensor<1x8x8x[[LOW]]>, !tosa.shape<6>, tensor<1x[[LOW]]>) -> tensor<1x8x8x[[LOW]]>
// CHECK: tosa.avg_pool2d {{.*}}amp.compute_type = [[LOW]]{{.*}} : (tensor<1x8x8x1x[[LOW]]>, tensor<1x[[LOW]]>, tensor<1x[[LOW]]>) -> tensor<1x4x4x1x[[LOW]]>
func.func @zero_points(%x: tensor<1x8x8xf32>) -> (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x4x4x1xf32>) {
  %r:3 = amp.autocast device_type(DEVICE) -> (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x4x4x1xf32>) {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %x, %x, %z, %z : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
    %n = tosa.negate %m, %z, %z : (tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
    %padding = tosa.const_shape {values = dense<0> : tensor<6xindex>} : () -> !tosa.shape<6>
    %p = tosa.pad %m, %padding, %z : (tensor<1x8x8xf32>, !tosa.shape<6>, tensor<1xf32>) -> tensor<1x8x8xf32>
    %shape = tosa.const_shape {values = dense<[1, 8, 8, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %nhwc = tosa.reshape %m, %shape : (tensor<1x8x8xf32>, !tosa.shape<4>) -> tensor<1x8x8x1xf32>
    %a = tosa.avg_pool2d %nhwc, %z, %z {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x1xf32>
    amp.yield %n, %p, %a : tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x4x4x1xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1x4x4x1xf32>
}

// -----

// CHECK-LABEL: func @insert_into_wider
// CHECK-SAME: (%{{.*}}: tensor<2x4xf32>, %{{.*}}: tensor<4x4xf32>, %[[BIG:.*]]: tensor<4x4xf32>)
// CHECK-NOT: amp.cast %[[BIG]]
// CHECK: %[[M:.*]] = linalg.matmul {{.*}} -> tensor<2x4x[[LOW]]>
// CHECK: %[[MW:.*]] = amp.cast %[[M]] : tensor<2x4x[[LOW]]> to tensor<2x4xf32>
// CHECK: %[[S:.*]] = tensor.insert_slice %[[MW]] into %[[BIG]][2, 0] [2, 4] [1, 1] {amp.compute_type = f32} : tensor<2x4xf32> into tensor<4x4xf32>
// CHECK: %[[V:.*]] = tensor.extract %[[M]]{{.*}} : tensor<2x4x[[LOW]]>
// CHECK: %[[VW:.*]] = amp.cast %[[V]] : [[LOW]] to f32
// CHECK: %[[I:.*]] = tensor.insert %[[VW]] into %[[BIG]]{{.*}} {amp.compute_type = f32} : tensor<4x4xf32>
// CHECK-NOT: amp.cast %[[BIG]]
// CHECK: return %[[S]], %[[I]]
func.func @insert_into_wider(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %big: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %r:2 = amp.autocast device_type(DEVICE) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
    %e = tensor.empty() : tensor<2x4xf32>
    %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
    %ins = tensor.insert_slice %m into %big[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %m[%c0, %c0] : tensor<2x4xf32>
    %one = tensor.insert %v into %big[%c0, %c0] : tensor<4x4xf32>
    amp.yield %ins, %one : tensor<4x4xf32>, tensor<4x4xf32>
  }
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<4x4xf32>
}
