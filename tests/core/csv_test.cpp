#include "core/csv.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jouleprof {
namespace {

using Fields = std::vector<std::string_view>;

TEST(Csv, FieldsAreTrimmedAndMayBeQuotedWhole) {
  EXPECT_EQ(split_fields(" 1 , 2.5 W,", ','), (Fields{"1", "2.5 W", ""}));
  EXPECT_EQ(split_fields("conv,\"HW,Cin,KS\" ,3", ','), (Fields{"conv", "HW,Cin,KS", "3"}));
  EXPECT_EQ(split_fields("a\"b\"c;d", ';'), (Fields{"a\"b\"c", "d"}));
  EXPECT_EQ(split_fields("", ','), (Fields{""}));
}

TEST(Csv, TableSkipsCommentsAndChecksEveryRowAgainstTheHeader) {
  testing::TempDir dir;
  const auto path = dir.write("t.csv", "# measured by kernel-bench\nid,OP\n\nk1,conv\n").string();
  const Result<CsvTable> table = read_csv_table(path);
  ASSERT_TRUE(table.ok()) << table.error().message();
  EXPECT_EQ(table->header, (std::vector<std::string>{"id", "OP"}));
  ASSERT_EQ(table->rows.size(), 1u);
  EXPECT_EQ(table->rows[0][1], "conv");
  EXPECT_EQ(table->line_numbers[0], 4);
  EXPECT_EQ(table->column("OP"), 1u);
  const Result<std::size_t> missing = table->require_column("energy_mJ");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("energy_mJ"), std::string::npos);

  const auto ragged = dir.write("r.csv", "id,OP\nk1\n").string();
  const Result<CsvTable> bad = read_csv_table(ragged);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            ragged +
                ": field 'line 2' has value 'k1': has 1 fields, the header has 2 (line 2 starts "
                "at byte 6)");
}

TEST(Csv, ATableStopsAtItsFirstBadLineAndSaysWhereItStarts) {
  testing::TempDir dir;
  const auto path = dir.write("t.csv", "a,b\n1,2\n3\n4,5,6\n");
  const Result<CsvTable> table = read_csv_table(path.string());
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().message(),
            path.string() +
                ": field 'line 3' has value '3': has 1 fields, the header has 2 (line 3 starts at "
                "byte 8)");
}

}  // namespace
}  // namespace jouleprof
