// amp-runner rejects bad input with a message and a non-zero exit.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s --check-prefix=OK
// RUN: amp-opt %s --amp-cpu-pipeline | not amp-runner -e missing --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: amp-opt %s --amp-cpu-pipeline | not amp-runner -e main --entry-point-result=i32 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not amp-runner %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// RUN: echo 'func.func @main( {' | not amp-runner -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not amp-runner %s.missing -e main 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: printf '' | not amp-runner -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=EMPTY

// OK: 42
// MISSING: entry point not found
// KIND: only single i32 function result supported
// UNLOWERED: errors.mlir:[[@LINE+5]]:1: error: amp-runner: 'func.func' is not lowered to the LLVM dialect; compile the input with amp-opt --amp-cpu-pipeline first
// PARSE: error:
// NOFILE: {{.*}}errors.mlir.missing
// EMPTY: error: amp-runner: the input module is empty (did the command that produced it fail?)

func.func @main() {
  %c = arith.constant 42 : i32
  vector.print %c : i32
  return
}
