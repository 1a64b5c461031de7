// The two sides of a baseline budget from the history: the candidates as given (or this commit's
// runs, or the newest run), and the newest runs of the baseline branch or label that ran the same
// command, the candidates themselves left out.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/parse.hpp"
#include "jouleprof/noise_budget.hpp"

namespace jouleprof {
namespace {

struct Candidate {
  RunSample sample;
  std::string command;
  std::optional<std::int64_t> id;  // a run of the history
};

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

Result<Candidate> candidate_of(const HistoryDb& db, const std::string& reference) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(reference, ec)) {
    JP_TRY(const Profile profile, read_profile_json(reference));
    return Candidate{run_sample_of(profile, reference), joined(profile.meta.command), {}};
  }
  const std::optional<std::int64_t> id = to_int64(reference);
  if (!id) {
    return Error(ErrorCode::kNotFound,
                 "'" + reference + "' is neither a profile file nor a run id in the history");
  }
  JP_TRY(const RunRecord run, db.run(*id));
  return Candidate{run_sample_of(run), run.command, run.id};
}

}  // namespace

Result<BaselineGroups> baseline_groups(const std::string& db_location,
                                       const BaselineRequest& request) {
  JP_TRY(const HistoryDb db, HistoryDb::open_existing(db_location));
  std::vector<Candidate> candidates;
  for (const std::string& reference : request.candidates) {
    JP_TRY(Candidate c, candidate_of(db, reference));
    candidates.push_back(std::move(c));
  }
  if (request.candidates.empty()) {
    HistoryFilter filter;
    filter.commit = request.commit;
    // This commit's runs of one command: the newest run's.
    JP_TRY(const std::vector<RunRecord> newest, db.list(1, filter));
    if (newest.empty()) {
      return Error(ErrorCode::kNotFound,
                   request.commit.empty()
                       ? db.path() + ": no run to compare with the baseline"
                       : fmt::format("{}: no run of commit {} to compare with the baseline",
                                     db.path(), request.commit));
    }
    std::vector<RunRecord> runs = newest;
    if (!request.commit.empty()) {
      filter.command = newest.front().command;
      JP_TRY(runs, db.list(0, filter));
    }
    for (const RunRecord& r : runs) candidates.push_back({run_sample_of(r), r.command, r.id});
  }
  BaselineGroups groups;
  groups.command = candidates.front().command;
  std::set<std::int64_t> candidate_ids;
  for (const Candidate& c : candidates) {
    if (c.command != groups.command) {
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("the candidates ran different commands ('{}' and '{}'): a "
                               "budget compares runs of one command",
                               groups.command, c.command));
    }
    if (c.id) candidate_ids.insert(*c.id);
    groups.candidate.push_back(c.sample);
  }
  HistoryFilter baseline;
  baseline.branch_or_label = request.baseline;
  baseline.command = groups.command;
  JP_TRY(const std::vector<RunRecord> runs, db.list(0, baseline));
  for (const RunRecord& r : runs) {
    if (request.last > 0 && groups.baseline.size() >= request.last) break;
    if (!candidate_ids.contains(r.id)) groups.baseline.push_back(run_sample_of(r));
  }
  return groups;
}

}  // namespace jouleprof
