"""The host CPU's feature flags, for the tests that mark ISA-specific cases
(AVX-512, AVX512-BF16) skipped with a reason where the host lacks them."""


def cpu_flags():
    """The `flags` line of /proc/cpuinfo as a set (empty where unreadable)."""
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return set()
    line = next((l for l in text.splitlines() if l.startswith("flags")), "")
    return set(line.split(":", 1)[-1].split())
