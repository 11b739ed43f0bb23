// Text inside a JSON string: what --mark's member name, --explain and the reports write
// between quotes, whatever bytes they started as.
#pragma once

#include <string>
#include <string_view>

namespace tlbf_dedup {

// NAME as a JSON string body (quotes and backslashes escaped, control bytes as \u00XX).
std::string json_escape(std::string_view name);

}  // namespace tlbf_dedup
