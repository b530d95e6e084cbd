// utils/model_harness.py --policy passes cast-policy op lists to
// amp-autocast: with every convolution of squeezenet1_1 on the fp32 list,
// nothing computes in bf16 and the logits equal the f32 ones. Other
// amp-autocast options are refused (mode has its own flag; keep-regions
// would let the pipeline's amp-autocast apply the default policy on top).
// RUN: %python %amp_src_root/utils/model_harness.py %models/squeezenet1_1.mlir --build %amp_build_root --repeat 1 --stats --policy fp32-ops=linalg.conv_2d_nchw_fchw | FileCheck %s
// RUN: not %python %amp_src_root/utils/model_harness.py %models/squeezenet1_1.mlir --build %amp_build_root --policy keep-regions 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %python %amp_src_root/utils/model_harness.py %models/squeezenet1_1.mlir --build %amp_build_root --policy mode=eager 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %python %amp_src_root/utils/model_harness.py %models/squeezenet1_1.mlir --build %amp_build_root --policy fp32-ops=no.such_op 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CHECK: 0 ops-bf16
// CHECK: rel_l2: 0.000e+00
// BAD: error: --policy takes amp-autocast's op lists only
// UNKNOWN: amp-autocast: policy option names unknown op 'no.such_op'
