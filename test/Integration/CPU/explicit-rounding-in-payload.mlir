// A rounding written in a linalg payload (x to bf16 and back, then minus
// x: the rounding error) survives autocast in either mode and device: the
// payload's compute type does not erase the user's conversions. Before,
// autocast retyped both conversions to the payload's type and dropped them
// (all zeros).
// x = [1.01, -2.3, 100.3, 1/3]; bf16(x) = [1.0078125, -2.296875, 100.5,
// 0.333984375].
// RUN: amp-opt %s --amp-cpu-pipeline=autocast=false | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: sed 's/device_type = cpu/device_type = cuda/' %s | amp-opt --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: sed 's/device_type = cpu/device_type = cuda/' %s | amp-opt --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( -0.00218749, 0.00312495, 0.199997, 0.000651032 )
// A captured scalar s = 1 + 2^-8 + 2^-12 rounded to bf16 in an f16 payload
// (eager cuda: the op computes in f16): the conversion reads s as written,
// 1.0078125; cast to f16 first (1 + 2^-8, a bf16 tie) it gave 1.
// CHECK-NEXT: ( 1.00781, 1.00781 )

#map = affine_map<(d0) -> (d0)>
func.func @rounding_error(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cpu>} {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %t = arith.truncf %i : f32 to bf16
    %u = arith.extf %t : bf16 to f32
    %d = arith.subf %u, %i : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @captured(%x: tensor<2xf16>, %s: f32) -> tensor<2xf16>
    attributes {amp.autocast = #amp.autocast<device_type = cpu>} {
  %e = tensor.empty() : tensor<2xf16>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<2xf16>) outs(%e : tensor<2xf16>) {
  ^bb0(%i: f16, %o: f16):
    %sb = arith.truncf %s : f32 to bf16
    %se = arith.extf %sb : bf16 to f32
    %sh = arith.truncf %se : f32 to f16
    %m = arith.mulf %i, %sh : f16
    linalg.yield %m : f16
  } -> tensor<2xf16>
  return %r : tensor<2xf16>
}

func.func @main() {
  %x = arith.constant dense<[1.01, -2.3, 100.3, 0.333333343]> : tensor<4xf32>
  %r = call @rounding_error(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %r[%c0], %p : tensor<4xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  %ones = arith.constant dense<1.0> : tensor<2xf16>
  %s = arith.constant 1.00415039062 : f32
  %c = call @captured(%ones, %s) : (tensor<2xf16>, f32) -> tensor<2xf16>
  %ph = arith.constant 0.0 : f16
  %vc = vector.transfer_read %c[%c0], %ph : tensor<2xf16>, vector<2xf16>
  %vf = arith.extf %vc : vector<2xf16> to vector<2xf32>
  vector.print %vf : vector<2xf32>
  return
}
