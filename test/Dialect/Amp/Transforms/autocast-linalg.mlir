// The cast policy on linalg ops, both devices, both modes.
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt -split-input-file --amp-autocast=annotate | FileCheck %s -DLOW=f16 --check-prefixes=CHECK,CUDA
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt -split-input-file --amp-autocast=annotate | FileCheck %s -DLOW=bf16 --check-prefixes=CHECK,CPU
// Eager mode gives the same types here: every infer and clear op reads low
// values only (a pooling window, a tensor.empty, carries no data).
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s -DLOW=f16 --check-prefixes=CHECK,CUDA
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s -DLOW=bf16 --check-prefixes=CHECK,CPU

// Named contractions and convolutions are lower (their f32 zero-filled
// inits are rebuilt at the low type); matvec/vecmat are lower on cuda (PyTorch
// mv) and unlisted on cpu; dot is promote on cuda and unlisted on cpu (f32
// inputs: f32); sum pooling is infer, max pooling clear (both low here,
// between a conv and the results).
// CHECK-LABEL: func @linalg_named
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : [[LOW]]
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : [[LOW]]) outs(%{{.*}} : tensor<4x4x[[LOW]]>)
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]} ins({{.*}} : tensor<4x4x[[LOW]]>, tensor<4x4x[[LOW]]>) outs(%[[F]] : tensor<4x4x[[LOW]]>)
// CHECK: linalg.batch_matmul {amp.compute_type = [[LOW]]} ins({{.*}} : tensor<2x4x4x[[LOW]]>, tensor<2x4x4x[[LOW]]>) outs({{.*}} : tensor<2x4x4x[[LOW]]>)
// CUDA: linalg.matvec {amp.compute_type = f16}
// CUDA: linalg.vecmat {amp.compute_type = f16}
// CPU: linalg.matvec {amp.compute_type = f32}
// CPU: linalg.vecmat {amp.compute_type = f32}
// CHECK: linalg.dot {amp.compute_type = f32}
// CHECK: linalg.contract {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: linalg.conv_2d_nhwc_hwcf {amp.compute_type = [[LOW]]{{.*}} ins({{.*}} : tensor<1x6x6x4x[[LOW]]>, tensor<3x3x4x4x[[LOW]]>)
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {amp.compute_type = [[LOW]]
// CHECK: linalg.conv_2d_nchw_fchw {amp.compute_type = [[LOW]]
// Sum pooling is avg_pool's window sum (torch-mlir: pooling sum + divide): f32 (issue 26).
// CHECK: linalg.pooling_nhwc_sum {amp.compute_type = f32
// CHECK: linalg.pooling_nhwc_max {amp.compute_type = [[LOW]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @linalg_named(%a: tensor<4x4xf32>, %b3: tensor<2x4x4xf32>, %v: tensor<4xf32>,
                        %img: tensor<1x6x6x4xf32>, %k: tensor<3x3x4x4xf32>, %dk: tensor<3x3x4xf32>,
                        %nchw: tensor<1x4x6x6xf32>, %fchw: tensor<4x4x3x3xf32>)
    -> (tensor<4x4xf32>, tensor<2x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4x4xf32>,
        tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %r:11 = amp.autocast device_type(DEVICE) -> (tensor<4x4xf32>, tensor<2x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4x4xf32>,
        tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>) {
    %e2 = tensor.empty() : tensor<4x4xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %mm = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %e3 = tensor.empty() : tensor<2x4x4xf32>
    %bmm = linalg.batch_matmul ins(%b3, %b3 : tensor<2x4x4xf32>, tensor<2x4x4xf32>) outs(%e3 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %e1 = tensor.empty() : tensor<4xf32>
    %mv = linalg.matvec ins(%a, %v : tensor<4x4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
    %vm = linalg.vecmat ins(%v, %a : tensor<4xf32>, tensor<4x4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
    %e0 = tensor.empty() : tensor<f32>
    %dot = linalg.dot ins(%v, %v : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<f32>) -> tensor<f32>
    %con = linalg.contract indexing_maps = [#mk, #kn, #mn] ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %e4 = tensor.empty() : tensor<1x4x4x4xf32>
    %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%img, %k : tensor<1x6x6x4xf32>, tensor<3x3x4x4xf32>) outs(%f4 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %dw = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%img, %dk : tensor<1x6x6x4xf32>, tensor<3x3x4xf32>) outs(%f4 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %cnchw = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%nchw, %fchw : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>) outs(%f4 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %win = tensor.empty() : tensor<2x2xf32>
    %e5 = tensor.empty() : tensor<1x2x2x4xf32>
    %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
    %psum = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%conv, %win : tensor<1x4x4x4xf32>, tensor<2x2xf32>) outs(%f5 : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
    %pmax = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%conv, %win : tensor<1x4x4x4xf32>, tensor<2x2xf32>) outs(%f5 : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
    amp.yield %mm, %bmm, %mv, %vm, %dot, %con, %conv, %dw, %cnchw, %psum, %pmax : tensor<4x4xf32>, tensor<2x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4x4xf32>,
        tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10 : tensor<4x4xf32>, tensor<2x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4x4xf32>,
        tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>
}

// -----

// Payload-classified ops: a contraction-shaped generic is lower; a sum
// reduction and a generic with math.exp inside are fp32 (a captured f64 stays
// f64); relu written as cmpf + select is clear; an elementwise generic with a
// captured f32 scalar is infer and the scalar is cast; linalg.map is infer,
// linalg.reduce with maximumf clear, linalg.elementwise exp and softmax fp32,
// copy/transpose/broadcast clear, linalg.elementwise add infer.
// CHECK-LABEL: func @linalg_payloads
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>, %[[SCALE:.*]]: f32, %[[EPS:.*]]: f64)
// CHECK: %[[SCALEL:.*]] = amp.cast %[[SCALE]] : f32 to [[LOW]]
// CHECK: %[[GMM:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x4x[[LOW]]>, tensor<4x4x[[LOW]]>) outs(%{{.*}} : tensor<4x4x[[LOW]]>) attrs = {amp.compute_type = [[LOW]]}
// CHECK: ^bb0(%{{.*}}: [[LOW]], %{{.*}}: [[LOW]], %{{.*}}: [[LOW]]):
// CHECK: arith.mulf {{.*}} : [[LOW]]
// CHECK: arith.addf {{.*}} : [[LOW]]
// CHECK: %[[GMMF:.*]] = amp.cast %[[GMM]] : tensor<4x4x[[LOW]]> to tensor<4x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[GMMF]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4xf32>) attrs = {amp.compute_type = f32}
// CHECK: linalg.generic {{.*}} ins(%[[GMMF]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>) attrs = {amp.compute_type = f32}
// CHECK: arith.truncf %[[EPS]] : f64 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[GMM]] : tensor<4x4x[[LOW]]>) {{.*}} attrs = {amp.compute_type = [[LOW]]}
// CHECK: arith.cmpf ugt, %{{.*}}, %{{.*}} : [[LOW]]
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : [[LOW]]
// CHECK: linalg.generic {{.*}} ins(%[[RELU]] : tensor<4x4x[[LOW]]>) {{.*}} attrs = {amp.compute_type = [[LOW]]}
// CHECK: arith.mulf %{{.*}}, %[[SCALEL]] : [[LOW]]
// CHECK: %[[MM:.*]] = linalg.matmul {amp.compute_type = [[LOW]]}
// CHECK: %[[MMF:.*]] = amp.cast %[[MM]] : tensor<4x4x[[LOW]]> to tensor<4x4xf32>
// CHECK: linalg.map { arith.negf } ins(%[[MM]] : tensor<4x4x[[LOW]]>) outs(%{{.*}} : tensor<4x4x[[LOW]]>) {amp.compute_type = [[LOW]]}
// CHECK: linalg.reduce { arith.maximumf } ins(%[[MM]] : tensor<4x4x[[LOW]]>) outs(%{{.*}} : tensor<4x[[LOW]]>) dimensions = [1] {amp.compute_type = [[LOW]]}
// CHECK: linalg.elementwise kind=#linalg.elementwise_kind<exp> {amp.compute_type = f32} ins(%[[MMF]] : tensor<4x4xf32>)
// CHECK: linalg.softmax {amp.compute_type = f32} dimension(1) ins(%[[MMF]] : tensor<4x4xf32>)
// CHECK: linalg.copy {amp.compute_type = [[LOW]]}
// CHECK: linalg.transpose {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: linalg.broadcast {{.*}} {amp.compute_type = [[LOW]]}
// CHECK: linalg.elementwise kind=#linalg.elementwise_kind<add> {amp.compute_type = [[LOW]]}
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]}
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @linalg_payloads(%a: tensor<4x4xf32>, %scale: f32, %eps: f64)
    -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %r:7 = amp.autocast device_type(DEVICE) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
    %e2 = tensor.empty() : tensor<4x4xf32>
    %e1 = tensor.empty() : tensor<4xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    // A contraction written as a generic: lower.
    %gmm = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f2 : tensor<4x4xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<4x4xf32>
    // A sum reduction as a generic: fp32.
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
    %gsum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%gmm : tensor<4x4xf32>) outs(%f1 : tensor<4xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %s = arith.addf %acc, %x : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    // exp inside: fp32. The captured f64 eps is untouched.
    %gexp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%gmm : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %t = arith.truncf %eps : f64 to f32
      %y = arith.addf %x, %t : f32
      %z = math.exp %y : f32
      linalg.yield %z : f32
    } -> tensor<4x4xf32>
    // relu as cmpf + select: clear (low between the contraction and the sink).
    %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%gmm : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %c = arith.cmpf ugt, %x, %zero : f32
      %y = arith.select %c, %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<4x4xf32>
    // Elementwise with a captured f32 scalar: infer; the scalar is cast.
    %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%relu : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %scale : f32
      linalg.yield %y : f32
    } -> tensor<4x4xf32>
    %mm = linalg.matmul ins(%scaled, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    // map (infer), reduce with max (clear), elementwise exp (fp32), softmax
    // (fp32), copy / transpose / broadcast (clear).
    %mp = linalg.map { arith.negf } ins(%mm : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>)
    %rmax = linalg.reduce { arith.maximumf } ins(%mm : tensor<4x4xf32>) outs(%f1 : tensor<4xf32>) dimensions = [1]
    %ex = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%mm : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %sm = linalg.softmax dimension(1) ins(%mm : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %cp = linalg.copy ins(%mm : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %tr = linalg.transpose ins(%cp : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) permutation = [1, 0]
    %bc = linalg.broadcast ins(%rmax : tensor<4xf32>) outs(%e2 : tensor<4x4xf32>) dimensions = [1]
    %add = linalg.elementwise kind=#linalg.elementwise_kind<add> ins(%tr, %bc : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %mm2 = linalg.matmul ins(%add, %mp : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    amp.yield %gexp, %gsum, %mm2, %rmax, %ex, %sm, %mm : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
