func.func @f(%a: tensor<3x5xf32>, %b: tensor<5x3xf32>) {
  %r = linalg.transpose ins(%a : tensor<3x5xf32>) outs(%b : tensor<5x3xf32>) permutation = [1 0]
  return
}
