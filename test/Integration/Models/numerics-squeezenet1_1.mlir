// JIT numerics of the real model squeezenet1_1 (examples/models, seeded random
// weights): the f32 model and its autocast version compiled by
// amp-cpu-pipeline into one module and run by amp-runner on the same input.
// The relative L2 error of the autocast logits against f32 must be at most
// 2e-2 for cpu/bf16; cuda/f16 (compiled for the CPU) is held to 5e-3. No
// logit may be NaN or inf.
// RUN: %python %amp_src_root/utils/model_harness.py %models/squeezenet1_1.mlir --build %amp_build_root --repeat 1 --device cpu --mode graph --max-rel-l2 2e-2 | FileCheck %s --check-prefix=BF16
// RUN: %python %amp_src_root/utils/model_harness.py %models/squeezenet1_1.mlir --build %amp_build_root --repeat 1 --device cuda --mode graph --max-rel-l2 5e-3 | FileCheck %s --check-prefix=F16
// BF16: autocast: device_type=cpu dtype=bf16 mode=graph
// BF16: nonfinite: 0
// BF16: PASS
// F16: autocast: device_type=cuda dtype=f16 mode=graph
// F16: nonfinite: 0
// F16: PASS
