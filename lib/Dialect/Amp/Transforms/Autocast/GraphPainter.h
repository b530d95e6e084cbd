//===- GraphPainter.h - graph-mode painting of amp-autocast -----*- C++ -*-===//
//
// Graph mode decides the compute type of infer, clear and promote ops by
// painting the dataflow graph of a region, after TensorFlow's
// auto_mixed_precision and OneFlow's graph pass; docs/Autocast.md gives the
// steps.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_GRAPHPAINTER_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_GRAPHPAINTER_H

#include "amp/Dialect/Amp/Policy/CastPolicy.h"

#include "mlir/IR/Operation.h"

namespace mlir::amp::autocast {

/// Colours of graph mode (TensorFlow: allow / deny).
enum class Paint { none, low, f32 };

/// The colour of each of `ops` (the decided ops of one region, in program
/// order, with their `categories`); `terminator` is the region's, whose
/// operands are the region's results (or null). `region` is the autocast
/// region: f32 values defined outside it (and its own arguments, a decorated
/// function's parameters) keep the ops that read them in f32, as PyTorch's
/// type promotion does (docs/Autocast.md, "Graph mode").
SmallVector<Paint> paintOps(ArrayRef<Operation *> ops,
                            ArrayRef<CastCategory> categories,
                            Operation *terminator, Region *region);

} // namespace mlir::amp::autocast

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_GRAPHPAINTER_H
