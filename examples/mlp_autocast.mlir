// A two-layer MLP forward in an autocast region (cuda, f16 by default).
func.func @mlp(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x16xf32>)
    -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<8x16xf32> {
    %e1 = tensor.empty() : tensor<8x64xf32>
    %a1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %h = linalg.matmul ins(%x, %w1 : tensor<8x32xf32>, tensor<32x64xf32>)
                       outs(%a1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %relu = linalg.elementwise kind=#linalg.elementwise_kind<max_signed>
        ins(%h, %a1 : tensor<8x64xf32>, tensor<8x64xf32>)
        outs(%e1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %e2 = tensor.empty() : tensor<8x16xf32>
    %a2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %y = linalg.matmul ins(%relu, %w2 : tensor<8x64xf32>, tensor<64x16xf32>)
                       outs(%a2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    amp.yield %y : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}
