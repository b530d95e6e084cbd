// The host code of a real training step (transformer block, f16 autocast,
// loss scaling, Adam) after amp-gpu-async-launches: no host op that may
// touch memory while a queued kernel, copy or free is pending
// (utils/check_stream_order.py, an allow-list written apart from the
// pass's rules; python/tests/test_scripts.py checks that it catches
// hazards), with the tensor-core kernels and with cuBLAS calls.
//
// RUN: cd %amp_src_root/python && %amp_build_root/venv/bin/python -c "from amp_mlir.training import *; print(build_train_step([TransformerBlock(64, heads=4, seq_len=16), Linear(64, 10)], 64, 64, 10, Adam(), autocast=('cuda', 'f16'), loss_scaling=True))" > %t.mlir
// RUN: amp-opt %t.mlir --amp-cuda-pipeline=format=isa --mlir-disable-threading --mlir-print-ir-after=amp-gpu-async-launches -o /dev/null 2>&1 | %python %amp_src_root/utils/check_stream_order.py | FileCheck %s

// RUN: amp-opt %t.mlir --amp-cuda-pipeline="format=isa gemm=cublas" --mlir-disable-threading --mlir-print-ir-after=amp-gpu-async-launches -o /dev/null 2>&1 | %python %amp_src_root/utils/check_stream_order.py | FileCheck %s --check-prefix=CUBLAS
// RUN: amp-opt %t.mlir --amp-cuda-pipeline="format=isa gemm=cublas" --mlir-disable-threading --mlir-print-ir-after=amp-gpu-async-launches -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUEUED

// CHECK: stream order: 4 functions, {{[1-9][0-9][0-9]+}} queued ops, {{[0-9]+}} waits, no hazards
// With gemm=cublas the GEMMs are the runtime's queued calls, without waits.
// CUBLAS: stream order: {{[0-9]+}} functions, {{[1-9][0-9][0-9]+}} queued ops, {{[0-9]+}} waits, no hazards
// The next kernel follows on the same chain: the device orders it after
// the GEMM (legacy default stream, blocking streams); only the next
// kernel's output buffer is allocated in between (amp-duplicate-fills gives
// each op its own tensor.empty right before it), no wait.
// QUEUED-LABEL: func.func @train_step__amp_managed
// QUEUED: call @ampCublasMatmulF16F32Queued(
// QUEUED-NOT: gpu.wait
// QUEUED: gpu.launch_func async
