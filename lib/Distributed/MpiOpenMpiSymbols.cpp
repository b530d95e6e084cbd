//===- MpiOpenMpiSymbols.cpp - amp-mpi-openmpi-symbols --------------------===//
//
// After the mpi dialect is lowered to LLVM for OpenMPI: the external globals
// of the predefined reduction ops get the names libmpi.so exports
// (`ompi_mpi_op_sum`, not `ompi_mpi_sum`).
//
//===----------------------------------------------------------------------===//

#include "amp/Distributed/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPMPIOPENMPISYMBOLS
#include "amp/Distributed/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpMpiOpenMpiSymbols
    : public amp::impl::AmpMpiOpenMpiSymbolsBase<AmpMpiOpenMpiSymbols> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // OpenMPI's mpi.h: MPI_<OP> is &ompi_mpi_op_<op>.
    static constexpr StringLiteral ops[] = {
        "max", "min",  "sum",  "prod",   "land",   "band",    "lor",
        "bor", "lxor", "bxor", "maxloc", "minloc", "replace", "no_op"};
    for (StringRef op : ops) {
      std::string wrong = ("ompi_mpi_" + op).str();
      auto global = module.lookupSymbol<LLVM::GlobalOp>(wrong);
      if (!global || global.getInitializerRegion().getBlocks().size() ||
          global.getValueAttr())
        continue; // not an external declaration made by the lowering
      std::string right = ("ompi_mpi_op_" + op).str();
      if (module.lookupSymbol(right)) {
        global.emitOpError()
            << "cannot be renamed to @" << right << ": the symbol exists";
        return signalPassFailure();
      }
      if (failed(SymbolTable::replaceAllSymbolUses(
              global, StringAttr::get(&getContext(), right), module)))
        return signalPassFailure();
      SymbolTable::setSymbolName(global, right);
    }
  }
};

} // namespace
