// The file a --state path names: the one its symbolic links lead to, so that every name of a
// state file is locked, read and written as that one file.
#pragma once

#include <string>

namespace tlbf_dedup {

// `path` with the symbolic links of its last component followed (a relative link target is
// read from the link's directory), up to 40 of them. Returns the path of a regular file, or
// `path` itself when nothing is there yet (which the first save creates). A link that leads
// to nothing is refused: the file it names would be created wherever the link points.
// Throws StateFileError naming `path` (and what it resolves to) for anything else -- a FIFO,
// which open() would wait on for ever, a device such as /dev/zero, which never ends, a
// directory -- and when it cannot be looked at. Never opens or reads the file.
std::string resolve_state_path(const std::string& path);

}  // namespace tlbf_dedup
