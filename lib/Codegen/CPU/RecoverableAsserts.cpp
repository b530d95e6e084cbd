//===- RecoverableAsserts.cpp - cf.assert without abort() -----------------===//
//
// The `amp-cpu-recoverable-asserts` pass: each `cf.assert` becomes a call of
// the CPU runtime's `amp_cpu_assert_failed` when its condition is false, and
// the `tensor.extract`/`tensor.insert` ops after it in its block get their
// indices clamped into the tensor, so that execution continues without
// touching memory outside the tensors. The caller takes the message after
// the call (Memory.cpp's neighbour in the runtime, CpuRuntime.cpp) and
// reports it; upstream's lowering of cf.assert (puts + abort) killed the
// process, a Python interpreter included.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPURECOVERABLEASSERTS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

constexpr StringLiteral kHook = "amp_cpu_assert_failed";

/// `msg at "file":line:col at ...`: the message and the file locations of
/// `loc`, innermost first (the Python front end picks the user's frame).
std::string messageWithLocation(StringRef msg, Location loc) {
  std::string text = msg.str();
  llvm::raw_string_ostream os(text);
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner))
      os << " at \"" << file.getFilename().getValue() << "\":" << file.getLine()
         << ":" << file.getColumn();
    return WalkResult::advance();
  });
  return text;
}

/// `index` clamped into [0, dim(tensor, d) - 1].
Value clampIndex(OpBuilder &b, Location loc, Value tensor, unsigned d,
                 Value index) {
  Value dim = tensor::DimOp::create(b, loc, tensor, d);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, dim, one);
  Value below = arith::MinSIOp::create(b, loc, index, last);
  return arith::MaxSIOp::create(b, loc, below, zero);
}

void clampIndices(OpBuilder &b, Operation *op, Value tensor,
                  MutableOperandRange indices) {
  b.setInsertionPoint(op);
  for (auto [d, operand] : llvm::enumerate(indices))
    operand.set(clampIndex(b, op->getLoc(), tensor, d, operand.get()));
}

struct AmpCpuRecoverableAssertsPass
    : public amp::impl::AmpCpuRecoverableAssertsBase<
          AmpCpuRecoverableAssertsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;

    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    SymbolTable symbols(module);
    if (!symbols.lookup(kHook)) {
      b.setInsertionPointToStart(module.getBody());
      auto hook = func::FuncOp::create(b, module.getLoc(), kHook,
                                       b.getFunctionType({ptrType}, {}));
      hook.setPrivate();
    }

    llvm::SmallPtrSet<Operation *, 8> clamped;
    unsigned counter = 0;
    for (cf::AssertOp op : asserts) {
      // The accesses the assert guards: those after it in its block.
      for (Operation &later :
           llvm::make_range(std::next(op->getIterator()), op->getBlock()->end())) {
        if (!clamped.insert(&later).second)
          continue;
        if (auto extract = dyn_cast<tensor::ExtractOp>(later))
          clampIndices(b, extract, extract.getTensor(),
                       extract.getIndicesMutable());
        else if (auto insert = dyn_cast<tensor::InsertOp>(later))
          clampIndices(b, insert, insert.getDest(), insert.getIndicesMutable());
      }

      Location loc = op.getLoc();
      b.setInsertionPoint(op);
      Value isTrue = arith::ConstantIntOp::create(b, loc, 1, 1);
      Value failed = arith::XOrIOp::create(b, loc, op.getArg(), isTrue);
      auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      std::string name;
      do
        name = "amp_assert_msg_" + std::to_string(counter++);
      while (symbols.lookup(name));
      // createGlobalString puts the global at the start of the module and
      // its address computation here.
      Value text = LLVM::createGlobalString(
          loc, b, name, messageWithLocation(op.getMsg(), loc) + '\0',
          LLVM::Linkage::Private);
      func::CallOp::create(b, loc, kHook, TypeRange{}, ValueRange{text});
      op.erase();
    }
  }
};

} // namespace
