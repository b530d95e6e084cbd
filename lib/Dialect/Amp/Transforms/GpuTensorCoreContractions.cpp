//===- GpuTensorCoreContractions.cpp - matmuls on tensor cores ------------===//
//
// The `amp-gpu-tensor-core-contractions` pass: every f16 x f16 -> f32
// `linalg.matmul` on buffers (what amp-fp32-accumulation makes of an
// autocast matmul) whose sizes are multiples of 16 x 8 x 16 becomes a
// `gpu.launch` whose warps run `vector.contract`s of m16n8k16 shape with f32
// accumulators; `convert-vector-to-gpu{use-nvgpu}` then turns them into
// `nvgpu.mma.sync` (PTX `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`).
// bf16 matmuls stay for the SIMT path (with a remark): MLIR 22's
// convert-vector-to-gpu cannot load bf16 mma fragments.
//
// The schedule is a transform-dialect script applied by the interpreter:
// upstream's `rewrite_matmul_as_mma_sync` rejects mixed f16 -> f32
// matmuls, while tiling to blocks (16 x 8 per block, one warp) and to k
// steps of 16, vectorizing, and folding the arith extensions into the
// contraction gives a mixed-precision `vector.contract` that
// `convert-vector-to-gpu` maps to mma.sync.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUTENSORCORECONTRACTIONS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr StringLiteral kMarker = "amp.tensor_core";

/// One block per 16 x 8 output tile (one warp, 32 threads), k in steps of
/// 16: the m16n8k16 mma.sync shape.
constexpr StringLiteral kSchedule = R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} attributes{amp.tensor_core} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mm : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %one tile_sizes [16, 8]
          (mapping = [#gpu.block<y>, #gpu.block<x>])
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %tk, %loop = transform.structured.tile_using_for %tiled tile_sizes [0, 0, 16]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %tk : !transform.any_op
      %launch = transform.gpu.map_forall_to_blocks %forall generate_gpu_launch
          : (!transform.any_op) -> !transform.any_op
      %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [32, 1, 1]
          : (!transform.any_op) -> !transform.any_op
    }
    // Turn multiply + multi_reduction into vector.contract and fold the
    // f16/bf16 -> f32 extensions into it (a mixed-precision contraction).
    // Only the vectorized matmuls have vector ops: the rest of each
    // function is still linalg.
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.fold_arith_extension
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
)mlir";

/// The compute capability of `chip` ("sm_90", "sm_90a", "sm_80", ...) as
/// major * 10 + minor, or nothing.
std::optional<int> parseComputeCapability(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  chip.consume_back("a");
  chip.consume_back("f");
  int cc;
  if (chip.getAsInteger(10, cc) || cc < 10)
    return std::nullopt;
  return cc;
}

bool isLowPrecision(Type t) { return t.isF16() || t.isBF16(); }

struct AmpGpuTensorCoreContractionsPass
    : public amp::impl::AmpGpuTensorCoreContractionsBase<
          AmpGpuTensorCoreContractionsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    capability = parseComputeCapability(chip);
    if (!capability)
      return emitError(UnknownLoc::get(ctx))
             << "amp-gpu-tensor-core-contractions: chip must be sm_<NN>[a], "
                "got '"
             << chip << "'";
    ParserConfig config(ctx);
    schedule = std::make_shared<OwningOpRef<ModuleOp>>(parseSourceString<ModuleOp>(
        kSchedule, config, "amp-tensor-core-schedule"));
    if (!*schedule)
      return failure();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](linalg::MatmulOp mm) {
      if (!mm.hasPureBufferSemantics())
        return;
      auto a = dyn_cast<MemRefType>(mm.getDpsInputs()[0].getType());
      auto b = dyn_cast<MemRefType>(mm.getDpsInputs()[1].getType());
      auto c = dyn_cast<MemRefType>(mm.getDpsInits()[0].getType());
      if (!a || !b || !c || !isLowPrecision(a.getElementType()) ||
          a.getElementType() != b.getElementType() ||
          !c.getElementType().isF32())
        return;
      // Plain row-major A[m, k] * B[k, n] only (no transposed or
      // broadcast operands).
      if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2 ||
          mm.getIndexingMapsArray() !=
              linalg::MatmulOp::getDefaultIndexingMaps(mm.getContext())) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: transposed or "
                      "broadcast operands; SIMT fallback");
        return;
      }
      // mma.sync m16n8k16 (f16 and bf16) is an sm_80 instruction.
      if (*capability < 80) {
        mm.emitWarning("amp-gpu-tensor-core-contractions: ")
            << chip
            << " has no mma.sync m16n8k16 (sm_80+); this contraction runs "
               "as SIMT code with f32 accumulation";
        return;
      }
      if (!a.hasStaticShape() || !b.hasStaticShape() || !c.hasStaticShape() ||
          !a.getLayout().isIdentity() || !b.getLayout().isIdentity() ||
          !c.getLayout().isIdentity()) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: dynamic shape or "
                      "strided layout; SIMT fallback");
        return;
      }
      // MLIR 22's convert-vector-to-gpu loads mma.sync fragments of f16
      // (and f32/tf32, i8) only: bf16 transfer_reads fail to convert.
      if (a.getElementType().isBF16()) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: bf16 mma.sync "
                      "fragments are not supported by convert-vector-to-gpu "
                      "in MLIR 22; SIMT fallback with f32 accumulation");
        return;
      }
      int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
      // One block per 16 x 8 tile: gridDim.y (m / 16) is at most 65535.
      if (m / 16 > 65535) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: ")
            << m << " rows exceed the grid (65535 blocks of 16); SIMT fallback";
        return;
      }
      if (m % 16 || n % 8 || k % 16) {
        mm.emitRemark("amp-gpu-tensor-core-contractions: ")
            << m << "x" << n << "x" << k
            << " is not a multiple of the 16x8x16 mma tile; SIMT fallback";
        return;
      }
      mm->setAttr(kMarker, UnitAttr::get(mm.getContext()));
      any = true;
    });
    if (!any)
      return;

    ModuleOp scheduleModule = schedule->get();
    auto entry = scheduleModule.lookupSymbol<transform::NamedSequenceOp>(
        "__transform_main");
    if (failed(transform::applyTransformNamedSequence(
            module, entry, scheduleModule, transform::TransformOptions())))
      return signalPassFailure();

    // The contractions to nvgpu.mma.sync, inside the new launches only:
    // MLIR 22's convert-vector-to-gpu{use-nvgpu} also tries to convert every
    // scalar f16 -> f32 arith.extf of the function (and fails on them), so
    // it cannot run on whole functions that hold other code.
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp launch) {
      if (launch->walk([](vector::ContractionOp) {
                  return WalkResult::interrupt();
                }).wasInterrupted())
        launches.push_back(launch);
    });
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : launches) {
      RewritePatternSet prepare(&getContext());
      populatePrepareVectorToMMAPatterns(prepare, /*useNvGpu=*/true);
      if (failed(applyPatternsGreedily(launch, std::move(prepare))) ||
          failed(convertVectorToNVVMCompatibleMMASync(rewriter, launch))) {
        launch.emitError("amp-gpu-tensor-core-contractions: the m16n8k16 "
                         "contraction could not be mapped to mma.sync");
        return signalPassFailure();
      }
    }
  }

  std::optional<int> capability;
  /// The parsed schedule, shared by the clones of the pass (read only).
  std::shared_ptr<OwningOpRef<ModuleOp>> schedule;
};

} // namespace
