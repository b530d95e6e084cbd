// docs/CastPolicy.md holds the default table exactly as amp-opt prints it.
// RUN: %python %amp_src_root/utils/gen_policy_doc.py --check --tool amp-opt | FileCheck %s
// CHECK: docs/CastPolicy.md is up to date

// A few rows, as the interface answers them.
// RUN: amp-opt --amp-print-policy-table | FileCheck %s --check-prefix=ROWS
// exp2 is on none of PyTorch's lists; fma follows addcmul (promote).
// RUN: amp-opt --amp-print-policy-table | FileCheck %s --check-prefix=MATH
// MATH: | `math.exp2` | infer | infer | unlisted exp2
// MATH: | `math.fma` | promote | promote | PyTorch promote: addcmul
// ROWS: | `tosa.matmul` | lower | lower |
// ROWS: | `linalg.matvec` | lower | infer |
// ROWS: | `tosa.exp` | fp32 | fp32 |
// ROWS: | `tensor.concat` | promote | promote |
// ROWS: | `arith.addf` | infer | infer |
// ROWS: | `tensor.pad` | clear | clear |
// ROWS: | `arith.truncf` | keep | keep |
