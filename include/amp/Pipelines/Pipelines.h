//===- Pipelines.h - amp-mlir pass pipelines --------------------*- C++ -*-===//
//
// Registered pass pipelines that take autocast IR (tosa, linalg on tensors,
// arith/math/tensor, with amp.autocast regions) down to a target: the
// shared front end (FrontEnd.h), amp-cpu-pipeline (CpuPipeline.h) and
// amp-cuda-pipeline (CudaPipeline.h).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_PIPELINES_H
#define AMP_PIPELINES_PIPELINES_H

#include "amp/Pipelines/CpuPipeline.h"
#include "amp/Pipelines/CudaPipeline.h"
#include "amp/Pipelines/FrontEnd.h"

#endif // AMP_PIPELINES_PIPELINES_H
