#include "core/counter_knots.hpp"

namespace jouleprof {
namespace {

bool changed_at(const Series& s, std::size_t i) { return i == 0 || s[i].value != s[i - 1].value; }

bool is_knot(const Series& s, std::size_t i) {
  if (i >= s.size() || !changed_at(s, i)) return false;
  for (std::size_t j = i; j > 0 && s[j - 1].t_ns == s[i].t_ns; --j) {
    if (changed_at(s, j - 1)) return false;
  }
  return true;
}

}  // namespace

std::vector<std::size_t> counter_knots(const Series& counter) {
  std::vector<std::size_t> knots;
  for (std::size_t i = 0; i < counter.size(); ++i) {
    if (is_knot(counter, i)) knots.push_back(i);
  }
  return knots;
}

double counter_value_at(const Series& counter, TimeNs t) {
  if (counter.empty()) return 0.0;
  // The knots around t; a counter read faster than it updates has a run of stale repeats
  // between two of them.
  const std::size_t at = counter.lower_bound(t);
  std::size_t after = at;
  while (after < counter.size() && !is_knot(counter, after)) ++after;
  std::size_t before = at;
  while (before > 0 && !is_knot(counter, before - 1)) --before;
  if (before == 0) return after < counter.size() ? counter[after].value : counter.front().value;
  const Sample& left = counter[before - 1];
  if (after == counter.size()) return left.value;
  const Sample& right = counter[after];
  if (right.t_ns <= t) return right.value;
  const double f = static_cast<double>(t - left.t_ns) / static_cast<double>(right.t_ns - left.t_ns);
  return left.value + f * (right.value - left.value);
}

}  // namespace jouleprof
