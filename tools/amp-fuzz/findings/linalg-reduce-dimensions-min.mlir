func.func @f(%a: tensor<3xf32>, %b: tensor<3x5xf32>) {
  %r = linalg.reduce ins(%a : tensor<3xf32>) outs(%b : tensor<3x5xf32>) dimensions = [1 0]
  return
}
