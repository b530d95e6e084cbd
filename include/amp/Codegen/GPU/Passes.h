//===- Passes.h - CUDA code generation --------------------------*- C++ -*-===//
//
// Code generation for NVIDIA GPUs (amp-cuda-pipeline): tensor-core and
// cuBLAS contractions, reduction, scalar and transpose kernels, loop
// mapping, managed memory and queued launches.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CODEGEN_GPU_PASSES_H
#define AMP_CODEGEN_GPU_PASSES_H

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Codegen/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Codegen/GPU/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_CODEGEN_GPU_PASSES_H
