//===- CastPolicy.h - cast policy of autocast regions -----------*- C++ -*-===//
//
// The cast policy decides the category (lower, fp32, promote, infer, clear,
// keep) of every op inside an autocast region. Sources, in priority order:
//   1. pass options (`amp-autocast{fp32-ops=... remove-lower-ops=...}`),
//   2. the innermost `amp.policy = #amp.policy<...>` attribute,
//   3. the op's CastPolicyOpInterface (default tables for upstream ops),
//   4. `keep` for ops without any of these that touch float values.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_POLICY_CASTPOLICY_H
#define AMP_DIALECT_AMP_POLICY_CASTPOLICY_H

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/StringMap.h"

#include "amp/Dialect/Amp/Policy/CastPolicyInterface.h.inc"

namespace mlir {
class DialectRegistry;
namespace amp {

/// Attaches the default CastPolicyOpInterface models to upstream ops (tosa,
/// linalg, arith, math, tensor, scf).
void registerCastPolicyExternalModels(DialectRegistry &registry);

/// One row of the default policy table: an op, its category on cuda and on
/// cpu, and the anchor it follows (e.g. "PyTorch CUDA fp32 list: exp").
struct DefaultPolicyEntry {
  StringRef opName;
  CastCategory cuda;
  CastCategory cpu;
  StringRef anchor;
};

/// The default table, for documentation and for `amp-opt --amp-print-policy`.
ArrayRef<DefaultPolicyEntry> getDefaultPolicyTable();

/// Category of a `linalg.generic`-like op decided from its body: a
/// contraction is `lower`, a sum/product reduction or a body op on the fp32
/// list is `fp32`, a body of pure data movement is `clear`, anything else is
/// `infer`.
CastCategory classifyStructuredBody(Operation *op, DeviceType device);

/// A pass option's change to one op's category: `set` puts it in a
/// category (`lower-ops=`, ...); `removedFrom` (a mask of
/// `1 << CastCategory`) takes it off lists (`remove-lower-ops=`, ...): an op
/// whose category from the `#amp.policy` attributes or the default table is
/// one of those lists counts as `infer`, like an op on none of PyTorch's
/// lists; an op on another list keeps its category. `set` wins.
struct CastPolicyOverride {
  std::optional<CastCategory> set;
  unsigned removedFrom = 0;
};

/// User overrides of categories from pass options, by op name.
using CastPolicyOverrides = llvm::StringMap<CastPolicyOverride>;

/// Resolves the category of ops in a region of the given device.
class CastPolicy {
public:
  CastPolicy(DeviceType device, const CastPolicyOverrides &overrides)
      : device(device), overrides(overrides) {}

  /// The category of `op`, or std::nullopt when it neither reads nor
  /// produces a value that autocast may retype (f32/f16/bf16 floats).
  std::optional<CastCategory> classify(Operation *op) const;

  DeviceType getDevice() const { return device; }

private:
  /// The category from the `#amp.policy` attributes, else the op's
  /// CastPolicyOpInterface, else keep.
  CastCategory classifyWithoutOptions(Operation *op) const;

  /// The #amp.policy attributes on `parent` and its ancestors, innermost
  /// first. The ops of one region share their parent: the chain of the last
  /// parent asked for is remembered. A CastPolicy is used while the policy
  /// attributes and the parent ops of the ops it classifies stay in place
  /// (the autocast pass retypes ops; it neither erases parents nor edits
  /// policies).
  ArrayRef<PolicyAttr> getEnclosingPolicies(Operation *parent) const;

  DeviceType device;
  const CastPolicyOverrides &overrides;
  mutable Operation *cachedParent = nullptr;
  mutable SmallVector<PolicyAttr, 2> cachedPolicies;
};

/// True for the types autocast may retype: f32, f16 and bf16 scalars and
/// ranked tensors of them. f64, integers, memrefs, vectors and unranked
/// tensors are never touched.
bool isAutocastFloat(Type type);

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_POLICY_CASTPOLICY_H
