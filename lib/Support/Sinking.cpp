//===- Sinking.cpp - move an op down to its first user --------------------===//

#include "amp/Support/Sinking.h"

#include "mlir/IR/Block.h"

using namespace mlir;

Operation *mlir::amp::findFirstUserInBlock(Operation *op) {
  Block *block = op->getBlock();
  Operation *first = nullptr;
  for (Operation *user : op->getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor)
      return nullptr;
    if (!first || ancestor->isBeforeInBlock(first))
      first = ancestor;
  }
  return first;
}

bool mlir::amp::sinkToFirstUser(Operation *op) {
  Operation *first = findFirstUserInBlock(op);
  if (!first || first == op->getNextNode() || first->isBeforeInBlock(op))
    return false;
  op->moveBefore(first);
  return true;
}
