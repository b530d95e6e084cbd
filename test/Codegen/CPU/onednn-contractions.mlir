// RUN: amp-opt %s -split-input-file --amp-cpu-onednn-contractions | FileCheck %s

// A marked matmul on buffers becomes a call of the runtime's oneDNN matmul
// on rank-3 views (A [1, m, k], B [1, k, n], C [1, m, n]); the zero fill of
// its freshly allocated output right before it is folded into the call
// (beta = 0).
// CHECK-LABEL: func @matmul_zero_fill
// CHECK-NOT: linalg.fill
// CHECK: %[[A:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, %{{.*}}, %{{.*}}], strides: [0, %{{.*}}, %{{.*}}]
// CHECK: %[[B:.*]] = memref.reinterpret_cast
// CHECK: %[[C:.*]] = memref.reinterpret_cast
// CHECK: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: call @ampOnednnMatmul_f32_f32_f32(%[[A]], %[[B]], %[[C]], %[[BETA]]) : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, f32) -> ()
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @ampOnednnMatmul_f32_f32_f32({{.*}}) attributes {llvm.emit_c_interface}
func.func @matmul_zero_fill(%a: memref<8x16xf32>, %b: memref<16x32xf32>) -> memref<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x32xf32>)
  linalg.matmul {amp_cpu.onednn} ins(%a, %b : memref<8x16xf32>, memref<16x32xf32>) outs(%c : memref<8x32xf32>)
  return %c : memref<8x32xf32>
}

// -----

// Accumulating into an argument: beta = 1. B is read transposed (n, k):
// its view swaps the strides (sizes [1, k, n] from the buffer's dims 1, 0).
// bf16 x bf16 -> f32 calls the bf16 entry point.
// CHECK-LABEL: func @transposed_bf16
// CHECK: %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[M:[a-z0-9_]+]]:2, %[[S:[a-z0-9_]+]]:2 = memref.extract_strided_metadata %arg1
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [1, %[[M]]#1, %[[M]]#0], strides: [0, %[[S]]#1, %[[S]]#0]
// CHECK: %[[BETA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @ampOnednnMatmul_bf16_bf16_f32({{.*}}, %[[BETA]])
func.func @transposed_bf16(%a: memref<8x16xbf16>, %bt: memref<32x16xbf16>, %c: memref<8x32xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {amp_cpu.onednn}
      ins(%a, %bt : memref<8x16xbf16>, memref<32x16xbf16>) outs(%c : memref<8x32xf32>)
  return
}

// -----

// batch_matmul: every view has the batch; an unmarked matmul stays.
// CHECK-LABEL: func @batch
// CHECK-COUNT-3: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: call @ampOnednnMatmul_f32_f32_f32
// CHECK: linalg.matmul ins
func.func @batch(%a: memref<2x8x16xf32>, %b: memref<2x16x32xf32>, %c: memref<2x8x32xf32>,
                 %d: memref<8x16xf32>, %e: memref<16x32xf32>, %f: memref<8x32xf32>) {
  linalg.batch_matmul {amp_cpu.onednn} ins(%a, %b : memref<2x8x16xf32>, memref<2x16x32xf32>) outs(%c : memref<2x8x32xf32>)
  linalg.matmul ins(%d, %e : memref<8x16xf32>, memref<16x32xf32>) outs(%f : memref<8x32xf32>)
  return
}

// -----

// A convolution passes its strides and dilations, and no padding.
// CHECK-LABEL: func @conv
// CHECK-COUNT-2: arith.constant 2 : index
// CHECK-COUNT-2: arith.constant 1 : index
// CHECK-COUNT-2: arith.constant 0 : index
// CHECK: call @ampOnednnConv2dNchwFchw_f32_f32_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c2, %c2_{{[0-9]+}}, %c1, %c1_{{[0-9]+}}, %c0, %c0_{{[0-9]+}}, %{{.*}})
func.func @conv(%i: memref<1x3x9x9xf32>, %f: memref<4x3x3x3xf32>, %o: memref<1x4x4x4xf32>) {
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%i, %f : memref<1x3x9x9xf32>, memref<4x3x3x3xf32>) outs(%o : memref<1x4x4x4xf32>)
  return
}

// -----

// A bf16 x bf16 -> f32 convolution calls the bf16 entry point with bf16
// views of its input and filter and an f32 view of its output.
// CHECK-LABEL: func @bf16_conv
// CHECK: call @ampOnednnConv2dNchwFchw_bf16_bf16_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, index, index, index, index, index, index, f32) -> ()
// CHECK: func.func private @ampOnednnConv2dNchwFchw_bf16_bf16_f32({{.*}}) attributes {llvm.emit_c_interface}
func.func @bf16_conv(%i: memref<1x3x11x11xbf16>, %f: memref<5x3x3x3xbf16>, %o: memref<1x5x5x5xf32>) {
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%i, %f : memref<1x3x11x11xbf16>, memref<5x3x3x3xbf16>) outs(%o : memref<1x5x5x5xf32>)
  return
}

// -----

// torch-mlir's tensor.pad, bufferized (a zero-filled buffer, the input
// copied into its interior), is folded into the call: the unpadded input
// and the top / left padding (3, 1) are passed; the fill, the copy and the
// padded buffer are gone.
// CHECK-LABEL: func @padded_conv
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: memref.extract_strided_metadata %arg0 : memref<1x3x10x10xbf16>
// CHECK-NEXT: %[[IN:.*]] = memref.reinterpret_cast
// CHECK: %[[TOP:.*]] = arith.constant 3 : index
// CHECK: call @ampOnednnConv2dNchwFchw_bf16_bf16_f32(%[[IN]], %{{.*}}, %{{.*}}, %c2, %c2_{{[0-9]+}}, %c1, %c1_{{[0-9]+}}, %[[TOP]], %c1_{{[0-9]+}}, %{{.*}})
// CHECK-NOT: linalg.map
// CHECK: return
func.func @padded_conv(%i: memref<1x3x10x10xbf16>, %f: memref<5x3x3x3xbf16>, %o: memref<1x5x7x5xf32>) {
  %z = arith.constant 0.0 : bf16
  %p = memref.alloc() : memref<1x3x16x12xbf16>
  linalg.map outs(%p : memref<1x3x16x12xbf16>)
    (%init: bf16) {
      linalg.yield %z : bf16
    }
  %w = memref.subview %p[0, 0, 3, 1] [1, 3, 10, 10] [1, 1, 1, 1] : memref<1x3x16x12xbf16> to memref<1x3x10x10xbf16, strided<[576, 192, 12, 1], offset: 37>>
  memref.copy %i, %w : memref<1x3x10x10xbf16> to memref<1x3x10x10xbf16, strided<[576, 192, 12, 1], offset: 37>>
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %f : memref<1x3x16x12xbf16>, memref<5x3x3x3xbf16>) outs(%o : memref<1x5x7x5xf32>)
  memref.dealloc %p : memref<1x3x16x12xbf16>
  return
}

// -----

// Not folded: the padded buffer is read by another op too.
// CHECK-LABEL: func @pad_read_elsewhere
// CHECK: memref.copy
// CHECK: call @ampOnednnConv2dNchwFchw_f32_f32_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0{{.*}}, %c0{{.*}}, %{{.*}})
func.func @pad_read_elsewhere(%i: memref<1x3x10x10xf32>, %f: memref<5x3x3x3xf32>, %o: memref<1x5x5x5xf32>, %q: memref<1x3x12x12xf32>) {
  %z = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x3x12x12xf32>
  linalg.fill ins(%z : f32) outs(%p : memref<1x3x12x12xf32>)
  %w = memref.subview %p[0, 0, 1, 1] [1, 3, 10, 10] [1, 1, 1, 1] : memref<1x3x12x12xf32> to memref<1x3x10x10xf32, strided<[432, 144, 12, 1], offset: 13>>
  memref.copy %i, %w : memref<1x3x10x10xf32> to memref<1x3x10x10xf32, strided<[432, 144, 12, 1], offset: 13>>
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %f : memref<1x3x12x12xf32>, memref<5x3x3x3xf32>) outs(%o : memref<1x5x5x5xf32>)
  memref.copy %p, %q : memref<1x3x12x12xf32> to memref<1x3x12x12xf32>
  return
}

// -----

// autocast's f32 -> bf16 casts of a bf16 convolution's filter and (padded)
// input are folded into the call: the runtime rounds them as it reorders
// them into oneDNN's layouts (ampOnednnConv2dBf16_<I>_<F>_<O>, the element
// types of the buffers passed); the casts, their buffers, the pad's fill and
// copy are gone.
// CHECK-LABEL: func @conv_casts_folded
// CHECK-SAME: (%[[I:.*]]: memref<1x3x9x9xf32>, %[[F:.*]]: memref<4x3x3x3xf32>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.copy
// CHECK: memref.extract_strided_metadata %[[I]]
// CHECK: memref.extract_strided_metadata %[[F]]
// CHECK: call @ampOnednnConv2dBf16_f32_f32_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c1, %c1_{{[0-9]+}}, %c1_{{[0-9]+}}, %c1_{{[0-9]+}}, %c1_{{[0-9]+}}, %c1_{{[0-9]+}}, %{{.*}}) : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, index, index, index, index, index, index, f32) -> ()
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK: func.func private @ampOnednnConv2dBf16_f32_f32_f32({{.*}}) attributes {llvm.emit_c_interface}
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_casts_folded(%i: memref<1x3x9x9xf32>, %f: memref<4x3x3x3xf32>) -> memref<1x4x9x9xf32> {
  %zero = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %ib = memref.alloc() : memref<1x3x9x9xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%i : memref<1x3x9x9xf32>) outs(%ib : memref<1x3x9x9xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  %p = memref.alloc() : memref<1x3x11x11xbf16>
  linalg.fill ins(%zb : bf16) outs(%p : memref<1x3x11x11xbf16>)
  %w = memref.subview %p[0, 0, 1, 1] [1, 3, 9, 9] [1, 1, 1, 1] : memref<1x3x11x11xbf16> to memref<1x3x9x9xbf16, strided<[363, 121, 11, 1], offset: 12>>
  memref.copy %ib, %w : memref<1x3x9x9xbf16> to memref<1x3x9x9xbf16, strided<[363, 121, 11, 1], offset: 12>>
  %fb = memref.alloc() : memref<4x3x3x3xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%f : memref<4x3x3x3xf32>) outs(%fb : memref<4x3x3x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  %o = memref.alloc() : memref<1x4x9x9xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<1x4x9x9xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %fb : memref<1x3x11x11xbf16>, memref<4x3x3x3xbf16>) outs(%o : memref<1x4x9x9xf32>)
  memref.dealloc %ib : memref<1x3x9x9xbf16>
  memref.dealloc %p : memref<1x3x11x11xbf16>
  memref.dealloc %fb : memref<4x3x3x3xbf16>
  return %o : memref<1x4x9x9xf32>
}

// -----

// A cast whose f32 source is written between the cast and the convolution
// (or whose bf16 buffer has another reader) stays: the call takes the bf16
// buffer.
// CHECK-LABEL: func @conv_cast_kept
// CHECK: linalg.generic
// CHECK: call @ampOnednnConv2dNchwFchw_bf16_bf16_f32
#id2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_cast_kept(%i: memref<1x3x9x9xbf16>, %f: memref<4x3x3x3xf32>, %o: memref<1x4x7x7xf32>) {
  %one = arith.constant 1.0 : f32
  %fb = memref.alloc() : memref<4x3x3x3xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%f : memref<4x3x3x3xf32>) outs(%fb : memref<4x3x3x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  linalg.fill ins(%one : f32) outs(%f : memref<4x3x3x3xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %fb : memref<1x3x9x9xbf16>, memref<4x3x3x3xbf16>) outs(%o : memref<1x4x7x7xf32>)
  memref.dealloc %fb : memref<4x3x3x3xbf16>
  return
}

// -----

// A max pooling whose output starts as -inf: one call, its -inf padding
// folded in (top / left passed), the fill, the pad's fill and copy and the
// window buffer erased.
// CHECK-LABEL: func @max_pool
// CHECK-NOT: linalg.map
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK: call @ampOnednnPoolNchwMax_f32(%{{.*}}, %{{.*}}, %c3, %c3_{{[0-9]+}}, %c2, %c2_{{[0-9]+}}, %c1, %c1_{{[0-9]+}}, %c1_{{[0-9]+}}, %c1_{{[0-9]+}}) : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, index, index, index, index, index, index, index, index) -> ()
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK: func.func private @ampOnednnPoolNchwMax_f32({{.*}}) attributes {llvm.emit_c_interface}
func.func @max_pool(%x: memref<1x4x8x8xf32>) -> memref<1x4x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = memref.alloc() : memref<1x4x10x10xf32>
  linalg.map outs(%p : memref<1x4x10x10xf32>)
    (%init: f32) {
      linalg.yield %ninf : f32
    }
  %v = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %x, %v : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  %o = memref.alloc() : memref<1x4x4x4xf32>
  linalg.fill ins(%ninf : f32) outs(%o : memref<1x4x4x4xf32>)
  %w = memref.alloc() : memref<3x3xf32>
  linalg.pooling_nchw_max {amp_cpu.onednn, dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%p, %w : memref<1x4x10x10xf32>, memref<3x3xf32>) outs(%o : memref<1x4x4x4xf32>)
  memref.dealloc %p : memref<1x4x10x10xf32>
  memref.dealloc %w : memref<3x3xf32>
  return %o : memref<1x4x4x4xf32>
}

// -----

// A bf16 convolution's zero-filled f32 output that its one reader only
// rounds to bf16 (autocast's consumer): the call writes a bf16 buffer
// (oneDNN rounds the f32 accumulators), the reader takes it and its truncf
// goes.
// CHECK-LABEL: func @conv_output_rounded
// CHECK: %[[O:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x4x7x7xbf16>
// CHECK: call @ampOnednnConv2dNchwFchw_bf16_bf16_bf16(
// CHECK: linalg.generic {{.*}} ins(%[[O]] : memref<1x4x7x7xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT: arith.extf %[[IN]] : bf16 to f32
// CHECK: memref.dealloc %[[O]] : memref<1x4x7x7xbf16>
#id3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_output_rounded(%i: memref<1x3x9x9xbf16>, %f: memref<4x3x3x3xbf16>) -> memref<1x4x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() {alignment = 64 : i64} : memref<1x4x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<1x4x7x7xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<1x3x9x9xbf16>, memref<4x3x3x3xbf16>) outs(%o : memref<1x4x7x7xf32>)
  %r = memref.alloc() : memref<1x4x7x7xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o : memref<1x4x7x7xf32>) outs(%r : memref<1x4x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    linalg.yield %e : f32
  }
  memref.dealloc %o : memref<1x4x7x7xf32>
  return %r : memref<1x4x7x7xf32>
}

// -----

// The f32 output is also returned (read in f32): it stays f32.
// CHECK-LABEL: func @conv_output_kept
// CHECK: call @ampOnednnConv2dNchwFchw_bf16_bf16_f32(
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_output_kept(%i: memref<1x3x9x9xbf16>, %f: memref<4x3x3x3xbf16>) -> (memref<1x4x7x7xf32>, memref<1x4x7x7xbf16>) {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() : memref<1x4x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<1x4x7x7xf32>)
  linalg.conv_2d_nchw_fchw {amp_cpu.onednn, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<1x3x9x9xbf16>, memref<4x3x3x3xbf16>) outs(%o : memref<1x4x7x7xf32>)
  %r = memref.alloc() : memref<1x4x7x7xbf16>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o : memref<1x4x7x7xf32>) outs(%r : memref<1x4x7x7xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  return %o, %r : memref<1x4x7x7xf32>, memref<1x4x7x7xbf16>
}
