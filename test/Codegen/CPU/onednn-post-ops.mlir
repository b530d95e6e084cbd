// RUN: amp-opt %s -split-input-file --amp-cpu-onednn-contractions | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-cpu-onednn-contractions=post-ops=false | FileCheck %s --check-prefix=OFF

// Batch norm (eval) + ReLU after a convolution, as torch-mlir's resnet18
// leaves it after fusion: (x - mean) * rsqrt(var + eps) * weight + bias,
// ReLU as cmpf ugt + select. The generic becomes oneDNN post-ops of the
// call: sub slot 0, mul slot 1, mul slot 2, add slot 3, relu, one byte each
// (2 | 11 << 8 | 19 << 16 | 25 << 24 | 5 << 32 = 21895514882), on 1 x C x 1
// x 1 views of the per-channel operands; the unused slots repeat slot 0.
// The call writes the generic's output and goes where the generic was,
// after the rsqrt loop that computes one of its operands; the convolution's
// f32 output and its fill are gone.
// CHECK-LABEL: func @conv_bn_relu
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic
// CHECK: math.rsqrt
// CHECK: %[[R:.*]] = memref.alloc() : memref<1x5x7x7xf32>
// CHECK-DAG: %[[PRODUCTS:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[PROGRAM:.*]] = arith.constant 21895514882 : i64
// CHECK: %[[S0:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, %{{.*}}, 1, 1], strides: [0, %{{.*}}, 0, 0]
// CHECK: %[[S1:.*]] = memref.reinterpret_cast
// CHECK: %[[S2:.*]] = memref.reinterpret_cast
// CHECK: %[[S3:.*]] = memref.reinterpret_cast
// CHECK: call @ampOnednnConv2dPost_f32_f32_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PRODUCTS]], %[[PROGRAM]], %[[S0]], %[[S1]], %[[S2]], %[[S3]], %[[S0]], %[[S0]])
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<1x5x7x7xf32>
// CHECK: return %[[R]]
// CHECK: func.func private @ampOnednnConv2dPost_f32_f32_f32({{.*}}, index, index, index, index, index, index, i64, i64, {{.*}}) attributes {llvm.emit_c_interface}
// OFF-LABEL: func @conv_bn_relu
// OFF: call @ampOnednnConv2dNchwFchw_f32_f32_f32(
// OFF: linalg.generic
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @conv_bn_relu(%i: memref<1x3x9x9xf32>, %f: memref<5x3x3x3xf32>, %mean: memref<5x1x1xf32>,
                        %var: memref<5x1x1xf32>, %w: memref<5x1x1xf32>, %b: memref<5x1x1xf32>) -> memref<1x5x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %o = memref.alloc() {alignment = 64 : i64} : memref<1x5x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<1x5x7x7xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<1x3x9x9xf32>, memref<5x3x3x3xf32>) outs(%o : memref<1x5x7x7xf32>)
  %rs = memref.alloc() : memref<5x1x1xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%var : memref<5x1x1xf32>) outs(%rs : memref<5x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %eps : f32
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  }
  %r = memref.alloc() : memref<1x5x7x7xf32>
  linalg.generic {indexing_maps = [#id, #ch, #ch, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o, %mean, %rs, %w, %b : memref<1x5x7x7xf32>, memref<5x1x1xf32>, memref<5x1x1xf32>, memref<5x1x1xf32>, memref<5x1x1xf32>)
      outs(%r : memref<1x5x7x7xf32>) {
  ^bb0(%x: f32, %m: f32, %s: f32, %g: f32, %h: f32, %out: f32):
    %0 = arith.subf %x, %m : f32
    %1 = arith.mulf %0, %s : f32
    %2 = arith.mulf %1, %g : f32
    %3 = arith.addf %2, %h : f32
    %4 = arith.cmpf ugt, %3, %zero : f32
    %5 = arith.select %4, %3, %zero : f32
    linalg.yield %5 : f32
  }
  memref.dealloc %o : memref<1x5x7x7xf32>
  memref.dealloc %rs : memref<5x1x1xf32>
  return %r : memref<1x5x7x7xf32>
}

// -----

// Autocast's form with a residual: the convolution's value rounded to bf16
// and widened (dropped: the chain reads the f32 accumulator), batch norm,
// the f32 residual (full size: slot 4, identity map), the rounding to bf16
// and a bf16 ReLU (rounding commutes with it): a bf16 output.
// CHECK-LABEL: func @conv_bn_residual_relu_bf16
// CHECK-DAG: %[[PROGRAM:.*]] = arith.constant 5639712738050 : i64
// CHECK: memref.extract_strided_metadata %arg6
// CHECK-NEXT: %[[RES:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], strides: [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: call @ampOnednnConv2dPost_bf16_bf16_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PROGRAM]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[RES]], %{{.*}})
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @conv_bn_residual_relu_bf16(%i: memref<2x3x9x9xbf16>, %f: memref<5x3x3x3xbf16>, %mean: memref<5x1x1xf32>,
                                      %rs: memref<5x1x1xf32>, %w: memref<5x1x1xf32>, %b: memref<5x1x1xf32>,
                                      %res: memref<2x5x7x7xf32>) -> memref<2x5x7x7xbf16> {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : bf16
  %o = memref.alloc() {alignment = 64 : i64} : memref<2x5x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<2x5x7x7xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<2x3x9x9xbf16>, memref<5x3x3x3xbf16>) outs(%o : memref<2x5x7x7xf32>)
  %r = memref.alloc() : memref<2x5x7x7xbf16>
  linalg.generic {indexing_maps = [#id, #ch, #ch, #ch, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o, %mean, %rs, %w, %b, %res : memref<2x5x7x7xf32>, memref<5x1x1xf32>, memref<5x1x1xf32>, memref<5x1x1xf32>, memref<5x1x1xf32>, memref<2x5x7x7xf32>)
      outs(%r : memref<2x5x7x7xbf16>) {
  ^bb0(%x: f32, %m: f32, %s: f32, %g: f32, %h: f32, %y: f32, %out: bf16):
    %t = arith.truncf %x : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    %0 = arith.subf %e, %m : f32
    %1 = arith.mulf %0, %s : f32
    %2 = arith.mulf %g, %1 : f32
    %3 = arith.addf %2, %h : f32
    %4 = arith.addf %3, %y : f32
    %5 = arith.truncf %4 : f32 to bf16
    %6 = arith.cmpf ugt, %5, %zero16 : bf16
    %7 = arith.select %6, %5, %zero16 : bf16
    linalg.yield %7 : bf16
  }
  memref.dealloc %o : memref<2x5x7x7xf32>
  return %r : memref<2x5x7x7xbf16>
}

// -----

// A ReLU alone (maximumf with 0): no operand, a 1-element scratch buffer
// fills the slots.
// CHECK-LABEL: func @conv_relu
// CHECK: %[[SCRATCH:.*]] = memref.alloca() : memref<1x1x1x1xf32>
// CHECK: call @ampOnednnConv2dPost_f32_f32_f32(
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_relu(%i: memref<1x3x9x9xf32>, %f: memref<5x3x3x3xf32>) -> memref<1x5x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() : memref<1x5x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<1x5x7x7xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<1x3x9x9xf32>, memref<5x3x3x3xf32>) outs(%o : memref<1x5x7x7xf32>)
  %r = memref.alloc() : memref<1x5x7x7xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o : memref<1x5x7x7xf32>) outs(%r : memref<1x5x7x7xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.maximumf %x, %zero : f32
    linalg.yield %0 : f32
  }
  return %r : memref<1x5x7x7xf32>
}

// -----

// Not folded: the convolution's value subtracted from an operand (oneDNN's
// binary_sub computes x - s only); an op between the convolution and the
// generic that writes the convolution's input; a consumer that is not the
// only reader of the output.
// CHECK-LABEL: func @not_folded
// CHECK: call @ampOnednnConv2dNchwFchw_f32_f32_f32(
// CHECK: linalg.generic
// CHECK: call @ampOnednnConv2dNchwFchw_f32_f32_f32(
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: call @ampOnednnConv2dNchwFchw_f32_f32_f32(
// CHECK: linalg.generic
// CHECK-NOT: ampOnednnConv2dPost
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @not_folded(%i: memref<1x3x9x9xf32>, %f: memref<5x3x3x3xf32>, %mean: memref<5x1x1xf32>)
    -> (memref<1x5x7x7xf32>, memref<1x5x7x7xf32>, memref<1x5x7x7xf32>, memref<1x5x7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %o = memref.alloc() : memref<1x5x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<1x5x7x7xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<1x3x9x9xf32>, memref<5x3x3x3xf32>) outs(%o : memref<1x5x7x7xf32>)
  %r = memref.alloc() : memref<1x5x7x7xf32>
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o, %mean : memref<1x5x7x7xf32>, memref<5x1x1xf32>) outs(%r : memref<1x5x7x7xf32>) {
  ^bb0(%x: f32, %m: f32, %out: f32):
    %0 = arith.subf %m, %x : f32
    linalg.yield %0 : f32
  }
  %in2 = memref.alloc() : memref<1x3x9x9xf32>
  memref.copy %i, %in2 : memref<1x3x9x9xf32> to memref<1x3x9x9xf32>
  %o2 = memref.alloc() : memref<1x5x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%o2 : memref<1x5x7x7xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in2, %f : memref<1x3x9x9xf32>, memref<5x3x3x3xf32>) outs(%o2 : memref<1x5x7x7xf32>)
  linalg.fill ins(%one : f32) outs(%in2 : memref<1x3x9x9xf32>)
  %r2 = memref.alloc() : memref<1x5x7x7xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o2 : memref<1x5x7x7xf32>) outs(%r2 : memref<1x5x7x7xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.maximumf %x, %zero : f32
    linalg.yield %0 : f32
  }
  %o3 = memref.alloc() : memref<1x5x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%o3 : memref<1x5x7x7xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<1x3x9x9xf32>, memref<5x3x3x3xf32>) outs(%o3 : memref<1x5x7x7xf32>)
  %r3 = memref.alloc() : memref<1x5x7x7xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o3 : memref<1x5x7x7xf32>) outs(%r3 : memref<1x5x7x7xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.maximumf %x, %zero : f32
    linalg.yield %0 : f32
  }
  return %r, %r2, %r3, %o3 : memref<1x5x7x7xf32>, memref<1x5x7x7xf32>, memref<1x5x7x7xf32>, memref<1x5x7x7xf32>
}

// -----

// A Linear's matmul (transposed B) whose 512 x 64 result a generic reads
// through torch-mlir's 4 x 128 x 64 view: bias (per column: the last loop
// only) + erf-GELU (x * ((erf(x / sqrt 2) + 1) * 0.5)) become post-ops
// add slot 0 (1) and gelu_erf (6): 1 | 6 << 8 = 1537; the call writes the
// generic's output viewed as [1, 512, 64], the bias as [1, 1, 64].
// CHECK-LABEL: func @linear_bias_gelu
// CHECK: %[[C:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, 512, 64], strides: [32768, 64, 1]
// CHECK: %[[PROGRAM:.*]] = arith.constant 1537 : i64
// CHECK: %[[BIAS:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, 1, %{{.*}}], strides: [0, 0, %{{.*}}]
// CHECK: call @ampOnednnMatmulPost_f32_f32_f32_f32(%{{.*}}, %{{.*}}, %[[C]], %[[PROGRAM]], %[[BIAS]], %[[BIAS]], %[[BIAS]], %[[BIAS]], %[[BIAS]], %[[BIAS]])
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.expand_shape
// OFF-LABEL: func @linear_bias_gelu
// OFF: call @ampOnednnMatmul_f32_f32_f32(
// OFF: linalg.generic
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#col = affine_map<(d0, d1, d2) -> (d2)>
func.func @linear_bias_gelu(%x: memref<512x32xf32>, %w: memref<64x32xf32>, %b: memref<64xf32>) -> memref<4x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %sqrt2 = arith.constant 1.41421354 : f32
  %o = memref.alloc() {alignment = 64 : i64} : memref<512x64xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<512x64xf32>)
  linalg.matmul indexing_maps = [#a, #bt, #c] {amp_cpu.onednn} ins(%x, %w : memref<512x32xf32>, memref<64x32xf32>) outs(%o : memref<512x64xf32>)
  %v = memref.expand_shape %o [[0, 1], [2]] output_shape [4, 128, 64] : memref<512x64xf32> into memref<4x128x64xf32>
  %r = memref.alloc() {alignment = 64 : i64} : memref<4x128x64xf32>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v, %b : memref<4x128x64xf32>, memref<64xf32>) outs(%r : memref<4x128x64xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    %1 = arith.divf %0, %sqrt2 : f32
    %2 = math.erf %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.mulf %3, %half : f32
    %5 = arith.mulf %0, %4 : f32
    linalg.yield %5 : f32
  }
  memref.dealloc %o : memref<512x64xf32>
  return %r : memref<4x128x64xf32>
}

// -----

// Autocast's form: the accumulator rounded to bf16, a bf16 bias and a bf16
// GELU chain: computed in f32 by oneDNN with one rounding at the end (a bf16
// output); the bf16 operand sets bit 6 of its op: 0x41 | 6 << 8 = 1601.
// Then a matmul + bias + f32 residual (full size: [1, M, N]) in f32:
// add slot 0, add slot 1: 1 | 9 << 8 = 2305.
// CHECK-LABEL: func @linear_autocast_and_residual
// CHECK-DAG: arith.constant 1601 : i64
// CHECK: call @ampOnednnMatmulPost_bf16_bf16_bf16_bf16(
// CHECK-DAG: arith.constant 2305 : i64
// CHECK: %[[RES:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, 512, 64], strides: [32768, 64, 1]
// CHECK: call @ampOnednnMatmulPost_f32_f32_f32_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[RES]],
// CHECK-NOT: linalg.generic
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#col = affine_map<(d0, d1, d2) -> (d2)>
func.func @linear_autocast_and_residual(%x: memref<512x32xbf16>, %w: memref<64x32xbf16>, %b: memref<64xbf16>,
                                        %xf: memref<512x32xf32>, %wf: memref<64x32xf32>, %bf: memref<64xf32>,
                                        %res: memref<4x128x64xf32>) -> (memref<4x128x64xbf16>, memref<4x128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %half = arith.constant 0.5 : bf16
  %sqrt2 = arith.constant 1.414060e+00 : bf16
  %o = memref.alloc() {alignment = 64 : i64} : memref<512x64xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<512x64xf32>)
  linalg.matmul indexing_maps = [#a, #bt, #c] {amp_cpu.onednn} ins(%x, %w : memref<512x32xbf16>, memref<64x32xbf16>) outs(%o : memref<512x64xf32>)
  %v = memref.expand_shape %o [[0, 1], [2]] output_shape [4, 128, 64] : memref<512x64xf32> into memref<4x128x64xf32>
  %r = memref.alloc() {alignment = 64 : i64} : memref<4x128x64xbf16>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v, %b : memref<4x128x64xf32>, memref<64xbf16>) outs(%r : memref<4x128x64xbf16>) {
  ^bb0(%in: f32, %bias: bf16, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    %0 = arith.addf %t, %bias : bf16
    %1 = arith.divf %0, %sqrt2 : bf16
    %2 = math.erf %1 : bf16
    %3 = arith.addf %2, %one : bf16
    %4 = arith.mulf %3, %half : bf16
    %5 = arith.mulf %0, %4 : bf16
    linalg.yield %5 : bf16
  }
  %o2 = memref.alloc() {alignment = 64 : i64} : memref<512x64xf32>
  linalg.fill ins(%zero : f32) outs(%o2 : memref<512x64xf32>)
  linalg.matmul indexing_maps = [#a, #bt, #c] {amp_cpu.onednn} ins(%xf, %wf : memref<512x32xf32>, memref<64x32xf32>) outs(%o2 : memref<512x64xf32>)
  %v2 = memref.expand_shape %o2 [[0, 1], [2]] output_shape [4, 128, 64] : memref<512x64xf32> into memref<4x128x64xf32>
  %r2 = memref.alloc() {alignment = 64 : i64} : memref<4x128x64xf32>
  linalg.generic {indexing_maps = [#id, #col, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v2, %bf, %res : memref<4x128x64xf32>, memref<64xf32>, memref<4x128x64xf32>) outs(%r2 : memref<4x128x64xf32>) {
  ^bb0(%in: f32, %bias: f32, %y: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    %1 = arith.addf %y, %0 : f32
    linalg.yield %1 : f32
  }
  return %r, %r2 : memref<4x128x64xbf16>, memref<4x128x64xf32>
}

// -----

// nn.MultiheadAttention's input projection: C is a collapse_shape of a
// 128 x 4 x 96 buffer, read through an expand_shape that splits N = 96 into
// 3 x 32; the bias (3 x 32, read by those two loops) is N contiguous values:
// a [1, 1, 96] view with unit stride; the collapse, the expand and the
// buffer go.
// CHECK-LABEL: func @in_projection_bias
// CHECK: %[[BIAS:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, 1, 96], strides: [0, 0, 1]
// CHECK: call @ampOnednnMatmulPost_f32_f32_f32_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]],
// CHECK-NOT: memref.collapse_shape %alloc
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<128x4x96xf32>
// CHECK-NOT: linalg.generic
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>
func.func @in_projection_bias(%x: memref<512x32xf32>, %w: memref<96x32xf32>, %b: memref<3x32xf32>) -> memref<1x128x4x3x32xf32> {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() {alignment = 64 : i64} : memref<128x4x96xf32>
  %oc = memref.collapse_shape %o [[0, 1], [2]] : memref<128x4x96xf32> into memref<512x96xf32>
  linalg.fill ins(%zero : f32) outs(%oc : memref<512x96xf32>)
  linalg.matmul indexing_maps = [#a, #bt, #c] {amp_cpu.onednn} ins(%x, %w : memref<512x32xf32>, memref<96x32xf32>) outs(%oc : memref<512x96xf32>)
  %v = memref.expand_shape %o [[0, 1], [2], [3, 4]] output_shape [1, 128, 4, 3, 32] : memref<128x4x96xf32> into memref<1x128x4x3x32xf32>
  %r = memref.alloc() {alignment = 64 : i64} : memref<1x128x4x3x32xf32>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%v, %b : memref<1x128x4x3x32xf32>, memref<3x32xf32>) outs(%r : memref<1x128x4x3x32xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %o : memref<128x4x96xf32>
  return %r : memref<1x128x4x3x32xf32>
}
