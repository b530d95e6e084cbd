// bf16 math on the CPU rounds after every op, as PyTorch does op by op:
// sin(sin(x)) on bf16 computed in one fused loop equals the same two sins
// computed as separate ops (the first one's result also returned, so not
// fused). math-extend-to-supported-types computes each in f32 between an
// extf and a truncf with the contract flag, and arith folded
// extf(truncf(s)) to s, skipping the rounding between the two sins in the
// fused loop (off by 0.0039 here, one bf16 ulp): amp-keep-narrow-rounding.
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: {{^}}0{{$}}

func.func @fused(%x: tensor<64xf32>) -> tensor<64xf32> {
  %r = amp.autocast device_type(cpu) -> tensor<64xf32> {
    %e = tensor.empty() : tensor<64xf32>
    %xb = amp.cast %x : tensor<64xf32> to tensor<64xbf16>
    %a = math.sin %xb : tensor<64xbf16>
    %b = math.sin %a : tensor<64xbf16>
    %f = amp.cast %b : tensor<64xbf16> to tensor<64xf32>
    amp.yield %f : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
func.func @split(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %r:2 = amp.autocast device_type(cpu) -> (tensor<64xf32>, tensor<64xf32>) {
    %xb = amp.cast %x : tensor<64xf32> to tensor<64xbf16>
    %a = math.sin %xb : tensor<64xbf16>
    %b = math.sin %a : tensor<64xbf16>
    %fa = amp.cast %a : tensor<64xbf16> to tensor<64xf32>
    %fb = amp.cast %b : tensor<64xbf16> to tensor<64xf32>
    amp.yield %fb, %fa : tensor<64xf32>, tensor<64xf32>
  }
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xf32>
}
func.func @main() {
  %x = arith.constant dense<[-1.600000, -1.550000, -1.500000, -1.450000, -1.400000, -1.350000, -1.300000, -1.250000, -1.200000, -1.150000, -1.100000, -1.050000, -1.000000, -0.950000, -0.900000, -0.850000, -0.800000, -0.750000, -0.700000, -0.650000, -0.600000, -0.550000, -0.500000, -0.450000, -0.400000, -0.350000, -0.300000, -0.250000, -0.200000, -0.150000, -0.100000, -0.050000, 0.000000, 0.050000, 0.100000, 0.150000, 0.200000, 0.250000, 0.300000, 0.350000, 0.400000, 0.450000, 0.500000, 0.550000, 0.600000, 0.650000, 0.700000, 0.750000, 0.800000, 0.850000, 0.900000, 0.950000, 1.000000, 1.050000, 1.100000, 1.150000, 1.200000, 1.250000, 1.300000, 1.350000, 1.400000, 1.450000, 1.500000, 1.550000]> : tensor<64xf32>
  %a = call @fused(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %b:2 = call @split(%x) : (tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>)
  %d = arith.subf %a, %b#0 : tensor<64xf32>
  %ad = math.absf %d : tensor<64xf32>
  %neg = arith.constant dense<-1.0> : tensor<f32>
  %max = linalg.reduce ins(%ad : tensor<64xf32>) outs(%neg : tensor<f32>) dimensions = [0]
    (%v: f32, %m: f32) {
      %n = arith.maximumf %v, %m : f32
      linalg.yield %n : f32
    }
  %mv = tensor.extract %max[] : tensor<f32>
  vector.print %mv : f32
  return
}
