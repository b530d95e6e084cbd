// A failed cf.assert (torch-mlir's index check of a gather) does not abort
// the process: the run reports it and exits non-zero; the gather read an
// element of the table (clamped) instead of memory outside it. In range,
// the same module runs and checks nothing.
// RUN: amp-opt %s --amp-cpu-pipeline | not amp-runner -e bad --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e good --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=GOOD
// BAD: amp-runner: error: runtime check failed: index must be smaller than dim size at "model.py":7:0
// GOOD: ( 3, 1 )
// GOOD-NOT: error

#map = affine_map<(d0) -> (d0)>
func.func @gather(%table: tensor<4xf32>, %ids: tensor<2xi64>) -> tensor<2xf32> {
  %c4 = arith.constant 4 : index
  %0 = tensor.empty() : tensor<2xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%ids : tensor<2xi64>) outs(%0 : tensor<2xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %lt = arith.cmpi slt, %i, %c4 : index
    cf.assert %lt, "index must be smaller than dim size" loc("model.py":7:0)
    %v = tensor.extract %table[%i] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

func.func @run(%ids: tensor<2xi64>) {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %table = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %r = call @gather(%table, %ids) : (tensor<4xf32>, tensor<2xi64>) -> tensor<2xf32>
  %v = vector.transfer_read %r[%c0], %f0 : tensor<2xf32>, vector<2xf32>
  vector.print %v : vector<2xf32>
  return
}

func.func @good() {
  %ids = arith.constant dense<[3, 1]> : tensor<2xi64>
  call @run(%ids) : (tensor<2xi64>) -> ()
  return
}

func.func @bad() {
  %ids = arith.constant dense<[1, 1000000000000]> : tensor<2xi64>
  call @run(%ids) : (tensor<2xi64>) -> ()
  return
}
