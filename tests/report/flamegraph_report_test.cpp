#include <gtest/gtest.h>

#include <map>

#include "jouleprof/report.hpp"
#include "report/sample_profile.hpp"
#include "report/xml_doc.hpp"

namespace jouleprof {
namespace {

using testing::XmlDoc;

struct Frame {
  double x = 0, y = 0, width = 0;
  std::string fill, title;
};

std::map<std::string, Frame> frames_of(const XmlDoc& doc) {
  std::map<std::string, Frame> frames;
  for (xmlNodePtr g : doc.select("//s:g[@class='frame']")) {
    Frame f;
    for (xmlNodePtr child = g->children; child != nullptr; child = child->next) {
      const std::string tag = reinterpret_cast<const char*>(child->name);
      if (tag == "rect") {
        f.x = std::stod(XmlDoc::attr(child, "x"));
        f.y = std::stod(XmlDoc::attr(child, "y"));
        f.width = std::stod(XmlDoc::attr(child, "width"));
        f.fill = XmlDoc::attr(child, "fill");
      } else if (tag == "title") {
        f.title = XmlDoc::text(child);
      }
    }
    frames[XmlDoc::attr(g, "data-path")] = f;
  }
  return frames;
}

TEST(FlameGraph, IsWellFormedSvgWithOneFramePerNodeWidthProportionalToEnergy) {
  auto svg = render_report("flamegraph", testing::sample_profile());
  ASSERT_TRUE(svg.ok());
  auto doc = XmlDoc::parse_xml(*svg);
  ASSERT_NE(doc, nullptr) << "not well-formed XML";
  ASSERT_EQ(doc->select("/s:svg").size(), 1u);
  const auto frames = frames_of(*doc);
  ASSERT_EQ(frames.size(), 9u);
  const Frame& root = frames.at("");
  EXPECT_DOUBLE_EQ(root.x, 0.0);
  EXPECT_DOUBLE_EQ(root.width, 1200.0);
  const Frame& step = frames.at("train_step");
  const Frame& forward = frames.at("train_step/forward");
  const Frame& backward = frames.at("train_step/backward");
  const Frame& fwd_addmm = frames.at("train_step/forward/aten::addmm");
  EXPECT_NEAR(step.width, 1200.0 * 250.0 / 280.0, 0.01);
  EXPECT_NEAR(fwd_addmm.width, 1200.0 * 50.0 / 280.0, 0.01);
  // Children sit on their parent, left to right, inside its extent; the root is at the bottom.
  EXPECT_NEAR(forward.x, step.x, 0.01);
  EXPECT_NEAR(backward.x, forward.x + forward.width, 0.02);
  EXPECT_LE(backward.x + backward.width, step.x + step.width + 0.02);
  EXPECT_LT(step.y, root.y);
  EXPECT_LT(forward.y, step.y);
  EXPECT_EQ(forward.y, backward.y);
  // Colour by category: both layers share one colour, the op and the kernel differ from it.
  EXPECT_EQ(forward.fill, backward.fill);
  EXPECT_NE(fwd_addmm.fill, forward.fill);
  EXPECT_NE(frames.at("train_step/forward/sgemm_128x64").fill, fwd_addmm.fill);
  // Hover titles carry energy, share and provenance.
  EXPECT_NE(fwd_addmm.title.find("50.0 J"), std::string::npos) << fwd_addmm.title;
  EXPECT_NE(fwd_addmm.title.find("17.9 %"), std::string::npos) << fwd_addmm.title;
  EXPECT_NE(fwd_addmm.title.find("measured"), std::string::npos);
  EXPECT_NE(frames.at("[unattributed]").title.find("interpolated"), std::string::npos);
  EXPECT_FALSE(doc->select("//s:g[@class='legend']").empty());
}

TEST(FlameGraph, NamesWithMarkupAreEscaped) {
  Profile p = testing::sample_profile();
  p.tree->children.front().name = "<b>&\"step\"";
  auto svg = render_report("flamegraph", p);
  ASSERT_TRUE(svg.ok());
  auto doc = XmlDoc::parse_xml(*svg);
  ASSERT_NE(doc, nullptr);
  EXPECT_TRUE(frames_of(*doc).contains("<b>&\"step\""));
}

TEST(FlameGraph, DifferentialColoursByChangeAgainstTheBaseline) {
  const Profile before = testing::sample_profile();
  testing::SampleProfileOptions more;
  more.scale = 1.5;
  more.extra_op = "aten::gelu";
  Profile after = testing::sample_profile(more);
  after.tree->children.back().energy_j = 15.0;  // [unattributed] halves: 30 J -> 15 J
  ReportOptions options;
  options.baseline = &before;
  auto svg = render_report("flamegraph", after, options);
  ASSERT_TRUE(svg.ok());
  auto doc = XmlDoc::parse_xml(*svg);
  ASSERT_NE(doc, nullptr);
  const auto frames = frames_of(*doc);
  EXPECT_EQ(frames.size(), 10u);
  const Frame& grown = frames.at("train_step/backward");  // +50 %
  const Frame& shrunk = frames.at("[unattributed]");      // -50 %
  const Frame& added = frames.at("train_step/forward/aten::gelu");
  EXPECT_EQ(grown.fill, "rgb(255,153,153)");
  EXPECT_EQ(shrunk.fill, "rgb(153,153,255)");
  EXPECT_EQ(added.fill, "rgb(255,51,51)");
  EXPECT_NE(grown.title.find("+50.0 %"), std::string::npos) << grown.title;
  EXPECT_NE(added.title.find("new"), std::string::npos);
  // Removed nodes are counted below the graph.
  const auto removed = doc->select("//s:text[@class='removed']");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(XmlDoc::text(removed[0]).rfind("0 baseline nodes", 0), 0u);
  ReportOptions reverse;
  reverse.baseline = &after;
  auto back = render_report("flamegraph", before, reverse);
  ASSERT_TRUE(back.ok());
  auto back_doc = XmlDoc::parse_xml(*back);
  ASSERT_NE(back_doc, nullptr);
  EXPECT_EQ(XmlDoc::text(back_doc->select("//s:text[@class='removed']").at(0))
                .rfind("1 baseline nodes", 0),
            0u);
}

}  // namespace
}  // namespace jouleprof
