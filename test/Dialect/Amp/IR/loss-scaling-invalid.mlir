// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @f16_grad(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{gradient #0 has type 'tensor<4xf16>'; gradients of f32 master weights must be f32 (GradScaler: "Attempting to unscale FP16 gradients.")}}
  %u, %inf = amp.unscale %g by %s : tensor<4xf16>
  return
}

// -----

func.func @scale_not_0d(%g: tensor<4xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit float values}}
  %u, %inf = "amp.unscale"(%g, %s) : (tensor<4xf32>, tensor<1xf32>) -> (tensor<4xf32>, i1)
  return
}

// -----

func.func @bad_growth(%s: tensor<f32>, %t: tensor<i32>, %inf: i1) {
  // expected-error @+1 {{growth_factor must be above 1 (GradScaler), got 1}}
  %a, %b = amp.update_scale %s, %t, %inf {growth_factor = 1.0}
  return
}

// -----

func.func @bad_backoff(%s: tensor<f32>, %t: tensor<i32>, %inf: i1) {
  // expected-error @+1 {{backoff_factor must be in (0, 1) (GradScaler), got 1.5}}
  %a, %b = amp.update_scale %s, %t, %inf {backoff_factor = 1.5}
  return
}

// -----

func.func @bad_interval(%s: tensor<f32>, %t: tensor<i32>, %inf: i1) {
  // expected-error @+1 {{growth_interval must be at least 1, got 0}}
  %a, %b = amp.update_scale %s, %t, %inf {growth_interval = 0 : i32}
  return
}

// -----

func.func @bad_tracker(%s: tensor<f32>, %t: tensor<i64>, %inf: i1) {
  // expected-error @+1 {{operand #1 must be 0D tensor of 32-bit signless integer values}}
  %a, %b = "amp.update_scale"(%s, %t, %inf) : (tensor<f32>, tensor<i64>, i1) -> (tensor<f32>, tensor<i32>)
  return
}

// -----

func.func @bad_init() {
  // expected-error @+1 {{init_scale must be finite and positive, got -1}}
  %s, %t = amp.init_loss_scale {init_scale = -1.0 : f32}
  return
}

// -----

func.func @bad_init_inf() {
  // expected-error @+1 {{init_scale must be finite and positive, got INF}}
  %s, %t = amp.init_loss_scale {init_scale = 0x7F800000 : f32}
  return
}

// -----

func.func @integer_loss(%l: tensor<4xi32>, %s: tensor<f32>) {
  // expected-error @+1 {{operand #0 must be}}
  %0 = amp.scale_loss %l, %s : tensor<4xi32>
  return
}

// -----

func.func @yield_mismatch(%w: tensor<4xf32>, %inf: i1) {
  // expected-error @+1 {{yields ('tensor<4xf16>') but keeps ('tensor<4xf32>'); the update must yield one value of each kept type}}
  %r = amp.step_if_finite %inf keep(%w : tensor<4xf32>) {
    %h = arith.truncf %w : tensor<4xf32> to tensor<4xf16>
    amp.yield %h : tensor<4xf16>
  }
  return
}

// -----

// An empty block (generic form): an error, not a read past the block.
func.func @empty_region(%inf: i1) {
  // expected-error @+1 {{'amp.step_if_finite' op region must end with amp.yield}}
  "amp.step_if_finite"(%inf) ({
  ^bb0:
  }) : (i1) -> ()
  return
}

// -----

func.func @missing_yield(%w: tensor<4xf32>, %inf: i1) {
  // expected-error @+1 {{'amp.step_if_finite' op region must end with amp.yield}}
  "amp.step_if_finite"(%inf) ({
    %c = arith.constant 0 : index
  }) : (i1) -> ()
  return
}

// -----

func.func @yield_outside(%w: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'amp.autocast, amp.step_if_finite'}}
  amp.yield %w : tensor<4xf32>
}
