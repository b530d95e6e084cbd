//===- MpiMemoryEffects.cpp - memory effects of the upstream mpi ops ------===//
//
// External MemoryEffectOpInterface models for the mpi ops that take buffers,
// so that bufferization's deallocation and the canonicalizer know what they
// read and write. Each also reads and writes the default resource: a
// collective must run once per call on every rank, in program order, and is
// never removed.
//
//===----------------------------------------------------------------------===//

#include "amp/Distributed/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

using Effects =
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>;

void addCollectiveEffects(Effects &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

struct AllReduceEffects
    : public MemoryEffectOpInterface::ExternalModel<AllReduceEffects,
                                                    mpi::AllReduceOp> {
  void getEffects(Operation *op, Effects &effects) const {
    auto reduce = cast<mpi::AllReduceOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(),
                         &reduce.getSendbufMutable());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &reduce.getRecvbufMutable());
    addCollectiveEffects(effects);
  }
};

template <typename OpTy, bool Writes>
struct PointToPointEffects : public MemoryEffectOpInterface::ExternalModel<
                                 PointToPointEffects<OpTy, Writes>, OpTy> {
  void getEffects(Operation *op, Effects &effects) const {
    OpOperand &ref = cast<OpTy>(op).getRefMutable();
    if (Writes)
      effects.emplace_back(MemoryEffects::Write::get(), &ref);
    else
      effects.emplace_back(MemoryEffects::Read::get(), &ref);
    addCollectiveEffects(effects);
  }
};

/// Calls into the MPI library without buffers (init, finalize, barrier,
/// wait): they read and write its state.
template <typename OpTy>
struct LibraryEffects
    : public MemoryEffectOpInterface::ExternalModel<LibraryEffects<OpTy>,
                                                    OpTy> {
  void getEffects(Operation *, Effects &effects) const {
    addCollectiveEffects(effects);
  }
};

/// Error-code arithmetic: no effects.
template <typename OpTy>
struct NoEffects
    : public MemoryEffectOpInterface::ExternalModel<NoEffects<OpTy>, OpTy> {
  void getEffects(Operation *, Effects &) const {}
};

} // namespace

void mlir::amp::registerMpiMemoryEffectModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<AllReduceEffects>(*ctx);
    mpi::SendOp::attachInterface<PointToPointEffects<mpi::SendOp, false>>(*ctx);
    mpi::RecvOp::attachInterface<PointToPointEffects<mpi::RecvOp, true>>(*ctx);
    mpi::ISendOp::attachInterface<PointToPointEffects<mpi::ISendOp, false>>(
        *ctx);
    mpi::IRecvOp::attachInterface<PointToPointEffects<mpi::IRecvOp, true>>(
        *ctx);
    mpi::InitOp::attachInterface<LibraryEffects<mpi::InitOp>>(*ctx);
    mpi::FinalizeOp::attachInterface<LibraryEffects<mpi::FinalizeOp>>(*ctx);
    mpi::Barrier::attachInterface<LibraryEffects<mpi::Barrier>>(*ctx);
    mpi::Wait::attachInterface<LibraryEffects<mpi::Wait>>(*ctx);
    mpi::RetvalCheckOp::attachInterface<NoEffects<mpi::RetvalCheckOp>>(*ctx);
    mpi::ErrorClassOp::attachInterface<NoEffects<mpi::ErrorClassOp>>(*ctx);
  });
}
