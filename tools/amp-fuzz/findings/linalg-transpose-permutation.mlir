
// CHECK-LABEL: func @tiny
// CHECK: gpu.launch
// CHECK-NOT: linalg.transpose
func.func @tiny(%a: memref<3x5xbf16>, %b: memref<5x3xbf16>) {
  linalg.transpose ins(%a : memref<3x5xbf16>) outs(%b : memref<5x3xbf16>) permutation = [1K 0]
  return
}

