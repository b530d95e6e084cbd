"""amp_mlir.torch: PyTorch models through amp-mlir.

torch_mlir bundles its own LLVM; import this package (which imports
torch_mlir) before anything runs amp's JIT in the process.
"""

# Training steps (issue 27): forward + backward + optimizer + GradScaler as
# one compiled step.
from .training import TrainStep, UnsupportedOpError, compile_train_step  # noqa: F401
