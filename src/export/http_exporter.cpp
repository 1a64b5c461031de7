// The exporter's HTTP side on cpp-httplib: GET /metrics and GET /.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "jouleprof/exporter.hpp"

namespace jouleprof {
namespace {

// cpp-httplib holds a worker thread for as long as a connection is open, so its fixed pool (8
// threads here) let eight idle clients starve /metrics. This pool starts another worker whenever
// the jobs outnumber the idle workers, up to a maximum; the idle timeout ends idle connections.
class GrowingPool final : public httplib::TaskQueue {
 public:
  explicit GrowingPool(std::size_t max_workers) : max_workers_(max_workers) {}

  void enqueue(std::function<void()> fn) override {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(fn));
    if (jobs_.size() > idle_ && workers_.size() < max_workers_) {
      workers_.emplace_back([this] { work(); });
    }
    wake_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      shutting_down_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();  // only the listening thread enqueues: no race
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    while (true) {
      ++idle_;
      wake_.wait(lock, [this] { return !jobs_.empty() || shutting_down_; });
      --idle_;
      if (jobs_.empty()) return;  // shutting down, nothing left
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  const std::size_t max_workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> workers_;
  std::size_t idle_ = 0;
  bool shutting_down_ = false;
};

// Why `address`:`port` cannot be listened on, in words: not an address, not one of this host's,
// in use, or a privileged port.
std::string bind_problem(const std::string& address, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = getaddrinfo(address.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return fmt::format("'{}' is not an IP address or a host name that resolves ({})", address,
                       gai_strerror(rc));
  }
  std::string problem = "the address could not be bound";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    const int rc = bind(fd, a->ai_addr, a->ai_addrlen);
    const int err = errno;
    close(fd);
    if (rc == 0) {
      problem = "binding worked on a second try (a race with another process?)";
      break;
    }
    switch (err) {
      case EADDRINUSE:
        problem = fmt::format("port {} is already in use on {}", port, address);
        break;
      case EADDRNOTAVAIL:
        problem = fmt::format("{} is not an address of this host", address);
        break;
      case EACCES:
        problem = fmt::format("port {} needs privileges (ports below 1024 do)", port);
        break;
      default:
        problem = std::strerror(err);
    }
  }
  freeaddrinfo(found);
  return problem;
}

}  // namespace

struct HttpExporter::Server {
  httplib::Server http;
  std::thread listening;
  std::atomic<std::uint64_t> scrapes{0};
};

HttpExporter::HttpExporter(std::function<ExporterSnapshot()> snapshot, HttpExporterLimits limits)
    : snapshot_(std::move(snapshot)), limits_(limits), server_(std::make_unique<Server>()) {}

HttpExporter::~HttpExporter() { stop(); }

Result<int> HttpExporter::start(const std::string& address, int port) {
  httplib::Server& http = server_->http;
  // httplib's default also sets SO_REUSEPORT, which would let a second exporter bind the same port
  // and silently take half the scrapes; SO_REUSEADDR alone still allows a quick restart.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  const auto idle = std::chrono::nanoseconds(limits_.idle_timeout_ns);
  http.set_read_timeout(idle);
  http.set_write_timeout(idle);
  http.set_keep_alive_timeout(
      std::max<time_t>(1, static_cast<time_t>(limits_.idle_timeout_ns / kNsPerS)));
  const std::size_t max_connections = limits_.max_connections;
  http.new_task_queue = [max_connections] { return new GrowingPool(max_connections); };
  http.Get("/metrics", [this](const httplib::Request& request, httplib::Response& response) {
    const ExpositionFormat format = negotiate_exposition_format(request.get_header_value("Accept"));
    response.set_content(render_exposition(snapshot_(), format),
                         std::string(exposition_content_type(format)).c_str());
    server_->scrapes.fetch_add(1);
  });
  http.Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("jouleprof exporter: metrics at /metrics\n", "text/plain; charset=utf-8");
  });
  const int bound =
      port == 0 ? http.bind_to_any_port(address) : (http.bind_to_port(address, port) ? port : -1);
  if (bound < 0) {
    return Error(ErrorCode::kUnavailable, fmt::format("cannot listen on {}:{}: {}", address, port,
                                                      bind_problem(address, port)));
  }
  server_->listening = std::thread([&http] { http.listen_after_bind(); });
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
  if (!server_) return;
  server_->http.stop();
  if (server_->listening.joinable()) server_->listening.join();
}

std::uint64_t HttpExporter::scrapes() const { return server_->scrapes.load(); }

}  // namespace jouleprof
