// The files a run writes beside its output: the --state file and its lock, and where
// --stats-file's summary goes. Judged once, before anything is locked or read, so that a run
// never replaces or truncates its own output, one of its inputs, a device or a FIFO, and
// never writes through a symbolic link someone planted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/atomic_file.hpp"

namespace tlbf_dedup {

struct Options;

// Where --stats-file PATH sends the summary:
//  - a regular file, or nothing yet: replaced whole at exit (write_file_atomically);
//  - the file the run's stderr is (/dev/stderr, /dev/fd/2, the log stderr is redirected to):
//    written to stderr;
//  - a FIFO or a pipe (>(jq .)), or /dev/null: written into, in place.
// Refused with a UsageError: the run's output (stdout), an input, the state file or its lock,
// a symbolic link to a regular file or to nothing (never followed: name the file itself),
// a directory, a socket, a block device, any other character device.
class StatsFile {
 public:
  static StatsFile judge(const Options& o);
  // Writes `text` where judge() said; throws FileError (also when PATH changed since).
  void write(std::string_view text) const;

 private:
  enum class Way { replace, to_stderr, in_place };
  StatsFile(std::string path, Way way, std::optional<FileId> id) : path_(std::move(path)), way_(way), id_(id) {}
  static StatsFile judge_path(const std::string& path, const Options& o);

  std::string path_;
  Way way_;
  std::optional<FileId> id_;  // in place: the file judged
};

// Throws a UsageError when the state file or its lock (FILE.lock) is the run's output or one of
// its inputs: saving would replace it, locking would truncate it.
void check_state_files(const Options& o);

}  // namespace tlbf_dedup
