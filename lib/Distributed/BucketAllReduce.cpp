//===- BucketAllReduce.cpp - amp-dp-bucket-all-reduce ---------------------===//
//
// DDP's gradient buckets: the sum `shard.all_reduce`s of a block (one per
// gradient of a data-parallel step) packed, in order, into a few large
// all-reduces of 1-D tensors.
//
//===----------------------------------------------------------------------===//

#include "amp/Distributed/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPDPBUCKETALLREDUCE
#include "amp/Distributed/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// `value` as a 1-D tensor of all its elements (collapse_shape, or
/// expand_shape for a 0-d tensor).
Value flatten(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 1)
    return value;
  auto flat =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flat, value,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::CollapseShapeOp::create(b, loc, flat, value,
                                         ArrayRef<ReassociationIndices>{all});
}

/// The inverse of `flatten`: a 1-D tensor back to `type`.
Value unflatten(OpBuilder &b, Location loc, Value flat, RankedTensorType type) {
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

/// Whether `op` may share a bucket: a sum over a grid, on a static ranked
/// tensor, with the result type of its input.
bool isBucketable(shard::AllReduceOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
  return type && type.hasStaticShape() && op.getResult().getType() == type &&
         op.getReduction() == shard::ReductionKind::Sum &&
         type.getElementType().isIntOrFloat();
}

/// Bucket key: ops with equal keys may be packed together.
std::tuple<StringRef, ArrayRef<int16_t>, Type> keyOf(shard::AllReduceOp op) {
  return {op.getGrid(), op.getGridAxes(),
          cast<RankedTensorType>(op.getInput().getType()).getElementType()};
}

int64_t bytesOf(shard::AllReduceOp op) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  return type.getNumElements() * static_cast<int64_t>(llvm::divideCeil(
                                     type.getElementTypeBitWidth(), 8));
}

/// Whether some use of `value` comes before `point` in its block.
bool usedBefore(Value value, Operation *point) {
  return llvm::any_of(value.getUsers(), [&](Operation *user) {
    Operation *ancestor = point->getBlock()->findAncestorOpInBlock(*user);
    return ancestor && ancestor->isBeforeInBlock(point);
  });
}

struct AmpDpBucketAllReduce
    : public amp::impl::AmpDpBucketAllReduceBase<AmpDpBucketAllReduce> {
  using Base::Base;

  void runOnOperation() override {
    if (bucketBytes < 1) {
      getOperation().emitError()
          << "amp-dp-bucket-all-reduce: bucket-bytes must be at least 1, got "
          << static_cast<int64_t>(bucketBytes);
      return signalPassFailure();
    }
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      if (llvm::any_of(block->getOperations(), [](Operation &op) {
            return isa<shard::AllReduceOp>(op);
          }))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      bucketBlock(*block);
  }

  void bucketBlock(Block &block) {
    // Open buckets (one per key), in block order; a bucket closes when full
    // or when a member's result is used before the next candidate.
    using Key = decltype(keyOf(std::declval<shard::AllReduceOp>()));
    struct Open {
      Key key;
      SmallVector<shard::AllReduceOp> members;
      int64_t bytes = 0;
    };
    SmallVector<Open> open;
    SmallVector<SmallVector<shard::AllReduceOp>> buckets;
    auto close = [&](Open *bucket) {
      if (bucket->members.size() > 1)
        buckets.push_back(std::move(bucket->members));
      open.erase(bucket);
    };
    for (Operation &op : block) {
      auto reduce = dyn_cast<shard::AllReduceOp>(op);
      if (!reduce || !isBucketable(reduce))
        continue;
      Key key = keyOf(reduce);
      int64_t bytes = bytesOf(reduce);
      auto *it = llvm::find_if(open, [&](Open &o) { return o.key == key; });
      if (it != open.end()) {
        bool fits = it->bytes + bytes <= bucketBytes;
        bool dominates = llvm::none_of(it->members, [&](shard::AllReduceOp m) {
          return usedBefore(m.getResult(), reduce);
        });
        if (!fits || !dominates) {
          close(it);
          it = open.end();
        }
      }
      if (it == open.end()) {
        open.push_back({key, {}, 0});
        it = std::prev(open.end());
      }
      it->members.push_back(reduce);
      it->bytes += bytes;
    }
    while (!open.empty())
      close(open.begin());
    for (auto &bucket : buckets)
      pack(bucket);
  }

  void pack(ArrayRef<shard::AllReduceOp> members) {
    shard::AllReduceOp last = members.back();
    OpBuilder b(last);
    Location loc = last.getLoc();
    Type element =
        cast<RankedTensorType>(last.getInput().getType()).getElementType();
    int64_t total = 0;
    for (shard::AllReduceOp m : members)
      total += cast<RankedTensorType>(m.getInput().getType()).getNumElements();

    Value packed = tensor::EmptyOp::create(b, loc, {total}, element);
    int64_t offset = 0;
    for (shard::AllReduceOp m : members) {
      Value flat = flatten(b, m.getLoc(), m.getInput());
      int64_t size = cast<RankedTensorType>(flat.getType()).getDimSize(0);
      packed = tensor::InsertSliceOp::create(
          b, m.getLoc(), flat, packed,
          ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      offset += size;
    }
    Value reduced = shard::AllReduceOp::create(b, loc, packed, last.getGrid(),
                                               last.getGridAxes(),
                                               shard::ReductionKind::Sum);
    offset = 0;
    for (shard::AllReduceOp m : members) {
      auto type = cast<RankedTensorType>(m.getInput().getType());
      int64_t size = type.getNumElements();
      Value slice = tensor::ExtractSliceOp::create(
          b, m.getLoc(), RankedTensorType::get({size}, element), reduced,
          ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      m.getResult().replaceAllUsesWith(unflatten(b, m.getLoc(), slice, type));
      offset += size;
    }
    for (shard::AllReduceOp m : members)
      m.erase();
  }
};

} // namespace
