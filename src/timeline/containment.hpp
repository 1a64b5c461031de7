// Parent links from containment: on one track, a span's parent is the innermost span that
// contains it. Importers and the recorder's external spans use this; recorded spans get their
// parents from begin/end nesting instead.
#pragma once

#include <cstdint>
#include <vector>

#include "jouleprof/timeline.hpp"

namespace jouleprof::timeline {

// Appends the spans of one track to `timeline`, ordered by begin time (the longer first when two
// begin together, then input order), each linked to the innermost earlier span that contains it
// ([b, e) inside [B, E) when B <= b and e <= E). A span whose pass is kNone takes its parent's.
// Parents set on input are ignored. Returns the timeline index of each input span, so that callers
// can keep their own links (correlation ids) pointing at the right spans.
std::vector<std::uint32_t> append_by_containment(Timeline& timeline,
                                                 const std::vector<Span>& spans);

}  // namespace jouleprof::timeline
