// A run's tags from the CI job it runs in: the variables GitHub Actions, GitLab CI and Jenkins set.
#include <array>
#include <cstdlib>
#include <span>

#include "jouleprof/history.hpp"

namespace jouleprof {
namespace {

std::string first_set(std::span<const char* const> names) {
  for (const char* name : names) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  }
  return "";
}

}  // namespace

RunTags run_tags_from_environment(std::string label) {
  // GITHUB_HEAD_REF first: in a pull request GITHUB_REF_NAME is "123/merge", not the branch.
  constexpr std::array<const char*, 6> kBranch = {"GITHUB_HEAD_REF",  "GITHUB_REF_NAME",
                                                  "CI_COMMIT_BRANCH", "CI_COMMIT_REF_NAME",
                                                  "BRANCH_NAME",      "GIT_BRANCH"};
  constexpr std::array<const char*, 3> kCommit = {"GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT"};
  return RunTags{std::move(label), first_set(kBranch), first_set(kCommit)};
}

}  // namespace jouleprof
