//===- VectorizeTiles.h - loop tiles as vector code -------------*- C++ -*-===//
//
// Shared by the passes that turn an op the tiled contraction path does not
// take (a row reduction, a transposing copy) into loops over small tiles,
// each tile vector code: amp-cpu-vectorize-reductions and
// amp-cpu-vectorize-transposes.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_CPU_VECTORIZETILES_H
#define AMP_LIB_CODEGEN_CPU_VECTORIZETILES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {

/// The largest divisor of `size` that is at most `target`; 1 when there is
/// none above 1.
int64_t largestDivisorAtMost(int64_t size, int64_t target);

/// Tiles `op` with `scf.for` loops of `tileSizes` (0: the whole dimension;
/// upstream `scf::tileUsingSCF`) and replaces it; the tile, as a
/// `linalg.generic` with its unit loops dropped (rank-reducing slices), is
/// vectorized by upstream `linalg::vectorize`. Returns the block that holds
/// the vector code. Fails when tiling or vectorization refuses; a tile the
/// vectorizer refuses stays a (scalar) linalg op: correct, as slow as before.
FailureOr<Block *> tileAndVectorizeWithLoops(RewriterBase &rewriter,
                                             linalg::LinalgOp op,
                                             ArrayRef<int64_t> tileSizes);

} // namespace mlir::amp

#endif // AMP_LIB_CODEGEN_CPU_VECTORIZETILES_H
