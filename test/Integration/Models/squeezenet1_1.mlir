// squeezenet1_1 from examples/models (torchvision, exported by torch-mlir), with @forward
// decorated for autocast on cuda (f16) and cpu (bf16), in both modes: the passes
// succeed, the output verifies (amp-opt re-parses it), every convolution and
// matmul computes in the low type with an f32 accumulator, and the batch-norm
// statistics (math.rsqrt in the normalisation generics) stay f32.
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cuda>} {/' %models/squeezenet1_1.mlir | amp-opt --amp-autocast=mode=graph --amp-fp32-accumulation | amp-opt | FileCheck %s -DLOW=f16
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cuda>} {/' %models/squeezenet1_1.mlir | amp-opt --amp-autocast=mode=eager --amp-fp32-accumulation | amp-opt | FileCheck %s -DLOW=f16
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cpu>} {/' %models/squeezenet1_1.mlir | amp-opt --amp-autocast=mode=graph --amp-fp32-accumulation | amp-opt | FileCheck %s -DLOW=bf16
// RUN: sed -e 's/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = cpu>} {/' %models/squeezenet1_1.mlir | amp-opt --amp-autocast=mode=eager --amp-fp32-accumulation | amp-opt | FileCheck %s -DLOW=bf16

// CHECK-LABEL: func @forward
// CHECK-NOT: amp.autocast
// CHECK-COUNT-26: linalg.conv_2d_nchw_fchw {{.*}} ins({{.*}} : tensor<{{[0-9x]+}}x[[LOW]]>, tensor<{{[0-9x]+}}x[[LOW]]>) outs({{.*}} : tensor<{{[0-9x]+}}xf32>)
// CHECK-NOT: linalg.conv_2d_nchw_fchw
