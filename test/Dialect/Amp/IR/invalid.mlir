// RUN: amp-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

func.func @bad_dtype() {
  // expected-error @+1 {{autocast dtype must be f16 or bf16, got 'f32'}}
  amp.autocast device_type(cuda) dtype(f32) {
  }
  return
}

// -----

func.func @bad_device() {
  // expected-error @+1 {{unknown autocast device type 'tpu', expected 'cuda' or 'cpu'}}
  amp.autocast device_type(tpu) {
  }
  return
}

// -----

func.func @missing_device() {
  // expected-error @+1 {{expected 'device_type(cuda|cpu)'}}
  amp.autocast dtype(f16) {
  }
  return
}

// -----

func.func @duplicate_keyword() {
  // expected-error @+1 {{'enabled' given twice}}
  amp.autocast device_type(cuda) enabled(true) enabled(false) {
  }
  return
}

// -----

func.func @bad_bool() {
  // expected-error @+1 {{expected 'true' or 'false'}}
  amp.autocast device_type(cuda) enabled(yes) {
  }
  return
}

// -----

func.func @yield_type_mismatch(%x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.autocast' op yield operand #0 has type 'tensor<4xf16>' but result #0 is declared as 'tensor<4xf32>'}}
  %r = amp.autocast device_type(cuda) -> tensor<4xf32> {
    amp.yield %x : tensor<4xf16>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_count_mismatch(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'amp.autocast' op yields 2 values but declares 1 results}}
  %r = amp.autocast device_type(cuda) -> tensor<4xf32> {
    amp.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_outside(%x: f32) {
  // expected-error @+1 {{'amp.yield' op expects parent op to be one of 'amp.autocast, amp.step_if_finite'}}
  amp.yield %x : f32
}

// -----

func.func @generic_bad_dtype() {
  // expected-error @+1 {{autocast dtype must be f16 or bf16, got 'f64'}}
  "amp.autocast"() <{config = #amp.autocast<device_type = cpu, dtype = f64>}> ({
    "amp.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @cast_not_float(%x: tensor<4xi32>) {
  // expected-error @+1 {{'amp.cast' op operand #0 must be f64/f32/f16/bf16 scalar or ranked tensor, but got 'tensor<4xi32>'}}
  %0 = amp.cast %x : tensor<4xi32> to tensor<4xf16>
  return
}

// -----

func.func @cast_to_int(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.cast' op result #0 must be f64/f32/f16/bf16 scalar or ranked tensor, but got 'tensor<4xi8>'}}
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xi8>
  return
}

// -----

func.func @cast_shape_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.cast' op requires the same shape for all operands and results}}
  %0 = amp.cast %x : tensor<4xf32> to tensor<2x2xf16>
  return
}

// -----

func.func @cast_scalar_to_tensor(%x: f32) {
  // expected-error @+1 {{'amp.cast' op requires the same shape for all operands and results}}
  %0 = amp.cast %x : f32 to tensor<1xf16>
  return
}

// -----

func.func @cast_f8(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.cast' op result #0 must be f64/f32/f16/bf16 scalar or ranked tensor, but got 'tensor<4xf8E4M3FN>'}}
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf8E4M3FN>
  return
}

// -----

// expected-error @+1 {{'amp.autocast' decorates functions only; use the amp.autocast op to mark a region inside other ops}}
"test.op"() {amp.autocast = #amp.autocast<device_type = cuda>} : () -> ()

// -----

// expected-error @+1 {{'amp.autocast' must be an #amp.autocast<...> attribute}}
func.func @decorator_not_autocast() attributes {amp.autocast = true} {
  return
}

// -----

// expected-error @+1 {{autocast dtype must be f16 or bf16, got 'i8'}}
func.func @decorator_bad_dtype() attributes {amp.autocast = #amp.autocast<device_type = cpu, dtype = i8>} {
  return
}

// -----

// expected-error @+1 {{'amp.policy' is valid on a module, a function or an amp.autocast op}}
"test.op"() {amp.policy = #amp.policy<fp32 = ["math.exp"]>} : () -> ()

// -----

// expected-error @+1 {{policy names unknown op 'math.expo'}}
func.func @policy_unknown_op() attributes {amp.policy = #amp.policy<fp32 = ["math.expo"]>} {
  return
}

// -----

// expected-error @+1 {{policy names op 'nodialect.op' of unknown dialect 'nodialect'}}
func.func @policy_unknown_dialect() attributes {amp.policy = #amp.policy<fp32 = ["nodialect.op"]>} {
  return
}

// -----

// expected-error @+1 {{policy puts op 'math.exp' in two categories (lower and fp32)}}
func.func @policy_twice() attributes {amp.policy = #amp.policy<lower = ["math.exp"], fp32 = ["math.exp"]>} {
  return
}

// -----

// expected-error @+1 {{#amp.policy: fp32 must be a list of op names in quotes, e.g. fp32 = ["math.exp"]}}
func.func @policy_not_string() attributes {amp.policy = #amp.policy<fp32 = [3]>} {
  return
}

// -----

// expected-error @+1 {{unknown amp dialect attribute 'amp.bogus'}}
func.func @unknown_attr() attributes {amp.bogus = 1} {
  return
}

// -----

#sp = #sparse_tensor.encoding<{ map = (d0) -> (d0 : compressed) }>
func.func @cast_encoding(%x: tensor<4xf32, #sp>) {
  // expected-error @+1 {{'amp.cast' op changes the tensor encoding (#sparse_tensor.encoding<{ map = (d0) -> (d0 : compressed) }> to no encoding); amp.cast changes the element type only}}
  %0 = amp.cast %x : tensor<4xf32, #sp> to tensor<4xf16>
  return
}

// -----

// expected-error @+1 {{'amp.may_write_args' must be an array<i64: ...> of argument numbers on a function}}
"test.op"() {amp.may_write_args = array<i64: 0>} : () -> ()

// -----

// expected-error @+1 {{'amp.may_write_args' must be an array<i64: ...> of argument numbers on a function}}
func.func @may_write_not_array(%a: memref<4xf32>) attributes {amp.may_write_args = [0]} {
  return
}

// -----

// expected-error @+1 {{'amp.may_write_args': argument 1 out of range (the function has 1)}}
func.func @may_write_out_of_range(%a: memref<4xf32>) attributes {amp.may_write_args = array<i64: 1>} {
  return
}

// -----

// expected-error @+1 {{'amp.queued_variant' must be a symbol (@name) on a function}}
func.func private @queued_not_symbol(memref<4xf32>) attributes {amp.queued_variant = "f"}
