// RUN: amp-opt %s -split-input-file --amp-gpu-map-parallel-loops -verify-diagnostics

// Both dimensions need more than 65535 blocks (75000 rows in tiles of 8,
// 68750 columns in tiles of 32): only blockIdx.x can take one of them.
func.func @too_many_blocks(%a: memref<600000x2200000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 600000 : index
  %cols = arith.constant 2200000 : index
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{amp-gpu-map-parallel-loops: 75000 blocks in dimension 0 exceed CUDA's grid limits (65535 blocks in y and z, 2^31 - 1 in x), and no other dimension can take its place}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<600000x2200000xf32>
    scf.reduce
  }
  return
}
