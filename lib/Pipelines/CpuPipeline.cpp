//===- CpuPipeline.cpp - amp-cpu-pipeline ---------------------------------===//
//
// Autocast IR to the LLVM dialect for the CPU JIT (amp-runner). The stages:
//   0. amp-validate-tosa-input: the TOSA input as written, against its
//      declared target (or what the pipeline compiles);
//   1. amp-autocast, amp-fp32-accumulation, amp-lower-cast: the cast policy,
//      then only upstream dialects remain;
//   2. tosa -> linalg, arith/math on tensors -> linalg, elementwise fusion;
//   3. with gemm=onednn, the contractions oneDNN computes are marked;
//      amp-cpu-tile-and-vectorize (im2col, cache and register tiles,
//      vector.contract) for the others, accumulators hoisted out of the k
//      loops;
//   4. one-shot bufferization across function boundaries, deallocation;
//      the marked ops to oneDNN calls; each buffer held from its first use
//      to its last; the parallel loop over cache tiles to
//      an OpenMP parallel loop;
//   5. the rest of linalg to loops, erf/exp/tanh as polynomials,
//      vector/scf/memref/math/arith to LLVM (allocations through the
//      runtime's counter), bf16 and f16 conversions with
//      round-to-nearest-even.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/CpuPipeline.h"

#include "PipelineRegistration.h"

#include "amp/Codegen/CPU/Passes.h"
#include "amp/Codegen/Common/Passes.h"
#include "amp/Distributed/Passes.h"
#include "amp/Pipelines/FrontEnd.h"

#include "mlir/Conversion/ShardToMPI/ShardToMPI.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::amp;

#ifndef AMP_DEFAULT_MPI_IMPLEMENTATION
#define AMP_DEFAULT_MPI_IMPLEMENTATION "OpenMPI"
#endif


LogicalResult mlir::amp::buildCpuPipeline(OpPassManager &pm,
                                          const CpuPipelineOptions &options,
                                          std::string &errorMessage) {
  if (failed(checkAutocastMode("amp-cpu-pipeline", options.mode, errorMessage)))
    return failure();
  StringRef features = options.cpuFeatures;
  if (!llvm::is_contained({"host", "generic", "avx512bf16", "amx"}, features)) {
    errorMessage = "amp-cpu-pipeline: cpu-features must be host, generic, "
                   "avx512bf16 or amx, got '" +
                   options.cpuFeatures + "'";
    return failure();
  }
  StringRef gemm = options.gemm;
  if (gemm != "codegen" && gemm != "onednn") {
    errorMessage = "amp-cpu-pipeline: gemm must be codegen or onednn, got '" +
                   options.gemm + "'";
    return failure();
  }
  for (auto [name, tile] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"cache-tile", options.cacheTile},
        {"register-tile", options.registerTile}}) {
    if (!tile.empty() &&
        (tile.size() != 3 || llvm::any_of(tile, [](int64_t v) { return v < 1; }))) {
      errorMessage = ("amp-cpu-pipeline: " + name +
                      " takes three positive sizes (m, n, k)")
                         .str();
      return failure();
    }
  }

  std::string mpi = options.mpiImplementation;
  if (mpi.empty())
    mpi = AMP_DEFAULT_MPI_IMPLEMENTATION;
  if (mpi != "OpenMPI" && mpi != "MPICH") {
    errorMessage = "amp-cpu-pipeline: mpi-implementation must be OpenMPI or "
                   "MPICH, got '" +
                   options.mpiImplementation + "'";
    return failure();
  }

  // 1-2. The cast policy, upstream dialects only, linalg on tensors.
  if (failed(addAmpFrontEnd(pm, options.autocast, options.mode, errorMessage)))
    return failure();
  // A softmax's f32 readers (its backward) read the bf16/f16 copy autocast
  // made for the matmul after it, as PyTorch's bf16 attention does: the f32
  // softmax is not held from the forward to the backward.
  if (options.autocast && options.mode == "graph")
    pm.addNestedPass<func::FuncOp>(createAmpNarrowSoftmaxReaders());

  // cf.assert (torch-mlir's index checks) reports to the runtime instead of
  // abort(), with the accesses it guards clamped into their tensors.
  pm.addPass(createAmpCpuRecoverableAsserts());

  // On a CPU without bf16 arithmetic, a remark when the module computes in
  // bf16 (after autocast).
  AmpCpuBf16RemarkOptions remarkOptions;
  remarkOptions.cpuFeatures = options.cpuFeatures;
  pm.addPass(createAmpCpuBf16Remark(remarkOptions));

  // 3. Code generation for contractions, on tensors; with gemm=onednn, the
  // ones oneDNN computes are marked first and left alone. A batch matmul of
  // a weight broadcast across the batch (torch-mlir's x @ W for a 3-D x)
  // becomes one matmul first: no copy of W per batch entry.
  pm.addNestedPass<func::FuncOp>(createAmpFoldBatchBroadcast());
  // Transposes feeding contractions (a Linear's W^T, the backward's dY^T)
  // become transposed indexing maps: no transposed copy.
  pm.addNestedPass<func::FuncOp>(createAmpFoldTransposeIntoContraction());
  if (gemm == "onednn") {
    AmpCpuSelectOnednnOptions selectOptions;
    selectOptions.cpuFeatures = options.cpuFeatures;
    pm.addNestedPass<func::FuncOp>(createAmpCpuSelectOnednn(selectOptions));
  }
  // bf16 convolutions: im2col written in the VNNI layout of the
  // AVX512-BF16 contractions (on such a CPU).
  AmpCpuConvBf16DotOptions convOptions;
  convOptions.cpuFeatures = options.cpuFeatures;
  pm.addNestedPass<func::FuncOp>(createAmpCpuConvBf16Dot(convOptions));
  AmpCpuTileAndVectorizeOptions tileOptions;
  tileOptions.cacheTile = llvm::to_vector(options.cacheTile);
  tileOptions.registerTile = llvm::to_vector(options.registerTile);
  tileOptions.parallel = options.parallel;
  tileOptions.packRhs = options.packRhs;
  tileOptions.cpuFeatures = options.cpuFeatures;
  pm.addNestedPass<func::FuncOp>(createAmpCpuTileAndVectorize(tileOptions));
  // Row reductions (softmax, layer_norm), transposes that move the
  // innermost dimension (K^T, W^T) and non-overlapping max pooling as
  // vector code.
  pm.addNestedPass<func::FuncOp>(createAmpCpuVectorizeReductions());
  pm.addNestedPass<func::FuncOp>(createAmpCpuVectorizeTransposes());
  pm.addNestedPass<func::FuncOp>(createAmpCpuVectorizePooling());
  if (failed(
          addPassList(pm,
                      "func.func(canonicalize,cse,loop-invariant-code-motion,"
                      "loop-invariant-subset-hoisting,"
                      "canonicalize)",
                      errorMessage)))
    return failure();

  // 4. Buffers. Public functions do not write their arguments (the Python
  // package then passes arrays without copying them).
  pm.addPass(createAmpCpuReadOnlyArguments());
  // Collectives of data-parallel steps (shard.all_reduce, docs/Distributed.md):
  // gradient all-reduces packed into buckets, then MPI calls on buffers
  // (upstream convert-shard-to-mpi) on MPI_COMM_WORLD, out-of-place, for the
  // MPI library's ABI. Modules without shard ops pass unchanged.
  pm.addPass(createAmpDpBucketAllReduce());
  pm.addPass(createConvertShardToMPIPass());
  pm.addPass(createAmpMpiWorldCommunicator());
  AmpMpiAbiOptions abiOptions;
  abiOptions.implementation = mpi;
  pm.addPass(createAmpMpiAbi(abiOptions));
  if (failed(addAmpBufferization(pm, errorMessage)))
    return failure();
  if (gemm == "onednn") {
    AmpCpuOnednnContractionsOptions onednnOptions;
    onednnOptions.postOps = options.onednnPostOps;
    pm.addPass(createAmpCpuOnednnContractions(onednnOptions));
  }
  // AMX: the bf16 register tiles become tile loads and tdpbf16ps, their
  // accumulators carried by the k loops in tile registers.
  AmpCpuAmxTilesOptions amxOptions;
  amxOptions.cpuFeatures = options.cpuFeatures;
  pm.addNestedPass<func::FuncOp>(createAmpCpuAmxTiles(amxOptions));
  // The bf16 pairs of AVX512-BF16 tiles: one 1-D load per row of pairs.
  pm.addNestedPass<func::FuncOp>(createAmpCpuFlattenPairTransfers());
  // A buffer is held from its first use to its last (use or view's use):
  // allocations move down to their first user, deallocations up to after
  // the last (upstream optimize-allocation-liveness; the deallocation
  // pipeline leaves them at the end of the block). Without them a training
  // step held every activation, gradient and temporary until it returned.
  // Nothing here keeps a buffer for an asynchronous user (no non-blocking
  // MPI ops on allocated buffers, the oneDNN calls are synchronous).
  if (failed(addPassList(
          pm, "func.func(amp-sink-allocations,optimize-allocation-liveness)",
          errorMessage)))
    return failure();
  // Per-op timing (profile=true): around each computing op of the function
  // bodies, before the parallel loops become OpenMP regions.
  if (options.profile)
    pm.addPass(createAmpCpuProfileOps());

  // The scf.forall over cache tiles becomes an OpenMP parallel loop (LLVM's
  // libomp, loaded by amp-runner and the C API's JIT). The fork-join is
  // synchronous: when the call returns no worker runs JIT code any more, so
  // an ExecutionEngine can be destroyed at any time after a call.
  if (options.parallel &&
      failed(addPassList(pm, "scf-forall-to-parallel,convert-scf-to-openmp",
                       errorMessage)))
    return failure();

  // 5. To the LLVM dialect. Elementwise ops over contiguous buffers become
  // one 1-D loop each (amp-cpu-collapse-elementwise: LLVM vectorizes the
  // innermost loop only); copies between strided buffers become loops too
  // (amp-cpu-strided-copies: the runtime's memrefCopy moved one element per
  // memcpy call). Transfers are unrolled to 1-D (no stack
  // temporaries inside loops); contractions become outer products (FMAs on
  // broadcast rows); bf16/f16 <-> f32 conversions are expanded to integer
  // code with round-to-nearest-even (arith-expand include-bf16) where LLVM
  // has no instruction; math on f16/bf16 runs in f32, rounded to f16/bf16
  // after each op as PyTorch does (amp-keep-narrow-rounding); f32 erf and
  // tanh become polynomials that the loop vectorizer takes
  // (amp-cpu-approximate-math, after the f16/bf16 math is extended to f32,
  // so that autocast's bf16 GELU is vector code too: on libm it was 38% of
  // a transformer block's autocast time). lower-affine runs again after
  // expand-strided-metadata, which creates affine.apply ops. Buffers are
  // allocated and freed through the runtime's counting functions
  // (use-generic-functions: _mlir_memref_to_llvm_alloc/free,
  // libamp_cpu_runtime.so). amp-convert-scf-to-cf is upstream's
  // convert-scf-to-cf without its block splits' quadratic cost on a whole
  // model's function (densenet201: 64 s of 88).
  std::string approximate =
      options.approximateMath ? "amp-cpu-approximate-math," : "";
  if (failed(addPassList(
          pm,
          "func.func(amp-cpu-collapse-elementwise,amp-cpu-strided-copies,"
          "convert-linalg-to-loops,"
          "lower-vector-multi-reduction),"
          "lower-affine,"
          "convert-vector-to-scf{full-unroll=true},"
          "func.func(math-extend-to-supported-types{target-type=f32}," +
              approximate +
              "amp-keep-narrow-rounding,arith-expand{include-bf16=true}),"
              "expand-strided-metadata,lower-affine,"
              "finalize-memref-to-llvm{use-generic-functions=true},"
              "amp-convert-scf-to-cf,"
              "convert-vector-to-llvm{vector-contract-lowering=outerproduct "
              "vector-transpose-lowering=shuffle1d enable-x86vector=true "
              "enable-amx=true "
              "reassociate-fp-reductions=true},"
              "convert-math-to-llvm,convert-math-to-libm,convert-to-llvm,"
              // After convert-to-llvm: the block arguments of an AMX k loop
              // inside a parallel loop's region are tiles, a type that
              // convert-openmp-to-llvm's converter does not know.
              "convert-openmp-to-llvm,"
              "reconcile-unrealized-casts,canonicalize,cse",
          errorMessage)))
    return failure();
  // OpenMPI's reduction ops under the names libmpi.so exports.
  if (mpi == "OpenMPI")
    pm.addPass(createAmpMpiOpenMpiSymbols());
  return success();
}

void mlir::amp::registerCpuPipeline() {
  registerAmpPipeline<CpuPipelineOptions>(
      "amp-cpu-pipeline",
      "Autocast IR (tosa, linalg on tensors, arith/math/tensor) to the LLVM "
      "dialect for the CPU JIT: cast policy, fp32 accumulation, tiling and "
      "vectorization, bufferization, lowering",
      buildCpuPipeline);
}
