// RUN: amp-opt %s -split-input-file -verify-diagnostics --amp-validate-tosa-input | FileCheck %s

// Without a tosa.target_env, the input is checked against what the amp
// pipelines compile: a dynamic batch (TOSA 1.0 allows none), DOUBLE_ROUND
// (extension doubleround), and the !tosa.shape<8> padding of a rank-4 pad
// (over level 8k's MAX_RANK of 6) are accepted, and the module is left as
// it was (no target attached).

// CHECK-LABEL: func.func @dynamic_batch
// CHECK-NOT: tosa.target_env
// CHECK: tosa.exp
func.func @dynamic_batch(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = tosa.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @double_round
// CHECK: rounding_mode = DOUBLE_ROUND
func.func @double_round(%x: tensor<2x3xi8>) -> tensor<2x3xi32> {
  %multiplier = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %shift = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %x, %multiplier, %shift, %izp, %ozp {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<2x3xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @pad_rank4
// CHECK: tosa.pad
func.func @pad_rank4(%x: tensor<1x2x3x4xf32>) -> tensor<1x4x5x4xf32> {
  %p = tosa.const_shape {values = dense<[0, 0, 1, 1, 1, 1, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
  %c = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.pad %x, %p, %c : (tensor<1x2x3x4xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x4x5x4xf32>
  return %0 : tensor<1x4x5x4xf32>
}

// -----

// A module without TOSA ops is not looked at.
// CHECK-LABEL: func.func @no_tosa
func.func @no_tosa(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = math.exp %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// The target the module declares is the one checked, and it stays.
// CHECK: module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int], extensions = [int16]>}
// CHECK-LABEL: func.func @declared_accepts
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int], extensions = [int16]>} {
  func.func @declared_accepts(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
    %0 = tosa.add %x, %x : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    return %0 : tensor<2x3xi32>
  }
}

// -----

// A declared target without doubleround refuses DOUBLE_ROUND: upstream's
// error at the op, with a note naming the target.
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int, pro_fp], extensions = [int16]>} {
  func.func @declared_refuses(%x: tensor<2x3xi8>) -> tensor<2x3xi32> {
    %multiplier = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
    %shift = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
    %izp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %ozp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    // expected-error@+2 {{'tosa.rescale' op failed attribute check: rounding_mode = DOUBLE_ROUND requires extension [doubleround]}}
    // expected-note@+1 {{checked against the module's #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int, pro_fp], extensions = [int16]>}}
    %0 = tosa.rescale %x, %multiplier, %shift, %izp, %ozp {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<2x3xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<2x3xi32>
    return %0 : tensor<2x3xi32>
  }
}

// -----

// A declared TOSA 1.0 target refuses a dynamic dimension.
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_fp], extensions = [int16]>} {
  func.func @declared_static_only(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    // expected-error@+2 {{'tosa.exp' op failed level check: operand shape dimension cannot be dynamic when targeting TOSA specification version 1.0 or below}}
    // expected-note@+1 {{checked against the module's}}
    %0 = tosa.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }
}

// -----

// Without a declared target, what the pipelines do not compile is refused
// with a note that says how to choose another target: a tosa.cast from i1
// to f8E5M2 is a combination of types no profile or extension has.
func.func @undeclared_refuses(%x: tensor<4xi1>) -> tensor<4xf8E5M2> {
  // expected-error@+2 {{'tosa.cast' op illegal: operation operand/result data types did not align with any profile or extension, got (i1,fp8e5m2)}}
  // expected-note@+1 {{checked against what the amp pipelines compile, #tosa.target_env<specification_version = "1.1.draft", level = none, profiles = [pro_int, pro_fp], extensions = [int16, int4, int64, bf16, fp8e4m3, fp8e5m2, fft, controlflow, doubleround, inexactround, dynamic, shape]> (a tosa.target_env attribute on the module chooses another target)}}
  %0 = tosa.cast %x : (tensor<4xi1>) -> tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}
