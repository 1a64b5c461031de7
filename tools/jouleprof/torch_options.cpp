#include "torch_options.hpp"

namespace jouleprof::cli {

void add_torch_run_options(CLI::App& command, TorchCommandOptions& o) {
  command.add_option("--mode", o.mode, "infer (forward only) or train (forward, backward, SGD step)")
      ->capture_default_str();
  command.add_option("--batch", o.workload.batch, "Samples per step (default: the model's)");
  command.add_option("--seq", o.workload.seq, "Sequence length of BERT/ALBERT inputs (default 128)");
  command.add_option("--image", o.workload.image, "Image height = width of vision inputs (default 224)");
  command.add_option("--device", o.workload.device, "cpu or cuda")->capture_default_str();
  command.add_option("--threads", o.workload.threads, "libtorch intra-op threads (default: libtorch's)");
  command.add_option("--seed", o.workload.seed, "Seed of initialisation and synthetic inputs")->capture_default_str();
  command.add_option("--steps", o.steps, "Recorded steps")->capture_default_str();
  command.add_option("--warmup", o.warmup, "Steps run before recording")->capture_default_str();
  command.add_option("--idle", o.idle_s, "Seconds of idle baseline before the run (0: none)")->capture_default_str();
  o.source_flags.add_to(command);
}

Status resolve_mode(TorchCommandOptions& o) {
  const auto mode = torch_adapter::mode_from_string(o.mode);
  if (!mode) return invalid_input("command line", "--mode", o.mode, "must be infer or train");
  o.workload.mode = *mode;
  return Status::Ok();
}

}  // namespace jouleprof::cli
