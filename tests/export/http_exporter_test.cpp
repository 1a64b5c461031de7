// The exporter over real HTTP on loopback (a random free port), read with cpp-httplib's client.
#include <gtest/gtest.h>
#include <httplib.h>

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
  EXPECT_NE(again.error().message().find(std::to_string(*port)), std::string::npos);
}

}  // namespace
}  // namespace jouleprof
