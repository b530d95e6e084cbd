// Parse errors of #amp.autocast and #amp.policy (issue 29 item 6): located
// at the key or value, in plain words, listing the valid keys or choices;
// an #amp.policy naming an op the cast policy never decides is an error.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#amp.autocast: device_type must be cuda or cpu, got 'gpu'}}
func.func @a() attributes {amp.autocast = #amp.autocast<device_type = gpu>} { return }

// -----

// expected-error @+1 {{#amp.autocast: unknown key 'device'; valid keys: device_type, dtype, enabled, cache_enabled}}
func.func @b() attributes {amp.autocast = #amp.autocast<device = cuda>} { return }

// -----

// expected-error @+1 {{#amp.autocast: enabled must be true or false}}
func.func @c() attributes {amp.autocast = #amp.autocast<device_type = cuda, enabled = maybe>} { return }

// -----

// expected-error @+1 {{#amp.autocast: key 'dtype' is given twice}}
func.func @d() attributes {amp.autocast = #amp.autocast<device_type = cuda, dtype = f16, dtype = bf16>} { return }

// -----

// expected-error @+1 {{#amp.autocast: device_type (cuda or cpu) is required}}
func.func @e() attributes {amp.autocast = #amp.autocast<dtype = f16>} { return }

// -----

// expected-error @+1 {{#amp.autocast: expected a key (device_type, dtype, enabled, cache_enabled)}}
func.func @f() attributes {amp.autocast = #amp.autocast<"device_type" = cuda>} { return }

// -----

// expected-error @+1 {{#amp.autocast: expected ',' or '>' after a value}}
func.func @g() attributes {amp.autocast = #amp.autocast<device_type = cuda enabled = false>} { return }

// -----

// expected-error @+1 {{#amp.policy: unknown category 'fp16'; valid categories: lower, fp32, promote, infer, clear, keep}}
func.func @h() attributes {amp.policy = #amp.policy<fp16 = ["math.exp"]>} { return }

// -----

// expected-error @+1 {{#amp.policy: lower must be a list of op names in quotes, e.g. lower = ["math.exp"]}}
func.func @i() attributes {amp.policy = #amp.policy<lower = math.exp>} { return }

// -----

// expected-error @+1 {{#amp.policy: expected a key (lower, fp32, promote, infer, clear, keep)}}
func.func @j() attributes {amp.policy = #amp.policy<{"math.exp" = "fp32"}>} { return }

// -----

// expected-error @+1 {{policy names op 'scf.yield', which the cast policy never decides (a terminator): naming it has no effect}}
func.func @k() attributes {amp.policy = #amp.policy<fp32 = ["scf.yield"]>} { return }

// -----

// expected-error @+1 {{policy names op 'scf.for', which the cast policy never decides (control flow whose body autocast processes op by op): naming it has no effect}}
func.func @l() attributes {amp.policy = #amp.policy<lower = ["scf.for"]>} { return }

// -----

// expected-error @+1 {{policy names op 'arith.constant', which the cast policy never decides (a constant, converted where its users need it): naming it has no effect}}
func.func @m() attributes {amp.policy = #amp.policy<keep = ["arith.constant"]>} { return }

// -----

// expected-error @+1 {{policy names op 'func.func', which the cast policy never decides (a module or function): naming it has no effect}}
func.func @n() attributes {amp.policy = #amp.policy<keep = ["func.func"]>} { return }

// -----

// Round trip of every key (the printer omits defaults).
// RUN: amp-opt %s -split-input-file -verify-diagnostics 2>/dev/null | FileCheck %s
// CHECK-LABEL: func @round_trip
// CHECK-SAME: amp.autocast = #amp.autocast<device_type = cpu, dtype = f16, enabled = false, cache_enabled = false>
// CHECK-SAME: amp.policy = #amp.policy<lower = ["math.exp"], fp32 = ["linalg.matmul"], keep = ["tensor.pad"]>
func.func @round_trip() attributes {
    amp.autocast = #amp.autocast<cache_enabled = false, enabled = false, dtype = f16, device_type = cpu>,
    amp.policy = #amp.policy<keep = ["tensor.pad"], fp32 = ["linalg.matmul"], lower = ["math.exp"]>} {
  return
}
