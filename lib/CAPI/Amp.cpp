//===- Amp.cpp - C API of amp-mlir ----------------------------------------===//

#include "amp-c/Amp.h"

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/InitAmp.h"

#include "mlir-c/RegisterEverything.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "AmpCAPIConfig.h"

#include <mutex>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Amp, amp, mlir::amp::AmpDialect)

void ampRegisterAllDialects(MlirDialectRegistry registry) {
  mlirRegisterAllDialects(registry);
  mlir::amp::registerAllAmpDialects(*unwrap(registry));
  // gpu-module-to-binary translates kernels to LLVM IR inside a pipeline.
  mlir::registerAllToLLVMIRTranslations(*unwrap(registry));
}

void ampRegisterAllPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    mlir::amp::registerAllAmpPasses();
  });
}

void ampModuleEmitCInterface(MlirModule module) {
  mlir::ModuleOp moduleOp = unwrap(module);
  moduleOp.walk([](mlir::func::FuncOp func) {
    if (func.isPublic() && !func.isExternal())
      func->setAttr(mlir::LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    mlir::UnitAttr::get(func.getContext()));
  });
}

const char *ampGetJitRuntimeLibraries(void) { return AMP_JIT_RUNTIME_LIBRARIES; }

const char *ampGetMpiLibrary(void) { return AMP_MPI_LIBRARY; }

const char *ampGetMpiImplementation(void) { return AMP_MPI_IMPLEMENTATION; }
