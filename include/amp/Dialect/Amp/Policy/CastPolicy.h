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

/// User overrides of categories from pass options: op name -> category;
/// `std::nullopt` entries remove the op from its default category (it then
/// counts as `infer`, like an op on none of PyTorch's lists).
using CastPolicyOverrides = llvm::StringMap<std::optional<CastCategory>>;

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
