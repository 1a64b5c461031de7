#include "jouleprof/trace_attach.hpp"

#include "attribution/trace_alignment.hpp"

namespace jouleprof {

Result<AttachedTrace> attach_trace(Profile& profile, const std::string& path,
                                   const AttachTraceOptions& options) {
  TraceImportOptions import;
  import.offset_ns = options.offset_ns;
  import.anchor = options.anchor;
  if (!import.anchor && profile.meta.anchor.monotonic_ns != 0) import.anchor = profile.meta.anchor;
  JP_TRY(TraceImport imported, import_trace(path, import));
  AttachedTrace attached{imported.format, imported.clock_mapping, imported.backward,
                         imported.dropped};
  const std::string samples_origin =
      options.samples_origin.empty() ? "the profile's samples" : options.samples_origin;
  JP_RETURN_IF_ERROR(attribution::adopt_trace(profile, std::move(imported), path, samples_origin));
  return attached;
}

}  // namespace jouleprof
