// The `csv` report: the breakdown tree flattened, one row per node in pre-order, for
// spreadsheets and scripts. Empty cells mean "not measured" (no baseline → no static/dynamic).
#include <fmt/format.h>

#include <sstream>

#include "report/markup.hpp"
#include "report/tree_rows.hpp"
#include "report/writers.hpp"

namespace jouleprof::report {
namespace {

std::string optional_number(const std::optional<double>& v) {
  return v ? fmt::format("{:.9g}", *v) : std::string();
}

}  // namespace

Result<std::string> write_csv(const Profile& profile, const ReportOptions& /*options*/) {
  if (!profile.tree) {
    return Error(ErrorCode::kInvalidInput,
                 "profile has no breakdown tree (field 'tree' is empty): attribute it first");
  }
  std::ostringstream out;
  out << "path,depth,name,category,pass,energy_j,self_energy_j,share,static_energy_j,"
         "dynamic_energy_j,time_ns,self_time_ns,calls,mean_power_w,provenance\n";
  for (const TreeRow& row : flatten_tree(*profile.tree)) {
    const ProfileNode& n = *row.node;
    out << csv_field(row.path) << ',' << row.depth << ',' << csv_field(n.name) << ','
        << to_string(n.category) << ',' << to_string(n.pass) << ','
        << fmt::format("{:.9g},{:.9g},{:.6g},", n.energy_j, n.self_energy_j, row.share)
        << optional_number(n.static_energy_j) << ',' << optional_number(n.dynamic_energy_j) << ','
        << n.time_ns << ',' << n.self_time_ns << ',' << n.calls << ','
        << fmt::format("{:.9g}", n.mean_power_w()) << ',' << to_string(n.provenance) << '\n';
  }
  return out.str();
}

}  // namespace jouleprof::report
