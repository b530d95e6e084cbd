// GPU execution of real models (examples/models, seeded random weights):
// the f32 model and its autocast version, both compiled by
// amp-cuda-pipeline for sm_90 into one module and run on the GPU by
// amp-runner on the same input (utils/model_harness.py --target cuda). The
// f16 version's convolutions and matmuls run with fp32 accumulation; its
// logits must be within the CPU tests' bound of the f32 ones
// (test/Integration/Models/numerics-*.mlir: relative L2 <= 5e-3 for cuda/f16,
// 2e-2 for bf16), with no NaN or inf.
//
// REQUIRES: cuda-device
// RUN: %python %amp_src_root/utils/model_harness.py %models/squeezenet1_1.mlir --build %amp_build_root --repeat 1 --device cuda --target cuda --max-rel-l2 5e-3 | FileCheck %s --check-prefix=SQUEEZE
// RUN: %python %amp_src_root/utils/model_harness.py %models/resnet18.mlir --build %amp_build_root --repeat 1 --device cuda --target cuda --max-rel-l2 5e-3 | FileCheck %s --check-prefix=RESNET
// RUN: %python %amp_src_root/utils/model_harness.py %models/resnet18.mlir --build %amp_build_root --repeat 1 --device cuda --dtype bf16 --target cuda --max-rel-l2 2e-2 | FileCheck %s --check-prefix=RESNET-BF16

// SQUEEZE: model: squeezenet1_1
// SQUEEZE: autocast: device_type=cuda dtype=f16 mode=graph
// SQUEEZE: target: cuda
// SQUEEZE: nonfinite: 0
// SQUEEZE: PASS

// RESNET: model: resnet18
// RESNET: autocast: device_type=cuda dtype=f16 mode=graph
// RESNET: target: cuda
// RESNET: nonfinite: 0
// RESNET: PASS

// RESNET-BF16: model: resnet18
// RESNET-BF16: autocast: device_type=cuda dtype=bf16 mode=graph
// RESNET-BF16: target: cuda
// RESNET-BF16: nonfinite: 0
// RESNET-BF16: PASS
