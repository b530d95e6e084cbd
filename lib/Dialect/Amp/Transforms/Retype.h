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

namespace mlir::amp {

/// `type` (a float scalar or a ranked tensor of floats) with element type
/// `elem`.
Type withElementType(Type type, Type elem);

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

/// True when the payload of `op` reads its init operand `init` (an
/// accumulator); false for a pure output.
bool payloadReadsInit(linalg::LinalgOp op, OpOperand &init);

/// Provides a value equal to `value` converted to element type `elem`, valid
/// at `user` (see convertElementType). The amp passes implement it with
/// their cast placement (cache, hoisting).
using CastFn =
    function_ref<Value(Value value, FloatType elem, Operation *user)>;

/// Rewrites `op` so that it computes in `compute`: every f32/f16/bf16
/// operand goes through `castTo`, every such result takes element type
/// `compute`; structured op payloads, captured scalars, inits and typed
/// attributes (tosa.clamp bounds) follow. Integer and f64 values stay.
/// Operands are converted through `castTo` only (inits included).
/// Returns the op now standing for `op` (a new op for structured ops), or
/// failure, leaving `op` as it was, when the rewritten op does not verify.
FailureOr<Operation *> retypeOp(Operation *op, FloatType compute,
                                CastFn castTo);

/// Rebuilds a linalg structured op with new operands and result types,
/// regenerating a named op's payload with its region builder (which inserts
/// the arith.extf of mixed-precision operands) or retyping a user payload
/// to `payloadType`. Returns null when the result does not verify.
Operation *rebuildStructuredOp(OpBuilder &b, linalg::LinalgOp op,
                               ValueRange inputs, ValueRange inits,
                               FloatType payloadType, CastFn castTo);

} // namespace mlir::amp

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_RETYPE_H
