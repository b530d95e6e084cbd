//===- TestPasses.td - test-only passes --------------------*- tablegen -*-===//

#ifndef AMP_TEST_LIB_TRANSFORMS_TESTPASSES_TD
#define AMP_TEST_LIB_TRANSFORMS_TESTPASSES_TD

include "mlir/Pass/PassBase.td"

def AmpRandomizeWeights : Pass<"amp-randomize-weights", "ModuleOp"> {
  let summary = "Give splat weight constants seeded random values (He-uniform)";
  let description = [{
    Model files exported for tests often hold their weights as splat
    constants, which make every channel identical and hide precision errors.
    This pass replaces every splat `arith.constant` / `tosa.const` of a
    ranked f32/f16/bf16 tensor of rank >= 2 with values drawn uniformly from
    [-b, b], b = sqrt(6 / fan_in) (He/Kaiming-uniform, PyTorch's
    `kaiming_uniform_` with ReLU gain), fan_in = number of elements / first
    dimension (C*KH*KW for an FCHW filter, KH*KW for a depthwise CHW filter,
    the input features of a [out, in] matrix). Rank-0/1 constants (biases,
    batch-norm parameters) keep their values. The generator is SplitMix64
    seeded with `seed` and the constant's position in its function, so the
    values are the same on every machine, and two copies of a function
    (an f32 and an autocast version) get the same weights. He scaling keeps
    activations O(1) through the layers, as trained batch-norm statistics
    would; with PyTorch's smaller default layer init (1/sqrt(fan_in)) and
    the identity batch norms of the model files, activations shrink layer
    by layer into the f16 subnormal range. Used by the model numerics tests
    and the benchmarks.
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", /*default=*/"0", "Random seed">,
  ];
}

#endif // AMP_TEST_LIB_TRANSFORMS_TESTPASSES_TD
