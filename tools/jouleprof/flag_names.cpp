#include "flag_names.hpp"

#include <array>
#include <utility>

namespace jouleprof::cli {
namespace {

// Library name -> what the command line calls it. Longer names first where one contains another.
constexpr std::array<std::pair<std::string_view, std::string_view>, 28> kFlagOf{{
    {"AttributionOptions::calibration_by_channel", "--calibration FILE"},
    {"ProjectRequest::epochs", "--epochs"},
    {"ProjectRequest::duration_s", "--duration"},
    {"ProjectRequest::gpu_name", "--gpu NAME"},
    {"StepOptions::stable_epoch", "--s"},
    {"StepOptions::window", "--w"},
    {"SourceOptions::selected", "--source"},
    {"setting estimate.tdp_w", "--tdp W"},
    {"setting simulate.watts", "--simulate WATTS"},
    {"energy budget: ", "--budget: "},
    {"WorkloadOptions::model", "--model"},
    {"WorkloadOptions::batch", "--batch"},
    {"WorkloadOptions::seq", "--seq"},
    {"WorkloadOptions::image", "--image"},
    {"WorkloadOptions::layers", "--layers"},
    {"WorkloadOptions::hidden", "--hidden"},
    {"WorkloadOptions::heads", "--heads"},
    {"WorkloadOptions::vocab", "--vocab"},
    {"WorkloadOptions::threads", "--threads"},
    {"WorkloadOptions::device", "--device"},
    {"KernelCallOptions::device", "--device"},
    {"TorchProfileOptions::steps", "--steps"},
    {"TorchProfileOptions::warmup", "--warmup"},
    {"OpCall size", "--sizes"},
    {"OpCall device", "--device"},
    {"OpCall op", "--op"},
    {"PredictionOptions::layout", "--layout"},
    {"zoo_models() lists them", "`jouleprof profile --list-models` lists them"},
}};

}  // namespace

std::string with_flag_names(std::string_view message) {
  std::string out(message);
  for (const auto& [field, flag] : kFlagOf) {
    for (std::size_t at = out.find(field); at != std::string::npos;
         at = out.find(field, at + flag.size())) {
      out.replace(at, field.size(), flag);
    }
  }
  return out;
}

}  // namespace jouleprof::cli
