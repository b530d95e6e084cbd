// efficientnet_b0 from examples/models (torchvision, exported by torch-mlir), with @forward
// decorated for autocast on cuda (f16) and cpu (bf16), in both modes: the passes
// succeed, the output verifies (amp-opt re-parses it), every convolution and
// matmul computes in the low type with an f32 accumulator, and the batch-norm
// statistics (math.rsqrt in the normalisation generics) stay f32.
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cuda>} {/' %models/efficientnet_b0.mlir | amp-opt --amp-autocast=mode=graph --amp-fp32-accumulation | amp-opt | FileCheck %s -DLOW=f16
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cuda>} {/' %models/efficientnet_b0.mlir | amp-opt --amp-autocast=mode=eager --amp-fp32-accumulation | amp-opt | FileCheck %s -DLOW=f16
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cpu>} {/' %models/efficientnet_b0.mlir | amp-opt --amp-autocast=mode=graph --amp-fp32-accumulation | amp-opt | FileCheck %s -DLOW=bf16
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cpu>} {/' %models/efficientnet_b0.mlir | amp-opt --amp-autocast=mode=eager --amp-fp32-accumulation | amp-opt | FileCheck %s -DLOW=bf16

// CHECK-LABEL: func @forward
// CHECK-NOT: amp.autocast
// CHECK-COUNT-65: linalg.conv_2d_nchw_fchw {{.*}} ins({{.*}} : tensor<{{[0-9x]+}}x[[LOW]]>, tensor<{{[0-9x]+}}x[[LOW]]>) outs({{.*}} : tensor<{{[0-9x]+}}xf32>)
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cuda>} {/' %models/efficientnet_b0.mlir | amp-opt --amp-autocast --amp-fp32-accumulation | FileCheck %s --check-prefix=OPS -DLOW=f16
// OPS-COUNT-16: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins({{.*}} : tensor<{{[0-9x]+}}x[[LOW]]>, tensor<{{[0-9x]+}}x[[LOW]]>) outs({{.*}} : tensor<{{[0-9x]+}}xf32>)
// OPS-NOT: linalg.depthwise_conv_2d_nchw_chw
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cpu>} {/' %models/efficientnet_b0.mlir | amp-opt --amp-autocast --amp-fp32-accumulation | FileCheck %s --check-prefix=MM -DLOW=bf16
// MM: linalg.matmul{{.*}} ins({{.*}} : tensor<{{[0-9x]+}}x[[LOW]]>, tensor<{{[0-9x]+}}x[[LOW]]>) outs({{.*}} : tensor<{{[0-9x]+}}xf32>)
// MM-NOT: linalg.matmul
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cpu>} {/' %models/efficientnet_b0.mlir | amp-opt --amp-autocast --amp-fp32-accumulation | FileCheck %s --check-prefix=BN
// BN-COUNT-49: math.rsqrt %{{.*}} : f32
// BN-NOT: math.rsqrt %{{.*}} : {{b?}}f16
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cuda>} {/' %models/efficientnet_b0.mlir | amp-opt --amp-autocast --amp-fp32-accumulation | FileCheck %s --check-prefix=EXP
// EXP-COUNT-65: math.exp %{{.*}} : f32
