//===- TensorCore.h - pieces of the tensor-core kernels ---------*- C++ -*-===//
//
// The parts of `amp-gpu-tensor-core-contractions`
// (TensorCoreContractions.cpp) that work on one launch the pass's schedule
// made: how a matmul is tiled (TileConfig), staging its A and B tiles in shared
// memory and pipelining their copies with cp.async (Staging.cpp),
// and lowering bf16 m16n8k16 contractions to mma.sync
// (Bf16Mma.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_GPU_TENSORCORE_TENSORCORE_H
#define AMP_LIB_CODEGEN_GPU_TENSORCORE_TENSORCORE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <tuple>

namespace mlir::amp::tensor_core {

/// How one matmul is spread over the GPU: the output tile of a block and of
/// each of its warps (m x n, multiples of 16 x 8).
struct TileConfig {
  int64_t blockM, blockN, warpM, warpN;
  /// The k step: the block's A and B tiles are blockM x blockK and
  /// blockK x blockN.
  int64_t blockK;
  /// The sets of A and B tiles in shared memory (chooseStages).
  int64_t stages = 1;

  int64_t warpsM() const { return blockM / warpM; }
  int64_t warpsN() const { return blockN / warpN; }
  int64_t threads() const { return 32 * warpsM() * warpsN(); }
  bool operator<(const TileConfig &o) const {
    return std::tie(blockM, blockN, warpM, warpN, blockK, stages) <
           std::tie(o.blockM, o.blockN, o.warpM, o.warpN, o.blockK, o.stages);
  }
};

/// The most static shared memory a block may have (CUDA: 48 KiB; more
/// needs dynamic shared memory, which the kernel opts in to at launch).
constexpr int64_t kStaticSharedBytes = 48 * 1024;

/// The most shared memory a launch's stages take: 96 KiB fits every sm_80+
/// chip (sm_86/sm_89: 99 KiB a block) and leaves two 128 x 128 blocks (the
/// most their registers allow) room on an SM of sm_80 (164 KiB) or sm_90
/// (227 KiB).
constexpr int64_t kMaxStagesBytes = 96 * 1024;

/// The bytes of one stage of `config`'s tiles: blockM x (blockK + 8) and
/// blockK x (blockN + 8) elements of `elementBytes` bytes (rows padded by
/// 8, see stageInSharedMemory).
inline int64_t stageBytes(const TileConfig &config, int64_t elementBytes) {
  return (config.blockM * (config.blockK + 8) +
          config.blockK * (config.blockN + 8)) *
         elementBytes;
}

/// An in-bounds, unmasked, identity-map transfer on a memref: one that
/// plain loads and stores at its indices can replace.
inline bool isPlainMemRefTransfer(VectorTransferOpInterface transfer) {
  return !transfer.getMask() && isa<MemRefType>(transfer.getBase().getType()) &&
         transfer.getPermutationMap().isIdentity() &&
         llvm::all_of(transfer.getInBoundsValues(), [](bool b) { return b; });
}

/// Whether `read` is from shared memory, where ldmatrix can load it.
inline bool isShared(vector::TransferReadOp read) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
      cast<MemRefType>(read.getBase().getType()).getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// The plain `vector.transfer_read` (see above) that defines `v`, or null.
inline vector::TransferReadOp getPlainRead(Value v) {
  auto read = v.getDefiningOp<vector::TransferReadOp>();
  return read && isPlainMemRefTransfer(read) ? read : vector::TransferReadOp();
}

/// Stages the A and B tiles of each k step of a tensor-core launch in shared
/// memory: the block's threads copy the blockM x blockK tile of A and the
/// blockK x blockN tile of B (coalesced, up to 16 bytes per thread and
/// copy), between barriers, and the warps read their fragments from there
/// instead of from global memory, each element of A once per block instead
/// of once per warp column (B: per warp row). The shared tiles' rows are
/// padded by 8 elements (16 bytes), which puts the 8 rows an ldmatrix reads
/// on different banks. With config.stages > 1 and a k loop of constant
/// bounds (otherwise config.stages becomes 1), each tile is a stages x rows
/// x (cols + 8) buffer (a workgroup attribution up to kStaticSharedBytes,
/// beyond that a view of the launch's dynamic shared memory) and k step i
/// uses its stage i mod stages (a subview at the top of the loop's body),
/// so that pipelineTileCopies can copy later steps' tiles while the warps
/// read this one's. Fails, leaving the launch as it was, when the launch is
/// not the schedule's (one k loop, one contraction of two plain reads): the
/// schedule always makes that form, so the pass reports an error.
///
/// The copies' vector loads are 16-byte aligned when the operands' base
/// addresses are (every buffer the runtime allocates is): k and n are
/// multiples of 16 and 8 elements.
LogicalResult stageInSharedMemory(RewriterBase &rewriter, gpu::LaunchOp launch,
                                  TileConfig &config);

/// Software-pipelines the shared-tile copies of a tensor-core launch's k
/// loop over its `stages` sets of shared tiles (stageInSharedMemory's; run
/// once the mma code is final: upstream's vector-to-nvgpu conversion cannot
/// take other loop-carried values). Each thread's copies become `cp.async`
/// (`nvgpu.device_async_copy`, sm_80+: global to shared memory without
/// registers), one commit group per k step, issued stages - 1 steps ahead:
///
///   copy steps 0 .. stages - 2 to their stages, a group each
///   for k (step i):
///     wait until at most stages - 2 groups are pending  // step i's landed
///     barrier      // everyone's copies of step i are visible, and every
///                  // warp is done with step i - 1's stage
///     copy step min(i + stages - 1, last) to stage (i + stages - 1) mod
///       stages (= step i - 1's), a group
///     warps: fragments from stage i mod stages, mma.sync
///   wait for every group
///
/// so that stages - 1 steps of loads are in flight behind the tensor-core
/// work (the last steps reload the last step's tiles into stages no later
/// step reads rather than branch). Upstream's pipelining
/// (`transform.nvgpu.pipeline_shared_memory_copies`) works on multi-buffered
/// `memref.alloc`s and places its own barriers; the launch's tiles are
/// workgroup attributions whose loop already has its barriers, so the pass
/// pipelines this one loop form itself. Leaves the loop as it is (each k
/// step's copies through registers, between its barriers) when it is not
/// that form: bounds not constant, fewer steps than stages, a copy that is
/// not one load to one store of 4, 8 or 16 bytes, or indices that depend on
/// anything in the loop but pure index arithmetic.
void pipelineTileCopies(RewriterBase &rewriter, gpu::LaunchOp launch,
                        int64_t stages);

/// Lowers a warp's m16n8k16 bf16 contractions, as the schedule and the
/// unrolling leave them in a k step:
///
///   %a = vector.transfer_read %A[i, k] : memref, vector<16x16xbf16>  (m x k)
///   %b = vector.transfer_read %B[k, j] : memref, vector<16x8xbf16>   (k x n)
///   %c = vector.transfer_read %C[i, j] : memref, vector<16x8xf32>
///   %d = vector.contract (m, k) x (k, n) -> (m, n), %a, %b, %c
///   vector.transfer_write %d, %C[i, j]
///
/// (A and B from the shared tiles; with a k step of 32, two such
/// contractions in a chain, the first's result the second's accumulator)
/// to the fragments each lane holds and one `nvvm.mma.sync` each with bf16
/// multiplicands and f32 accumulators. An A or B tile that feeds several
/// contractions (a warp tile larger than 16 x 8) is loaded once, where it
/// was read. Fragment layout (PTX ISA, "Matrix Fragments for mma.m16n8k16
/// with floating point type", the same for .f16 and .bf16; g = laneid / 4,
/// t = laneid % 4):
///   A, four registers of two bf16: (row g, cols 2t, 2t+1), (g+8, 2t..),
///     (g, 2t+8..), (g+8, 2t+8..); the lower column in the low half;
///   B, two registers: (rows 2t, 2t+1, col g), (rows 2t+8, 2t+9, col g);
///   C and D, four f32: (row g, cols 2t, 2t+1), (row g+8, cols 2t, 2t+1).
/// These are the lane positions MLIR's f16 conversion loads as well. The
/// positions are affine in the tile's indices and the lane id, so that
/// upstream's hoisting can tell the accumulator pairs of different tiles
/// apart.
///
/// Fails with an error at the first contraction that is not of this form
/// (the schedule always makes it, so that is a bug in the pass); erases
/// the contractions, the reads they replaced and the tiles' reads once all
/// are lowered.
LogicalResult lowerBf16Contractions(RewriterBase &rewriter,
                                    ArrayRef<vector::ContractionOp> contracts);

} // namespace mlir::amp::tensor_core

#endif // AMP_LIB_CODEGEN_GPU_TENSORCORE_TENSORCORE_H
