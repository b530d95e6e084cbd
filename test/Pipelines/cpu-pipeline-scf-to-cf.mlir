// RUN: amp-opt %s --pass-pipeline="builtin.module(amp-cpu-pipeline{cpu-features=generic})" --mlir-print-ir-before=convert-scf-to-cf 2>&1 >/dev/null | FileCheck %s
// RUN: amp-opt %s --pass-pipeline="builtin.module(amp-cpu-pipeline{cpu-features=generic})" | FileCheck %s --check-prefix=LLVM

// amp-cpu-pipeline lowers SCF through amp-convert-scf-to-cf: upstream's
// convert-scf-to-cf is given blocks that end after each loop nest (its own
// split before each loop then moves two ops, not the rest of a model's
// function: densenet201 spent 64 of the pipeline's 88 s there), and the
// output has no trace of them (the same LLVM dialect as upstream's alone;
// test/Codegen/Common/convert-scf-to-cf.mlir).
// CHECK-LABEL: func.func @two
// CHECK: scf.for
// CHECK: }
// CHECK-NEXT: cf.br ^[[B1:bb[0-9]+]]
// CHECK-NEXT: ^[[B1]]:
// CHECK: scf.for
// CHECK: }
// CHECK-NEXT: cf.br ^[[B2:bb[0-9]+]]
// CHECK-NEXT: ^[[B2]]:
// CHECK: return
// LLVM-LABEL: llvm.func @two
// LLVM-NOT: scf.
// LLVM-NOT: cf.
// LLVM: llvm.return
func.func @two(%a: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<1xf32>) {
  %0 = tosa.add %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %1 = tosa.reduce_sum %0 {axis = 0 : i32} : (tensor<64xf32>) -> tensor<1xf32>
  return %0, %1 : tensor<64xf32>, tensor<1xf32>
}
