//===- MpiAbi.cpp - amp-mpi-abi -------------------------------------------===//
//
// Prepares mpi ops for upstream's mpi-to-LLVM lowering: the MPI library's ABI
// as the module's DLTI "MPI:Implementation" entry, element types that the
// lowering has an MPI datatype for, and out-of-place all-reduces.
//
//===----------------------------------------------------------------------===//

#include "amp/Distributed/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPMPIABI
#include "amp/Distributed/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Whether MPIToLLVM has an MPI datatype for `type` (MPIToLLVM.cpp,
/// getDataType: f32, f64, 8/16/32/64-bit integers).
bool hasMpiDatatype(Type type) {
  if (type.isF32() || type.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth());
}

/// `mpi.allreduce(%buf, %buf)` where `%buf = memref.alloc` is filled by one
/// `linalg.copy ins(%src) outs(%buf)` right before: reduce from `%src` into
/// `%buf` and drop the copy.
void makeOutOfPlace(mpi::AllReduceOp op) {
  Value buffer = op.getRecvbuf();
  if (op.getSendbuf() != buffer || !buffer.getDefiningOp<memref::AllocOp>())
    return;
  auto copy = dyn_cast_or_null<linalg::CopyOp>(op->getPrevNode());
  // The copy may sit a few ops earlier (communicator setup in between).
  for (Operation *it = op->getPrevNode(); it && !copy; it = it->getPrevNode()) {
    if (auto candidate = dyn_cast<linalg::CopyOp>(it))
      copy = candidate;
    else if (llvm::is_contained(it->getOperands(), buffer))
      return; // something else touches the buffer first
  }
  if (!copy || !copy.hasPureBufferSemantics() ||
      copy.getDpsInits().front() != buffer)
    return;
  Value source = copy.getDpsInputs().front();
  if (source.getType() != buffer.getType())
    return;
  op.getSendbufMutable().assign(source);
  copy.erase();
}

/// `buffer` as a 1-D memref (upstream's lowering counts the elements of the
/// first dimension only, and reads a size that a 0-d descriptor does not
/// have). Null when its layout is not the identity.
Value asVector(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  if (!type.getLayout().isIdentity() || !type.hasStaticShape())
    return nullptr;
  auto flat =
      MemRefType::get({type.getNumElements()}, type.getElementType(),
                      MemRefLayoutAttrInterface{}, type.getMemorySpace());
  if (type.getRank() == 0)
    return memref::ExpandShapeOp::create(b, loc, flat, buffer,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return memref::CollapseShapeOp::create(b, loc, flat, buffer,
                                         ArrayRef<ReassociationIndices>{all});
}

struct AmpMpiAbi : public amp::impl::AmpMpiAbiBase<AmpMpiAbi> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (implementation != "OpenMPI" && implementation != "MPICH") {
      module.emitError() << "amp-mpi-abi: implementation must be OpenMPI or "
                            "MPICH, got '"
                         << implementation << "'";
      return signalPassFailure();
    }
    bool hasMpi = false;
    module.walk([&](Operation *op) {
      hasMpi |= isa<mpi::MPIDialect>(op->getDialect());
    });
    if (!hasMpi)
      return;
    bool failedCheck = false;
    auto check = [&](Operation *op, Value buffer) {
      Type element = cast<MemRefType>(buffer.getType()).getElementType();
      if (hasMpiDatatype(element))
        return;
      op->emitOpError() << "on " << buffer.getType()
                        << ": the MPI lowering has no datatype for " << element
                        << " (f32, f64, i8, i16, i32, i64 only)";
      failedCheck = true;
    };
    module.walk([&](Operation *op) {
      if (auto reduce = dyn_cast<mpi::AllReduceOp>(op)) {
        check(op, reduce.getSendbuf());
        check(op, reduce.getRecvbuf());
      } else if (auto send = dyn_cast<mpi::SendOp>(op)) {
        check(op, send.getRef());
      } else if (auto recv = dyn_cast<mpi::RecvOp>(op)) {
        check(op, recv.getRef());
      }
    });
    if (failedCheck)
      return signalPassFailure();

    SmallVector<mpi::AllReduceOp> reduces;
    module.walk([&](mpi::AllReduceOp op) { reduces.push_back(op); });
    for (mpi::AllReduceOp op : reduces)
      makeOutOfPlace(op);

    // Every buffer operand as a 1-D view.
    WalkResult flat = module.walk([&](Operation *op) {
      if (!isa<mpi::AllReduceOp, mpi::SendOp, mpi::RecvOp>(op))
        return WalkResult::advance();
      OpBuilder b(op);
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()))
          continue;
        Value view = asVector(b, op->getLoc(), operand.get());
        if (!view) {
          op->emitOpError() << "on " << operand.get().getType()
                            << ": the MPI lowering needs a contiguous buffer "
                               "of static shape (identity layout)";
          return WalkResult::interrupt();
        }
        operand.set(view);
      }
      return WalkResult::advance();
    });
    if (flat.wasInterrupted())
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    auto entry =
        DataLayoutEntryAttr::get(StringAttr::get(ctx, "MPI:Implementation"),
                                 StringAttr::get(ctx, implementation));
    auto existing = module->getAttrOfType<MapAttr>("dlti.map");
    SmallVector<DataLayoutEntryInterface> entries;
    if (existing)
      for (DataLayoutEntryInterface e : existing.getEntries())
        if (auto key = dyn_cast<StringAttr>(e.getKey());
            !key || key.getValue() != "MPI:Implementation")
          entries.push_back(e);
    entries.push_back(entry);
    module->setAttr("dlti.map", MapAttr::get(ctx, entries));
  }
};

} // namespace
