#!/usr/bin/env python3
"""Generates a synthetic module of stacked transformer-like blocks.

Each block is one pre-norm transformer layer on an 8x16 activation, written in
tosa and linalg on tensors: layer norm (reduce_sum, mul, sub, rsqrt), Q/K/V
and output projections (linalg.matmul), scores (tosa.matmul), softmax,
residual adds, an MLP (matmul, relu as linalg.generic, matmul). The function
`@forward` carries `amp.autocast = #amp.autocast<device_type = cuda>`.

Usage: gen_transformer_blocks.py NUM_OPS [OUTPUT]   (NUM_OPS is approximate:
whole blocks of OPS_PER_BLOCK ops are emitted)
"""
import sys

T, D, F = 8, 16, 32  # tokens, width, MLP width

HEADER = f"""#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x0: tensor<{T}x{D}xf32>, %wq: tensor<{D}x{D}xf32>, %wk: tensor<{D}x{D}xf32>,
                   %wv: tensor<{D}x{D}xf32>, %wo: tensor<{D}x{D}xf32>, %w1: tensor<{D}x{F}xf32>,
                   %w2: tensor<{F}x{D}xf32>) -> tensor<{T}x{D}xf32>
    attributes {{amp.autocast = #amp.autocast<device_type = cuda>}} {{
  %zero = arith.constant 0.0 : f32
  %shift = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %invd = "tosa.const"() <{{values = dense<0.0625> : tensor<{T}x1xf32>}}> : () -> tensor<{T}x1xf32>
  %eps = "tosa.const"() <{{values = dense<1.0e-5> : tensor<{T}x1xf32>}}> : () -> tensor<{T}x1xf32>
  %s3 = tosa.const_shape {{values = dense<[1, {T}, {D}]> : tensor<3xindex>}} : () -> !tosa.shape<3>
  %s3t = tosa.const_shape {{values = dense<[1, {D}, {T}]> : tensor<3xindex>}} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {{values = dense<[{T}, {T}]> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %eTD = tensor.empty() : tensor<{T}x{D}xf32>
  %eTF = tensor.empty() : tensor<{T}x{F}xf32>
  %eTT = tensor.empty() : tensor<{T}x{T}xf32>
  %fTD = linalg.fill ins(%zero : f32) outs(%eTD : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %fTF = linalg.fill ins(%zero : f32) outs(%eTF : tensor<{T}x{F}xf32>) -> tensor<{T}x{F}xf32>
"""

BLOCK = """  %{b}sum = tosa.reduce_sum %{x} {{axis = 1 : i32}} : (tensor<{T}x{D}xf32>) -> tensor<{T}x1xf32>
  %{b}mean = tosa.mul %{b}sum, %invd, %shift : (tensor<{T}x1xf32>, tensor<{T}x1xf32>, tensor<1xi8>) -> tensor<{T}x1xf32>
  %{b}c = tosa.sub %{x}, %{b}mean : (tensor<{T}x{D}xf32>, tensor<{T}x1xf32>) -> tensor<{T}x{D}xf32>
  %{b}sq = tosa.mul %{b}c, %{b}c, %shift : (tensor<{T}x{D}xf32>, tensor<{T}x{D}xf32>, tensor<1xi8>) -> tensor<{T}x{D}xf32>
  %{b}vs = tosa.reduce_sum %{b}sq {{axis = 1 : i32}} : (tensor<{T}x{D}xf32>) -> tensor<{T}x1xf32>
  %{b}var = tosa.mul %{b}vs, %invd, %shift : (tensor<{T}x1xf32>, tensor<{T}x1xf32>, tensor<1xi8>) -> tensor<{T}x1xf32>
  %{b}ve = tosa.add %{b}var, %eps : (tensor<{T}x1xf32>, tensor<{T}x1xf32>) -> tensor<{T}x1xf32>
  %{b}rs = tosa.rsqrt %{b}ve : (tensor<{T}x1xf32>) -> tensor<{T}x1xf32>
  %{b}ln = tosa.mul %{b}c, %{b}rs, %shift : (tensor<{T}x{D}xf32>, tensor<{T}x1xf32>, tensor<1xi8>) -> tensor<{T}x{D}xf32>
  %{b}q = linalg.matmul ins(%{b}ln, %wq : tensor<{T}x{D}xf32>, tensor<{D}x{D}xf32>) outs(%fTD : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %{b}k = linalg.matmul ins(%{b}ln, %wk : tensor<{T}x{D}xf32>, tensor<{D}x{D}xf32>) outs(%fTD : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %{b}v = linalg.matmul ins(%{b}ln, %wv : tensor<{T}x{D}xf32>, tensor<{D}x{D}xf32>) outs(%fTD : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %{b}q3 = tosa.reshape %{b}q, %s3 : (tensor<{T}x{D}xf32>, !tosa.shape<3>) -> tensor<1x{T}x{D}xf32>
  %{b}kt = tosa.transpose %{b}k {{perms = array<i32: 1, 0>}} : (tensor<{T}x{D}xf32>) -> tensor<{D}x{T}xf32>
  %{b}k3 = tosa.reshape %{b}kt, %s3t : (tensor<{D}x{T}xf32>, !tosa.shape<3>) -> tensor<1x{D}x{T}xf32>
  %{b}s = tosa.matmul %{b}q3, %{b}k3, %zp, %zp : (tensor<1x{T}x{D}xf32>, tensor<1x{D}x{T}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x{T}x{T}xf32>
  %{b}s2 = tosa.reshape %{b}s, %s2 : (tensor<1x{T}x{T}xf32>, !tosa.shape<2>) -> tensor<{T}x{T}xf32>
  %{b}p = linalg.softmax dimension(1) ins(%{b}s2 : tensor<{T}x{T}xf32>) outs(%eTT : tensor<{T}x{T}xf32>) -> tensor<{T}x{T}xf32>
  %{b}a = linalg.matmul ins(%{b}p, %{b}v : tensor<{T}x{T}xf32>, tensor<{T}x{D}xf32>) outs(%fTD : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %{b}o = linalg.matmul ins(%{b}a, %wo : tensor<{T}x{D}xf32>, tensor<{D}x{D}xf32>) outs(%fTD : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %{b}r1 = tosa.add %{x}, %{b}o : (tensor<{T}x{D}xf32>, tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %{b}h = linalg.matmul ins(%{b}r1, %w1 : tensor<{T}x{D}xf32>, tensor<{D}x{F}xf32>) outs(%fTF : tensor<{T}x{F}xf32>) -> tensor<{T}x{F}xf32>
  %{b}relu = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}} ins(%{b}h : tensor<{T}x{F}xf32>) outs(%eTF : tensor<{T}x{F}xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  }} -> tensor<{T}x{F}xf32>
  %{b}y = linalg.matmul ins(%{b}relu, %w2 : tensor<{T}x{F}xf32>, tensor<{F}x{D}xf32>) outs(%fTD : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %{b}out = tosa.add %{b}r1, %{b}y : (tensor<{T}x{D}xf32>, tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
"""

# Top-level ops of a block (the generic's payload ops not counted).
OPS_PER_BLOCK = 25


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    blocks = max(1, int(float(sys.argv[1])) // OPS_PER_BLOCK)
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
    out.write(HEADER)
    x = "x0"
    for i in range(blocks):
        b = f"b{i}_"
        out.write(BLOCK.format(b=b, x=x, T=T, D=D, F=F))
        x = f"{b}out"
    out.write(f"  return %{x} : tensor<{T}x{D}xf32>\n}}\n")


if __name__ == "__main__":
    main()
