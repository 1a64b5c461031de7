#include "timeline/spans_file_hook.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/launcher_variables.hpp"
#include "jouleprof/recorder.hpp"
#include "jouleprof/span_dump.hpp"

namespace jouleprof::timeline {
namespace {

struct HookTarget {
  std::string path_pattern;
  pid_t installer = 0;
  bool written = false;  // by write_spans_file_now, before exit
};

// Leaked on purpose: read by the exit handler, after static destructors may have run.
HookTarget* hook_target = nullptr;

std::string expand_pid(const std::string& pattern, pid_t pid) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      out += std::to_string(pid);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

Status write_spans_once() {
  if (hook_target == nullptr || hook_target->written) return Status::Ok();
  // A forked child inherits a copy of its parent's recorder: what it would write is mostly its
  // parent's spans again, which a run collecting every process's dump would count twice.
  const pid_t self = getpid();
  if (self != hook_target->installer) return Status::Ok();
  hook_target->written = true;
  Recorder& recorder = Recorder::global();
  recorder.stop();
  SpanDump dump;
  dump.timeline = recorder.collect();
  dump.pid = self;
  dump.dropped = recorder.dropped();
  dump.recorder_clock = std::string(recorder.clock_source());
  for_each_launcher_variable([&](const char* name) {
    if (const char* value = std::getenv(name); value != nullptr)
      dump.launcher_environment[name] = value;
  });
  return write_span_dump(dump, expand_pid(hook_target->path_pattern, self));
}

void write_spans_at_exit() {
  try {
    if (const Status written = write_spans_once(); !written) {
      std::fprintf(stderr, "jouleprof: could not write spans (%s): %s\n", kSpansFileEnv,
                   written.error().message().c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jouleprof: could not write spans (%s): %s\n", kSpansFileEnv, e.what());
  }
}

}  // namespace

bool install_spans_file_hook_from_environment() noexcept {
  const char* path = std::getenv(kSpansFileEnv);
  if (path == nullptr || *path == '\0' || hook_target != nullptr) return false;
  try {
    hook_target = new HookTarget{path, getpid()};
    if (std::atexit(write_spans_at_exit) != 0) {
      std::fprintf(stderr, "jouleprof: %s is set but the exit handler could not be registered\n",
                   kSpansFileEnv);
      return false;
    }
    Recorder::global().start();
    return true;
  } catch (...) {
    return false;
  }
}

Status write_spans_file_now() { return write_spans_once(); }

}  // namespace jouleprof::timeline
