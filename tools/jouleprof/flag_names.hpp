// The library names the option fields and settings a caller sets (AttributionOptions::
// calibration_by_channel, setting estimate.tdp_w); on the command line they are flags. One table
// maps each such name to its flag, for the messages the command line prints.
#pragma once

#include <string>
#include <string_view>

namespace jouleprof::cli {

// The message with every option field or setting the table knows replaced by its flag.
std::string with_flag_names(std::string_view message);

}  // namespace jouleprof::cli
