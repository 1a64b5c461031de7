// Built without cpp-httplib (JOULEPROF_WITH_HTTP=OFF or libcpp-httplib-dev missing): the
// exposition format still works for library users; serving it says why it cannot.
#include "jouleprof/exporter.hpp"

namespace jouleprof {

struct HttpExporter::Server {};

HttpExporter::HttpExporter(std::function<ExporterSnapshot()> snapshot, HttpExporterLimits limits)
    : snapshot_(std::move(snapshot)), limits_(limits) {}
HttpExporter::~HttpExporter() = default;

Result<int> HttpExporter::start(const std::string& /*address*/, int /*port*/) {
  return Error(
      ErrorCode::kUnavailable,
      "the exporter needs cpp-httplib: rebuild jouleprof with libcpp-httplib-dev installed and "
      "-DJOULEPROF_WITH_HTTP=ON");
}

void HttpExporter::stop() {}

std::uint64_t HttpExporter::scrapes() const { return 0; }

}  // namespace jouleprof
