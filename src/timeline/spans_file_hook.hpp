// JOULEPROF_SPANS_FILE: record from start-up and write the span dump at exit.
#pragma once

#include "jouleprof/result.hpp"

namespace jouleprof::timeline {

// When JOULEPROF_SPANS_FILE is set (and not empty): starts the recorder and registers an exit
// handler that stops it, collects and writes the dump there ("%p" -> process id, so that the
// processes that each load the library write files of their own). Only the process that installed
// the hook writes: a forked child would otherwise write its parent's spans again. Returns whether
// the hook was installed. Called once, during static initialisation of the recorder.
bool install_spans_file_hook_from_environment() noexcept;

// Writes the dump now instead of at exit, once (the exit handler then writes nothing): for a
// process that may not exit normally. Python re-raises SIGINT after an unhandled
// KeyboardInterrupt, so C exit handlers never run there. Ok, writing nothing, without a hook.
Status write_spans_file_now();

}  // namespace jouleprof::timeline
