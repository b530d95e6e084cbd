//===- ProfileOps.cpp - time every top-level op of each function ----------===//
//
// The `amp-cpu-profile-ops` pass: calls of the CPU runtime's
// ampProfileNow/ampProfileRecord around each computing op of a function
// body, named by a global string (Passes.td has the details).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUPROFILEOPS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

bool isTimed(Operation *op) {
  if (op->hasTrait<OpTrait::IsTerminator>())
    return false;
  return isa<linalg::LinalgOp, func::CallOp, memref::CopyOp>(op) ||
         op->getNumRegions() > 0;
}

std::string describe(func::FuncOp func, unsigned index, Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << func.getSymName() << "#" << index << " " << op->getName();
  if (auto call = dyn_cast<func::CallOp>(op))
    os << " @" << call.getCallee();
  os << " (";
  llvm::interleaveComma(op->getOperandTypes(), os);
  os << ") ";
  op->getLoc().print(os);
  return text;
}

struct AmpCpuProfileOpsPass
    : public amp::impl::AmpCpuProfileOpsBase<AmpCpuProfileOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);
    auto i64 = builder.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    if (funcs.empty())
      return;
    // The runtime's entry points, declared once.
    builder.setInsertionPointToStart(module.getBody());
    auto declare = [&](StringRef name, FunctionType type) {
      if (module.lookupSymbol(name))
        return;
      auto decl = func::FuncOp::create(builder, module.getLoc(), name, type);
      decl.setPrivate();
    };
    declare("ampProfileNow", builder.getFunctionType({}, {i64}));
    declare("ampProfileRecord", builder.getFunctionType({ptr, i64}, {}));
    unsigned globals = 0;
    for (func::FuncOp func : funcs) {
      unsigned index = 0;
      for (Block &block : func.getBody()) {
        for (Operation &op : llvm::make_early_inc_range(block)) {
          if (!isTimed(&op)) {
            ++index;
            continue;
          }
          std::string name = describe(func, index++, &op);
          name.push_back('\0');
          // The name as a private constant string.
          builder.setInsertionPoint(func);
          std::string symbol =
              "__amp_profile_name_" + std::to_string(globals++);
          auto arrayType =
              LLVM::LLVMArrayType::get(builder.getI8Type(), name.size());
          LLVM::GlobalOp::create(builder, op.getLoc(), arrayType,
                                 /*isConstant=*/true, LLVM::Linkage::Private,
                                 symbol, builder.getStringAttr(name));
          builder.setInsertionPoint(&op);
          Value start =
              func::CallOp::create(builder, op.getLoc(), "ampProfileNow",
                                   TypeRange{i64}, ValueRange{})
                  .getResult(0);
          builder.setInsertionPointAfter(&op);
          Value address =
              LLVM::AddressOfOp::create(builder, op.getLoc(), ptr, symbol);
          func::CallOp::create(builder, op.getLoc(), "ampProfileRecord",
                               TypeRange{}, ValueRange{address, start});
        }
      }
    }
  }
};

} // namespace
