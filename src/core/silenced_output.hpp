// Standard output and standard error sent to /dev/null for the life of the object, then given
// back: around a vendor library's initialisation that prints on its own (librocm_smi64 writes
// "Failed to open drm root directory …" and "Exception caught: rsmi_init." on every machine without
// an AMD GPU), so that it does not show on every jouleprof command. The backend still reports the
// failure itself. Anything another thread prints meanwhile is lost too, so keep the scope to the
// one call.
#pragma once

namespace jouleprof {

class SilencedOutput {
 public:
  SilencedOutput();
  ~SilencedOutput();
  SilencedOutput(const SilencedOutput&) = delete;
  SilencedOutput& operator=(const SilencedOutput&) = delete;

 private:
  // The original descriptors, or -1 where one could not be saved (then it is left as it was).
  int saved_stdout_ = -1;
  int saved_stderr_ = -1;
};

}  // namespace jouleprof
