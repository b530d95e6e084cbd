//===- Retype.h - change the compute type of ops ----------------*- C++ -*-===//
//
// Shared machinery of the amp passes: rebuild an op so that it computes in a
// given float type (operands cast, results, payloads, attributes and inits
// retyped), with rollback when the retyped op does not verify.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_RETYPE_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_RETYPE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

#include <unordered_set>
#include <vector>

namespace mlir::amp {

/// `op` as a linalg structured op, or null. Every structured op has a
/// payload region, so the region-less ops that make up most of a model are
/// answered without an interface lookup.
inline linalg::LinalgOp getStructuredOp(Operation *op) {
  return op->getNumRegions() ? dyn_cast<linalg::LinalgOp>(op)
                             : linalg::LinalgOp();
}

/// The operand numbers of a destination-style op's inits: a consecutive
/// range [begin, end). Each DestinationStyleOpInterface accessor (isDpsInit,
/// getDpsInits, getDpsInputs) rebuilds the operand segment attribute of ops
/// with variadic inputs and inits (every named linalg op); the autocast pass
/// asks once per op through this.
struct DpsInitRange {
  unsigned begin = 0, end = 0;
  explicit DpsInitRange(DestinationStyleOpInterface op);
  bool contains(OpOperand &operand) const {
    unsigned number = operand.getOperandNumber();
    return number >= begin && number < end;
  }
};

/// Widest of two float types in the autocast order (f16, bf16 < f32); f16
/// and bf16 together give f32. Null operands are ignored.
FloatType widestFloatType(FloatType a, FloatType b);

/// True when every element of the float constant `value` converts to `to`
/// without overflowing to infinity or underflowing a nonzero to zero.
bool constantFitsIn(Attribute value, FloatType to);

/// True when `value` carries no data a computation depends on: a
/// `tensor.empty`, or a `linalg.fill` of a constant into such a tensor. Such a
/// value used as a structured op's init can be rebuilt at any element type.
bool isRematerializableInit(Value value);

/// Rebuilds a rematerializable init (see above) with element type `elem`
/// at the builder's insertion point, or returns null when `value` is not
/// rematerializable or its fill constant does not fit in `elem`.
Value rematerializeInit(OpBuilder &b, Value value, FloatType elem);

/// `value` converted to element type `elem` at the builder's insertion
/// point: an empty or constant-filled tensor is rebuilt, a constant is folded
/// (round to nearest even), anything else gets an `amp.cast`.
Value convertElementType(OpBuilder &b, Location loc, Value value,
                         FloatType elem);

/// Provides a value equal to `value` converted to element type `elem`, valid
/// at `user` (see convertElementType). The amp passes implement it with
/// their cast placement (cache, hoisting).
using CastFn =
    function_ref<Value(Value value, FloatType elem, Operation *user)>;

/// Verifies retyped ops without reporting (a failure is the caller's to
/// explain), remembering the signatures that verified. An op without
/// regions or successors that is not a terminator (a terminator checks its
/// operands against its parent) is described by its name, its attributes,
/// its operand and result types, and the values of its constant operands:
/// everything upstream verifiers of such ops read. A later op with the same signature verified
/// already (the autocast pass retypes thousands of identical ops in a
/// transformer stack) and is not verified again. Failures are not
/// remembered. One verifier serves one pass run.
class RetypeVerifier {
public:
  /// Verifies `op` and the ops nested in it. A structured op is checked for
  /// what retyping can break (payload ops, block argument and yield types
  /// against operands); the rest of its verifier depends on shapes and
  /// indexing maps, which retyping does not change.
  LogicalResult verify(Operation *op);

private:
  /// The invariants of one op, not of the ops nested in it.
  bool verifiesCached(Operation *op);

  struct KeyHash {
    size_t operator()(const std::vector<const void *> &key) const {
      return llvm::hash_combine_range(key.begin(), key.end());
    }
  };
  std::unordered_set<std::vector<const void *>, KeyHash> verified;
  std::vector<const void *> key; // scratch, reused across calls
};

/// Rewrites `op` so that it computes in `compute`: every f32/f16/bf16
/// operand goes through `castTo`, every such result takes element type
/// `compute`; structured op payloads, captured scalars, inits and typed
/// attributes (tosa.clamp bounds) follow. Integer and f64 values stay.
/// Operands are converted through `castTo` only (inits included).
/// Returns the op now standing for `op` (a new op for structured ops), or
/// failure, leaving `op` as it was, when the rewritten op does not verify.
/// `verifier` checks the rewritten op.
FailureOr<Operation *> retypeOp(Operation *op, FloatType compute, CastFn castTo,
                                RetypeVerifier &verifier);

/// Rebuilds a linalg structured op with new operands and result types. A
/// named op is changed in place, its payload regenerated by its region
/// builder (which inserts the arith.extf of mixed-precision operands), and
/// `op` itself is returned. A user payload (generic, map, reduce) is retyped
/// to `payloadType` on a clone, which is returned; the caller replaces and
/// erases `op`. Returns null, leaving `op` as it was, when the result does
/// not verify.
Operation *rebuildStructuredOp(OpBuilder &b, linalg::LinalgOp op,
                               ValueRange inputs, ValueRange inits,
                               FloatType payloadType, CastFn castTo,
                               RetypeVerifier &verifier);

} // namespace mlir::amp

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_RETYPE_H
