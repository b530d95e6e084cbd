//===- InitAmp.h - register everything amp-mlir provides --------*- C++ -*-===//

#ifndef AMP_INITAMP_H
#define AMP_INITAMP_H

namespace mlir {
class DialectRegistry;
namespace amp {

/// Adds the amp dialect (and the external cast-policy models it attaches to
/// upstream ops) to `registry`.
void registerAllAmpDialects(DialectRegistry &registry);

/// Registers the amp passes and pass pipelines with the global registry, so
/// that they appear in `amp-opt --help` and in textual pipelines.
void registerAllAmpPasses();

} // namespace amp
} // namespace mlir

#endif // AMP_INITAMP_H
