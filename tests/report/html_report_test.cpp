#include <gtest/gtest.h>

#include <set>

#include "jouleprof/report.hpp"
#include "report/sample_profile.hpp"
#include "report/xml_doc.hpp"

namespace jouleprof {
namespace {

using testing::XmlDoc;

std::unique_ptr<XmlDoc> render_html(const Profile& p, const ReportOptions& options = {}) {
  auto html = render_report("html", p, options);
  EXPECT_TRUE(html.ok());
  return XmlDoc::parse_html(*html);
}

TEST(HtmlReport, HasEverySectionAndNeedsNoNetwork) {
  auto doc = render_html(testing::sample_profile());
  ASSERT_NE(doc, nullptr);
  for (const char* id : {"summary", "power", "tree", "operators", "provenance", "warnings"}) {
    EXPECT_EQ(doc->select(std::string("//section[@id='") + id + "']").size(), 1u) << id;
  }
  // Self-contained: no external scripts, styles, images, frames or fonts.
  EXPECT_TRUE(
      doc->select("//script[@src] | //link | //img | //iframe | //object | //embed").empty());
  for (xmlNodePtr n : doc->select("//@href | //@src | //@*[starts-with(., 'url(')]")) {
    ADD_FAILURE() << "external reference: " << XmlDoc::text(n);
  }
  EXPECT_EQ(doc->select("//style").size(), 1u);
}

TEST(HtmlReport, TheSummaryShowsTheEnergyPerStepWithItsInterval) {
  Profile p = testing::sample_profile();
  p.energy_per_step = RepeatedEnergy{RepetitionStats{8, 0.25, 0.24, 0.03, 0.225, 0.275},
                                     EnergyBand{0.22, 0.28, UncertaintyTerm::kRepetition}};
  auto doc = render_html(p);
  ASSERT_NE(doc, nullptr);
  const auto cards = doc->select(
      "//section[@id='summary']//div[@class='card'][div[@class='k' and "
      "starts-with(., 'energy per step (mean of 8, 95 % mostly repetition)')]]/div[@class='v']");
  ASSERT_EQ(cards.size(), 1u);
  EXPECT_EQ(XmlDoc::text(cards[0]), "250 mJ ±12 %");
  EXPECT_TRUE(render_html(testing::sample_profile())
                  ->select("//div[@class='k' and starts-with(., 'energy per')]")
                  .empty());
}

TEST(HtmlReport, ThePowerChartDrawsEveryEnergyChannelAndTheSpans) {
  const Profile p = testing::sample_profile();
  auto doc = render_html(p);
  ASSERT_NE(doc, nullptr);
  const auto lines = doc->select("//svg[@id='power-chart']//path[@class='power-line']");
  std::set<std::string> channels;
  for (xmlNodePtr l : lines) {
    channels.insert(XmlDoc::attr(l, "data-channel"));
    EXPECT_EQ(XmlDoc::attr(l, "d").rfind("M", 0), 0u);
  }
  EXPECT_EQ(channels,
            (std::set<std::string>{"rapl:package-0", "rapl:package-0/core", "nvml:0:power"}));
  EXPECT_EQ(doc->select("//svg[@id='power-chart']//rect[@class='span']").size(),
            p.timeline.spans().size());
  EXPECT_EQ(doc->select("//svg[@id='power-chart']//rect[@class='gap']").size(), 1u);
}

TEST(HtmlReport, CapsTheSpansDrawnAndSaysSo) {
  ReportOptions options;
  options.html_max_spans = 5;
  auto html = render_report("html", testing::sample_profile(), options);
  ASSERT_TRUE(html.ok());
  auto doc = XmlDoc::parse_html(*html);
  EXPECT_EQ(doc->select("//rect[@class='span']").size(), 5u);
  EXPECT_NE(html->find("5 of 34 spans drawn"), std::string::npos);
}

TEST(HtmlReport, TreeOperatorsProvenanceAndWarnings) {
  auto doc = render_html(testing::sample_profile());
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->select("//section[@id='tree']//details").size(), 4u);  // nodes with children
  EXPECT_EQ(doc->select("//section[@id='tree']//div[@class='leaf']").size(), 5u);
  // Top operators, the command line's list (jouleprof::top_operators): self energy by name over
  // the whole tree, aten::addmm summed over forward and backward (50 + 60 J, 9 calls) first,
  // then sgemm, backward, forward, train_step; never [unattributed].
  const auto rows = doc->select("//section[@id='operators']//tr[td]");
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& row : rows)
    EXPECT_EQ(XmlDoc::text(row).find("[unattributed]"), std::string::npos);
  const std::string first = XmlDoc::text(rows[0]);
  EXPECT_NE(first.find("aten::addmm"), std::string::npos);
  EXPECT_NE(first.find("110 J"), std::string::npos) << first;
  EXPECT_NE(first.find("39.3 %"), std::string::npos) << first;
  EXPECT_EQ(doc->select("//section[@id='provenance']//tr[td]").size(),
            4u + 1u);  // 4 series + 1 attribution
  const auto warnings = doc->select("//section[@id='warnings']//li");
  ASSERT_EQ(warnings.size(), 2u);
  // A warning holding markup is text, not a script.
  EXPECT_EQ(XmlDoc::text(warnings[1]), "<script>alert('escaped?')</script> & \"quotes\"");
  EXPECT_EQ(doc->select("//script").size(), 1u);
}

TEST(HtmlReport, WorksWithoutTreeOrSeries) {
  Profile p;
  p.meta.kind = "measure";
  auto doc = render_html(p);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->select("//section").size(), 6u);
  EXPECT_TRUE(doc->select("//script").empty());
}

}  // namespace
}  // namespace jouleprof
