"""The CPU runtime's allocation counter (amp.cpu_memory_stats) and the call
path of ExecutionEngine.invoke: arguments passed without copies (and never
written), results as arrays over the JIT's buffers, freed with them."""
import gc

import numpy as np

import amp_mlir as amp

TWO_TEMPS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %e = tensor.empty() : tensor<256x1024xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<256x1024xf32>
  %t = linalg.transpose ins(%a : tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) permutation = [0, 1]
  return %t : tensor<256x1024xf32>
}
"""

RELU_INPLACE = """
#id = affine_map<(d0) -> (d0)>
func.func @relu(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%x : tensor<1024xf32>) {
  ^bb0(%o: f32):
    %m = arith.maximumf %o, %z : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
func.func @identity(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  return %x : tensor<1024xf32>
}
"""

MIB = 1 << 20


def test_peak_counts_the_result_until_it_is_freed():
    exe = amp.compile(TWO_TEMPS, pipeline="amp-cpu-pipeline{autocast=0}")
    x = np.random.default_rng(0).standard_normal((256, 1024)).astype(np.float32)
    gc.collect()
    base, _ = amp.cpu_memory_stats()
    amp.cpu_reset_peak_memory()
    y = exe.invoke("f", x)
    current, peak = amp.cpu_memory_stats()
    np.testing.assert_array_equal(y, 2 * x)
    # The 1 MiB result is live (the array is a view of the JIT's buffer);
    # the peak holds it and at most one 1 MiB temporary more.
    assert MIB <= current - base < MIB + 64 * 1024
    assert MIB <= peak - base <= 2 * MIB + 64 * 1024
    del y
    gc.collect()
    assert amp.cpu_memory_stats()[0] == base


def test_arguments_are_not_copied_nor_written():
    exe = amp.compile(RELU_INPLACE, pipeline="amp-cpu-pipeline{autocast=0}")
    x = np.linspace(-1, 1, 1024, dtype=np.float32)
    before = x.copy()
    y = exe.invoke("relu", x)
    np.testing.assert_array_equal(y, np.maximum(before, 0))
    np.testing.assert_array_equal(x, before)  # the caller's array is intact
    # A returned argument comes back as a copy, not as the caller's array.
    z = exe.invoke("identity", x)
    z[0] = 42.0
    assert x[0] == before[0]
    # Non-contiguous and list arguments still work.
    np.testing.assert_array_equal(exe.invoke("relu", np.stack([x, x], 1)[:, 0]),
                                  np.maximum(before, 0))


def test_results_sharing_a_buffer_are_freed_once():
    text = """
    func.func @twice(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
      %y = arith.addf %x, %x : tensor<64xf32>
      return %y, %y : tensor<64xf32>, tensor<64xf32>
    }"""
    exe = amp.compile(text, pipeline="amp-cpu-pipeline{autocast=0}")
    gc.collect()
    base, _ = amp.cpu_memory_stats()
    x = np.arange(64, dtype=np.float32)
    a, b = exe.invoke("twice", x)
    np.testing.assert_array_equal(a, 2 * x)
    np.testing.assert_array_equal(b, 2 * x)
    del a
    gc.collect()
    np.testing.assert_array_equal(b, 2 * x)  # still alive through b
    del b
    gc.collect()
    assert amp.cpu_memory_stats()[0] == base
