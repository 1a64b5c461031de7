// Timeline: what the program did, as spans on tracks (CPU threads, GPU streams). The recorder and
// the trace importers produce it; the attributor charges channel energy to its spans.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jouleprof/attribute_table.hpp"
#include "jouleprof/clock.hpp"

namespace jouleprof {

// Fixed values: written to files and the C API.
enum class SpanCategory : std::uint8_t {
  kRegion = 0,  // user-declared scope
  kModel = 1,
  kLayer = 2,
  kOp = 3,      // framework operator (aten::addmm)
  kKernel = 4,  // device kernel
  kStep = 5,
  kEpoch = 6,
  kCall = 7,    // one API call measured on its own
  kMemory = 8,  // memcpy / memset
};

// kCommunication: collectives (all-reduce, broadcast, ...) and the waiting at them
// (timeline/collectives.hpp).
enum class Pass : std::uint8_t {
  kNone = 0,
  kForward = 1,
  kBackward = 2,
  kOptimizer = 3,
  kCommunication = 4
};

enum class TrackKind : std::uint8_t { kCpuThread = 0, kGpuStream = 1, kProcess = 2 };

std::string_view to_string(SpanCategory c);
std::string_view to_string(Pass p);
std::string_view to_string(TrackKind k);

struct Track {
  TrackKind kind = TrackKind::kCpuThread;
  std::string name;    // "thread 1234", "stream 7"
  std::string device;  // "cpu0", "gpu0": which channels this track consumes
};

inline constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();

struct Span {
  TimeNs begin_ns = 0;
  TimeNs end_ns = 0;                    // half-open: [begin_ns, end_ns)
  std::uint32_t track = 0;              // index into Timeline::tracks
  std::uint32_t name = 0;               // index into Timeline::names; may contain '/' (levels)
  std::uint32_t parent = kNoIndex;      // enclosing span's index, or kNoIndex
  std::uint32_t attributes = kNoIndex;  // index into Timeline::attributes, or kNoIndex
  SpanCategory category = SpanCategory::kRegion;
  Pass pass = Pass::kNone;

  TimeNs duration_ns() const { return end_ns - begin_ns; }
};

// An instant event: an epoch end, a step boundary, a user mark.
struct Mark {
  TimeNs t_ns = 0;
  std::uint32_t track = 0;
  std::uint32_t name = 0;
};

class Timeline {
 public:
  std::uint32_t intern(std::string_view name);
  const std::string& name(std::uint32_t id) const { return names_[id]; }
  const std::vector<std::string>& names() const { return names_; }

  std::uint32_t add_track(Track track);
  std::uint32_t add_span(const Span& span) {
    spans_.push_back(span);
    return static_cast<std::uint32_t>(spans_.size() - 1);
  }
  std::uint32_t add_attributes(const Attributes& attrs) { return attributes_.add(attrs); }
  std::uint32_t add_attributes(const AttributeSet& set) { return attributes_.add(set); }
  std::uint32_t add_attributes(std::span<const AttributeSet::Entry> entries) {
    return attributes_.add(entries);
  }
  void add_mark(const Mark& mark) { marks_.push_back(mark); }

  const std::vector<Track>& tracks() const { return tracks_; }
  const std::vector<Span>& spans() const { return spans_; }
  std::vector<Span>& spans() { return spans_; }
  const std::vector<Mark>& marks() const { return marks_; }
  const AttributeTable& attributes() const { return attributes_; }

  // "model/encoder/layer_3/attention" from the span's ancestors and its own (possibly '/'-
  // separated) name.
  std::string path_of(std::uint32_t span) const;

  // A span that is its own ancestor (its parent chain loops), if any; parents past the end of the
  // spans count as none. Readers of files check this before anything follows parent chains.
  std::optional<std::uint32_t> find_parent_cycle() const;

  // Earliest begin and latest end over all spans; {0, 0} when empty.
  std::pair<TimeNs, TimeNs> extent() const;

  // Moves every time by offset_ns (clock alignment of imported data). False, moving nothing, when
  // a time would leave the 64-bit nanosecond range (a hostile offset would otherwise wrap it).
  [[nodiscard]] bool shift(TimeNs offset_ns);

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
  std::vector<Track> tracks_;
  std::vector<Span> spans_;
  std::vector<Mark> marks_;
  AttributeTable attributes_;
};

}  // namespace jouleprof
