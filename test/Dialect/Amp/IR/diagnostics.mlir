// Malformed input gives file:line:col: error: and a non-zero exit, no crash.
// RUN: not amp-opt %s 2>&1 | FileCheck %s

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:16: error: custom op 'amp.autocast' autocast dtype must be f16 or bf16, got 'f32'
func.func @f() {
  amp.autocast device_type(cuda) dtype(f32) {
  }
  return
}
