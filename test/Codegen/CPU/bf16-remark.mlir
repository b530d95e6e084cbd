// RUN: amp-opt %s -split-input-file --amp-cpu-bf16-remark=cpu-features=generic -verify-diagnostics
// (With cpu-features=avx512bf16 there is no remark:
// python/tests/test_cpu_onednn.py.)

// On a CPU without bf16 arithmetic, one remark, at the first op computing
// in bf16 (not at the casts).
func.func @bf16_compute(%a: tensor<8xf32>, %b: tensor<8xbf16>) -> tensor<8xbf16> {
  %x = arith.truncf %a : tensor<8xf32> to tensor<8xbf16>
  // expected-remark @+1 {{this CPU has no bf16 arithmetic (no AVX-512, no AVX512-BF16, no AMX): bf16 compute is emulated (widened to f32 and rounded back after each op), so autocast runs slower than f32 here; it still halves the memory of the values it keeps in bf16}}
  %y = arith.addf %x, %b : tensor<8xbf16>
  %z = arith.mulf %y, %b : tensor<8xbf16>
  return %z : tensor<8xbf16>
}

// -----

// f32 only: nothing to say.
func.func @f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %y = arith.addf %a, %a : tensor<8xf32>
  return %y : tensor<8xf32>
}
