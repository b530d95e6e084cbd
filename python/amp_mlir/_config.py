"""Paths of the built project (source-tree fallback; the build writes its own).

Layer: configuration, the lowest: imports nothing from the package.
"""
import os

_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CAPI_LIBRARY = os.path.join(_ROOT, "build", "lib", "libAmpMLIRCAPI.so")
