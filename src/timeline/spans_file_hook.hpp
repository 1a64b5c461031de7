// JOULEPROF_SPANS_FILE: record from start-up and write the span dump at exit.
#pragma once

namespace jouleprof::timeline {

// When JOULEPROF_SPANS_FILE is set (and not empty): starts the recorder and registers an exit
// handler that stops it, collects and writes the dump there ("%p" -> process id). Only the process
// that installed the hook writes, unless the path has "%p": a forked child would otherwise
// overwrite its parent's file. Returns whether the hook was installed. Called once, during static
// initialisation of the recorder.
bool install_spans_file_hook_from_environment() noexcept;

}  // namespace jouleprof::timeline
