// The commands that need libtorch, by name and one-line description. They run in a second
// executable, jouleprof-torch (libexec/jouleprof/), so that jouleprof itself never loads libtorch:
// libtorch's static initialisers and relocations took 0.6 s and 170 MB before any command ran.
// jouleprof lists these in its help and execs jouleprof-torch to run them (torch_helper.hpp);
// jouleprof-torch declares them for real. Both read the descriptions from here, torch-free.
#pragma once

#include <array>
#include <string_view>

namespace jouleprof::cli {

struct TorchCommand {
  std::string_view name;
  std::string_view description;
};

inline constexpr TorchCommand kProfileCommand{
    "profile", "Run a built-in libtorch model and attribute its energy to layers and operators"};
inline constexpr TorchCommand kSweepCommand{
    "sweep",
    "Profile variants of a model: BERT layers x hidden size, or several models side by side"};
inline constexpr TorchCommand kCalibrateCommand{
    "calibrate",
    "Measure the power of each operator class of a zoo model, replayed alone through the gated "
    "protocol"};
inline constexpr TorchCommand kKernelBenchCommand{
    "kernel-bench",
    "Measure kernels (conv-bn-relu, dwconv-bn-relu, fc, pools, …) sampled from a configuration "
    "space with libtorch and the gated protocol, and write the kernel CSV train-predictor reads"};
inline constexpr TorchCommand kDetectRulesCommand{
    "detect-rules",
    "Measure on this machine which producer→consumer op pairs run fused (nn-Meter's criterion "
    "T(a) + T(b) − T(a+b) > 0.5·min(T(a), T(b))) and write a fusion rules file for predict "
    "--rules"};

inline constexpr std::array kTorchCommands{kProfileCommand, kSweepCommand, kCalibrateCommand,
                                           kKernelBenchCommand, kDetectRulesCommand};

}  // namespace jouleprof::cli
