"""The benchmarks' one timing rule: the median wall time of a call, in
seconds, after warm-up calls (the first call of a JIT-compiled function or of
PyTorch pays one-time costs: allocations, oneDNN primitive creation)."""
import statistics
import time


def median_time(fn, repeat, warmup=2):
    """Median seconds of ``repeat`` calls of ``fn()`` after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
