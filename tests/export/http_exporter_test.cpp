// The exporter over real HTTP on loopback (a random free port), read with cpp-httplib's client.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

#include "jouleprof/exporter.hpp"

namespace jouleprof {
namespace {

ExporterSnapshot one_channel(double joules) {
  Channel c{"sim:package",          "simulated", "cpu0", "package", ChannelKind::kEnergyCounter,
            Provenance::kSimulated, "",          "",     0,         0};
  ExporterSnapshot s;
  s.channels.push_back({c, joules, 50.0, std::nullopt});
  s.sources.push_back({"simulated", true, "", ""});
  return s;
}

TEST(HttpExporter, ServesBothFormatsOnLoopback) {
  std::atomic<double> joules{1.0};  // written here, read on the server's thread
  HttpExporter http([&] { return one_channel(joules.load()); });
  auto port = http.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().message();
  ASSERT_GT(*port, 0);
  httplib::Client client("127.0.0.1", *port);
  auto plain = client.Get("/metrics");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 200);
  EXPECT_NE(plain->get_header_value("Content-Type").find("version=0.0.4"), std::string::npos);
  EXPECT_NE(plain->body.find("jouleprof_energy_joules_total{device=\"cpu0\""), std::string::npos);
  EXPECT_EQ(plain->body.find("# EOF"), std::string::npos);
  joules = 2.5;
  auto om = client.Get("/metrics", {{"Accept", "application/openmetrics-text;version=1.0.0"}});
  ASSERT_TRUE(om);
  EXPECT_NE(om->get_header_value("Content-Type").find("application/openmetrics-text"),
            std::string::npos);
  EXPECT_NE(om->body.find("} 2.5\n"), std::string::npos) << om->body;
  EXPECT_NE(om->body.find("# EOF\n"), std::string::npos);
  auto root = client.Get("/");
  ASSERT_TRUE(root);
  EXPECT_NE(root->body.find("/metrics"), std::string::npos);
  EXPECT_EQ(client.Get("/nothing")->status, 404);
  EXPECT_EQ(http.scrapes(), 2u);
  http.stop();
}

TEST(HttpExporter, APortInUseIsAnError) {
  HttpExporter first([] { return ExporterSnapshot{}; });
  auto port = first.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  HttpExporter second([] { return ExporterSnapshot{}; });
  auto again = second.start("127.0.0.1", *port);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(
      again.error().message().find(fmt::format("port {} is already in use on 127.0.0.1", *port)),
      std::string::npos)
      << again.error().message();
}

// A TCP connection to the exporter that sends nothing.
int idle_connection(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  return fd;
}

TEST(HttpExporter, IdleConnectionsCannotKeepAScrapeWaiting) {
  // Idle connections are kept open for 10 minutes here: with a fixed pool of workers, a scrape
  // behind 32 of them would wait that long. The client gives up after 60 s.
  HttpExporterLimits limits;
  limits.idle_timeout_ns = 600 * kNsPerS;
  HttpExporter http([] { return one_channel(1.0); }, limits);
  auto port = http.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().message();
  std::vector<int> idle;
  for (int i = 0; i < 32; ++i) idle.push_back(idle_connection(*port));
  httplib::Client client("127.0.0.1", *port);
  client.set_read_timeout(60, 0);
  auto scrape = client.Get("/metrics");
  ASSERT_TRUE(scrape);
  EXPECT_EQ(scrape->status, 200);
  for (int fd : idle) close(fd);
  http.stop();
}

TEST(HttpExporter, AnIdleConnectionIsClosed) {
  HttpExporterLimits limits;
  limits.idle_timeout_ns = 100 * kNsPerMs;
  HttpExporter http([] { return one_channel(1.0); }, limits);
  auto port = http.start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  const int fd = idle_connection(*port);
  timeval limit{60, 0};  // a hang fails the test instead of blocking it
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  char byte = 0;
  EXPECT_EQ(recv(fd, &byte, 1, 0), 0) << "the server closes it (EOF), it does not wait forever";
  close(fd);
  http.stop();
}

TEST(HttpExporter, ABadAddressSaysWhichPartIsWrong) {
  HttpExporter http([] { return ExporterSnapshot{}; });
  auto bad = http.start("not-an-address", 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find(
                "'not-an-address' is not an IP address or a host name that resolves"),
            std::string::npos)
      << bad.error().message();
  HttpExporter elsewhere([] { return ExporterSnapshot{}; });
  auto foreign = elsewhere.start("192.0.2.1", 0);  // TEST-NET-1: no host has it
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error().message().find("192.0.2.1 is not an address of this host"),
            std::string::npos)
      << foreign.error().message();
}

}  // namespace
}  // namespace jouleprof
