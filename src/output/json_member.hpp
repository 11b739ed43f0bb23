// Where a top-level member of a JSON object record is, so that --mark can set its flag in
// the record as written instead of adding a second member of the same name.
//
// Only nesting and strings are tracked: the extractor has already judged the record, and
// this finds a span in it; an object not well formed enough to tell has no such member.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

namespace tlbf_dedup {

// Where the value of the top-level member whose name is spelled exactly "`escaped_name`"
// starts and ends in the object `text` (blanks around it excluded); {npos, npos} when the
// object has no such member or is not well formed enough to tell.
std::pair<std::size_t, std::size_t> find_member_value(std::string_view text, std::string_view escaped_name);

}  // namespace tlbf_dedup
