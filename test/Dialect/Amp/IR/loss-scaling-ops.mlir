// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// Round trip of the dynamic loss-scaling ops.

// CHECK-LABEL: func @defaults
// CHECK: %[[S:.*]], %[[T:.*]] = amp.init_loss_scale{{$}}
// CHECK: amp.init_loss_scale {init_scale = 1.024000e+03 : f32}
// CHECK: amp.scale_loss %{{.*}}, %[[S]] : tensor<f32>
// CHECK: amp.scale_loss %{{.*}}, %[[S]] : tensor<2x3xf16>
// CHECK: amp.scale_loss %{{.*}}, %[[S]] : bf16
// CHECK: %{{.*}}:2, %[[INF:.*]] = amp.unscale %{{.*}}, %{{.*}} by %[[S]] : tensor<4xf32>, tensor<?x2xf32>
// CHECK: amp.unscale by %[[S]]{{$}}
// CHECK: amp.update_scale %[[S]], %[[T]], %[[INF]]{{$}}
// CHECK: amp.update_scale %[[S]], %[[T]], %[[INF]] {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 100 : i32}
// CHECK: amp.step_if_finite %[[INF]] keep(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<f32>) {
// CHECK:   amp.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<f32>
// CHECK: amp.step_if_finite %[[INF]] keep() {
func.func @defaults(%l: tensor<f32>, %h: tensor<2x3xf16>, %b: bf16,
                    %g: tensor<4xf32>, %d: tensor<?x2xf32>, %w: tensor<4xf32>,
                    %c: tensor<f32>) {
  %s, %t = amp.init_loss_scale
  %s2, %t2 = amp.init_loss_scale {init_scale = 1024.0 : f32}
  %0 = amp.scale_loss %l, %s : tensor<f32>
  %1 = amp.scale_loss %h, %s : tensor<2x3xf16>
  %2 = amp.scale_loss %b, %s : bf16
  %u:2, %inf = amp.unscale %g, %d by %s : tensor<4xf32>, tensor<?x2xf32>
  %none = amp.unscale by %s
  %ns, %nt = amp.update_scale %s, %t, %inf
  %ns2, %nt2 = amp.update_scale %s, %t, %inf {growth_factor = 4.0, backoff_factor = 0.25, growth_interval = 100 : i32}
  %nw, %nc = amp.step_if_finite %inf keep(%w, %c : tensor<4xf32>, tensor<f32>) {
    %x = arith.subf %w, %u#0 : tensor<4xf32>
    amp.yield %x, %c : tensor<4xf32>, tensor<f32>
  }
  amp.step_if_finite %inf keep() {
    amp.yield
  }
  return
}
