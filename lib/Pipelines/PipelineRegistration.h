//===- PipelineRegistration.h - registering the amp pipelines ---*- C++ -*-===//
//
// The textual-pipeline registration shared by amp-cpu-pipeline and
// amp-cuda-pipeline: parse the options, build, report a build error through
// the pass manager's error handler.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_PIPELINES_PIPELINEREGISTRATION_H
#define AMP_LIB_PIPELINES_PIPELINEREGISTRATION_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <string>

namespace mlir::amp {

template <typename OptionsT>
void registerAmpPipeline(
    StringRef name, StringRef description,
    LogicalResult (*build)(OpPassManager &, const OptionsT &, std::string &)) {
  registerPassPipeline(
      name, description,
      [build](OpPassManager &pm, StringRef optionsStr,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        OptionsT options;
        if (failed(options.parseFromString(optionsStr)))
          return failure();
        std::string message;
        if (failed(build(pm, options, message)))
          return errorHandler(message);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(OptionsT());
      });
}

} // namespace mlir::amp

#endif // AMP_LIB_PIPELINES_PIPELINEREGISTRATION_H
