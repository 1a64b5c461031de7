#include "core/json_fields.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "jouleprof/channel.hpp"

namespace jouleprof {
namespace {

using nlohmann::json;

const JsonFields kFields("run.json");

std::string message_of(const Error& e) { return e.message(); }

TEST(JsonFields, AFieldOfItsTypeIsRead) {
  const json j = json::parse(R"({"n": 3, "name": "gemm", "w": 2.5, "ok": true})");
  EXPECT_EQ(kFields.get<int>(j, "n", "node").value(), 3);
  EXPECT_EQ(kFields.get<std::string>(j, "name", "node").value(), "gemm");
  EXPECT_DOUBLE_EQ(kFields.get<double>(j, "w", "node").value(), 2.5);
  EXPECT_TRUE(kFields.get<bool>(j, "ok", "node").value());
}

TEST(JsonFields, AMissingFieldIsNamedWithItsPathAndTheDocument) {
  const json j = json::parse(R"({"n": 3})");
  const Result<double> r = kFields.get<double>(j, "energy_j", "tree[run]");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(message_of(r.error()), "run.json: field 'tree[run].energy_j' missing");
}

TEST(JsonFields, AValueOfTheWrongTypeIsShownWithTheTypeItShouldHave) {
  const json j = json::parse(R"({"name": 7, "of": "x", "ok": 1, "w": true, "list": [1, "a"]})");
  EXPECT_EQ(message_of(kFields.get<std::string>(j, "name", "node").error()),
            "run.json: field 'node.name' is not a string (7)");
  EXPECT_EQ(message_of(kFields.get<bool>(j, "ok", "node").error()),
            "run.json: field 'node.ok' is not true or false (1)");
  // nlohmann would read true as 1.
  EXPECT_EQ(message_of(kFields.get<double>(j, "w", "node").error()),
            "run.json: field 'node.w' is not a number (true)");
  EXPECT_EQ(message_of(kFields.get<std::vector<int>>(j, "list", "node").error()),
            "run.json: field 'node.list' has the wrong type ([1,\"a\"])");
  EXPECT_EQ(message_of(kFields.member(json::array(), "x", "meta").error()),
            "run.json: field 'meta' is not an object ([])");
}

TEST(JsonFields, ARequirementOnAValueWordsWhatIsWrongWithIt) {
  const json j = json::parse(R"({"interval_ms": -5, "watts": 3.5})");
  const auto positive = [](double v) { return v > 0.0; };
  EXPECT_EQ(
      message_of(kFields.get<double>(j, "interval_ms", "", positive, "is not positive").error()),
      "run.json: field 'interval_ms' is not positive (-5)");
  EXPECT_EQ(kFields.get<double>(j, "watts", "", positive, "is not positive").value(), 3.5);
  // The type is checked before the requirement.
  EXPECT_EQ(message_of(kFields.value<double>(json("x"), "w", positive, "is not positive").error()),
            "run.json: field 'w' is not a number (\"x\")");
  EXPECT_EQ(kFields.optional<double>(j, "absent", "", positive, "is not positive").value(),
            std::nullopt);
  EXPECT_FALSE(kFields.optional<double>(j, "interval_ms", "", positive, "is not positive"));
}

TEST(JsonFields, AFallbackStandsInForAnAbsentField) {
  const json j = json::parse(R"({"full": true, "depth": "deep", "none": null})");
  EXPECT_TRUE(kFields.get_or<bool>(j, "full", "", false).value());
  EXPECT_EQ(kFields.get_or<int>(j, "absent", "", 4).value(), 4);
  EXPECT_EQ(kFields.get_or<int>(j, "none", "", 4).value(), 4);
  EXPECT_EQ(message_of(kFields.get_or<int>(j, "depth", "", 4).error()),
            "run.json: field 'depth' is not a whole number in range (\"deep\")");
}

TEST(JsonFields, TextIsANumberOrAString) {
  const json j = json::parse(R"([40, 2.5, "fast", 18446744073709551615, 0.1, true])");
  EXPECT_EQ(kFields.text(j[0], "s").value(), "40");
  EXPECT_EQ(kFields.text(j[1], "s").value(), "2.5");
  EXPECT_EQ(kFields.text(j[2], "s").value(), "fast");
  EXPECT_EQ(kFields.text(j[3], "s").value(), "18446744073709551615");
  EXPECT_EQ(kFields.text(j[4], "s").value(), "0.1");
  EXPECT_EQ(message_of(kFields.text(j[5], "settings.x").error()),
            "run.json: field 'settings.x' is not a number or a string (true)");
}

TEST(JsonFields, UnknownKeysAreNamedWithTheKnownOnes) {
  const json j = json::parse(R"({"min": 1, "mx": 2})");
  EXPECT_TRUE(kFields.known_keys(j, "CIN", {"min", "mx"}));
  EXPECT_EQ(message_of(kFields.known_keys(j, "CIN", {"min", "max"}).error()),
            "run.json: field 'CIN.mx' is unknown (known: min, max)");
  EXPECT_EQ(message_of(kFields.known_keys(json::array(), "CIN", {"min"}).error()),
            "run.json: field 'CIN' is not an object ([])");
}

TEST(JsonFields, IntegersMustBeWholeAndInRange) {
  // 1e41 as time_ns was undefined behaviour in nlohmann's cast (found by fuzzing).
  const json j = json::parse(R"({"t": 1e41, "f": 1.5, "big": 70000, "neg": -1})");
  EXPECT_NE(message_of(kFields.get<std::int64_t>(j, "t", "meta").error())
                .find("field 'meta.t' is not a whole number in range"),
            std::string::npos);
  EXPECT_FALSE(kFields.get<int>(j, "f", "meta"));
  EXPECT_FALSE(kFields.get<std::uint16_t>(j, "big", "meta"));
  EXPECT_FALSE(kFields.get<std::uint64_t>(j, "neg", "meta"));
  EXPECT_EQ(kFields.get<std::int64_t>(j, "neg", "meta").value(), -1);
}

TEST(JsonFields, AnOptionalFieldMayBeAbsentOrNullButNotWrong) {
  const json j = json::parse(R"({"a": null, "b": 2.0, "c": "x"})");
  EXPECT_EQ(kFields.optional<double>(j, "a", "m").value(), std::nullopt);
  EXPECT_EQ(kFields.optional<double>(j, "absent", "m").value(), std::nullopt);
  EXPECT_EQ(kFields.optional<double>(j, "b", "m").value(), 2.0);
  EXPECT_FALSE(kFields.optional<double>(j, "c", "m"));
}

TEST(JsonFields, ArraysAndNamesAreChecked) {
  const json j = json::parse(R"({"gaps": {}, "kind": "volts", "ok": "power_w"})");
  EXPECT_EQ(message_of(kFields.array(j, "gaps", "series[0]").error()),
            "run.json: field 'series[0].gaps' is not an array ({})");
  EXPECT_EQ(message_of(
                kFields.named<ChannelKind>(j, "kind", "series[0].channel", channel_kind_from_string)
                    .error()),
            "run.json: field 'series[0].channel.kind' unknown value 'volts'");
  EXPECT_EQ(kFields.named<ChannelKind>(j, "ok", "c", channel_kind_from_string).value(),
            ChannelKind::kPower);
  EXPECT_EQ(
      message_of(
          kFields.named<ChannelKind>(j, "kind", "c", channel_kind_from_string, "energy_j, power_w")
              .error()),
      "run.json: field 'c.kind' unknown value 'volts' (known: energy_j, power_w)");
  EXPECT_EQ(message_of(kFields.object(j, "kind", "c").error()),
            "run.json: field 'c.kind' is not an object (\"volts\")");
}

TEST(JsonFields, APathFunctionIsCalledOnlyForAnError) {
  const json j = json::parse(R"({"n": 1})");
  int spelled = 0;
  const auto where = [&] {
    ++spelled;
    return std::string("tree[run].children[layer]");
  };
  ASSERT_TRUE(kFields.get<int>(j, "n", where));
  EXPECT_EQ(spelled, 0);
  const Result<int> missing = kFields.get<int>(j, "calls", where);
  ASSERT_FALSE(missing);
  EXPECT_EQ(spelled, 1);
  EXPECT_EQ(message_of(missing.error()),
            "run.json: field 'tree[run].children[layer].calls' missing");
}

}  // namespace
}  // namespace jouleprof
