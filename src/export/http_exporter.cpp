// The exporter's HTTP side on cpp-httplib: GET /metrics and GET /.
#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "jouleprof/exporter.hpp"

namespace jouleprof {

struct HttpExporter::Server {
  httplib::Server http;
};

HttpExporter::HttpExporter(std::function<ExporterSnapshot()> snapshot)
    : snapshot_(std::move(snapshot)), server_(std::make_unique<Server>()) {}

HttpExporter::~HttpExporter() { stop(); }

Result<int> HttpExporter::start(const std::string& address, int port) {
  httplib::Server& http = server_->http;
  // httplib's default also sets SO_REUSEPORT, which would let a second exporter bind the same port
  // and silently take half the scrapes; SO_REUSEADDR alone still allows a quick restart.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http.Get("/metrics", [this](const httplib::Request& request, httplib::Response& response) {
    const ExpositionFormat format = negotiate_exposition_format(request.get_header_value("Accept"));
    response.set_content(render_exposition(snapshot_(), format),
                         std::string(exposition_content_type(format)).c_str());
    scrapes_.fetch_add(1);
  });
  http.Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("jouleprof exporter: metrics at /metrics\n", "text/plain; charset=utf-8");
  });
  const int bound =
      port == 0 ? http.bind_to_any_port(address) : (http.bind_to_port(address, port) ? port : -1);
  if (bound < 0) {
    return Error(ErrorCode::kUnavailable, "cannot listen on " + address + ":" +
                                              std::to_string(port) +
                                              " (address in use, or not an address of this host?)");
  }
  thread_ = std::thread([&http] { http.listen_after_bind(); });
  // httplib's stop() only stops a server that is already running: wait for the listening loop
  // to start, so that a stop() right after start() cannot be lost (and hang the join).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!http.is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return Error(ErrorCode::kUnavailable, "the HTTP server on " + address + ":" +
                                                std::to_string(bound) +
                                                " did not start within 10 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return bound;
}

void HttpExporter::stop() {
  if (server_) server_->http.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace jouleprof
