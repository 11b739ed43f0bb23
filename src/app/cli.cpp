// The program's front end: options → filter (fresh or from a state file) → pipeline.
//
// This is the one place that turns errors into a message and an exit status:
// 0 success (also when downstream closed the pipe: quietly), 1 runtime error, 2 usage
// error, 128+N when ended by signal N (SIGHUP 129, SIGINT 130, SIGTERM 143) after flushing
// the output and saving the state. Nothing below this layer prints errors or exits.
//
// With --state the run holds an exclusive lock on FILE.lock from before the state is read
// until after the last save, so two runs on one state never both load it and each save its
// own half: the second waits (--lock-timeout) or ends before reading anything.
//
// A state file records the keys' hash seed and the key and time options of the run that
// made it; a later run hashes with that seed and is held to those options (the ones it does
// not give are read as if given). A fresh filter gets a fresh seed from the OS.
#include "app/cli.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/options.hpp"
#include "app/written_files.hpp"
#include "base/atomic_file.hpp"
#include "base/duration.hpp"
#include "decide/redis/redis_backend.hpp"
#include "input/record_reader.hpp"
#include "output/holding_sink.hpp"
#include "output/printer.hpp"
#include "output/writer.hpp"
#include "pipeline/input_merge.hpp"
#include "pipeline/run.hpp"
#include "report/stats.hpp"
#include "state/state_store.hpp"
#include "tlbf/factory.hpp"
#include "tlbf/registry.hpp"
#include "tlbf/serialize.hpp"

namespace tlbf_dedup {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

// SIGHUP/SIGINT/SIGTERM set a flag and interrupt a blocking read(2) (no SA_RESTART), so the
// loop stops, flushes and saves. SIGHUP is among them because a closing terminal sends it to
// a `tail -F log | tlbf-dedup --state ...` session, whose window must survive that too.
// SIGPIPE is ignored so a closed pipe is an EPIPE error.
void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGHUP, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

// The filter options an existing filter fixes (one from a state file, or kept in Redis); an
// explicitly given, different value is an error. `source` names the filter, `fix` the way out.
void check_filter_matches(const Options& o, const tlbf::FilterConfig& saved, const std::string& source,
                          const std::string& fix) {
  auto conflict = [&](const char* option, const std::string& saved_value) {
    throw UsageError(std::string(option) + " differs from " + source + " (which has " + saved_value +
                     "); drop the option, or " + fix);
  };
  const FilterOverrides& given = o.given;
  if (given.span && saved.span != *given.span)
    conflict("-w/--window", saved.span ? format_duration(saved.span) : "a count window");
  if (given.window_count && saved.window_count != *given.window_count)
    conflict("-n/--window-count", saved.window_count ? std::to_string(saved.window_count) : "a time window");
  if (given.algorithm && saved.algorithm != *given.algorithm)
    conflict("-a/--algorithm", std::string(tlbf::algorithm_name(saved.algorithm)));
  if (given.error_rate && saved.error_rate != *given.error_rate)
    conflict("-e/--error-rate", fmt::format("{:g}", saved.error_rate));
  if (given.capacity && saved.capacity != *given.capacity) conflict("-c/--capacity", std::to_string(saved.capacity));
  if (given.max_memory_bytes && saved.max_memory_bytes != *given.max_memory_bytes)
    conflict("--max-memory", std::to_string(saved.max_memory_bytes) + " bytes");
}

std::string describe_values(const RecordedOption& r) {
  std::string out;
  for (const std::string& v : r.values) out += " '" + v + "'";
  return out;
}

// "--key '3' --time '1'", with what the absence of an option means spelled out.
std::string describe(const std::vector<RecordedOption>& options) {
  std::string out;
  bool key = false, time = false;
  for (const RecordedOption& r : options) {
    out += (out.empty() ? "" : " ") + r.name + describe_values(r);
    key |= r.name == "--key" || r.name == "--key-regex";
    time |= r.name == "--time";
  }
  if (!key) out += std::string(out.empty() ? "" : ", ") + "whole-record keys";
  if (!time) out += ", times from the wall clock";
  return out;
}

// This run's key and time options against the ones the state was made with: a given option
// the state lacks or has with other values is a usage error; the state's options that this
// run does not give are returned as arguments ("--key=3"), to be read as if given.
std::vector<std::string> saved_key_time_args(const Options& o, const std::vector<RecordedOption>& saved,
                                             const std::string& path) {
  auto find = [](const std::vector<RecordedOption>& in, const std::string& name) {
    for (const RecordedOption& r : in)
      if (r.name == name) return &r;
    return static_cast<const RecordedOption*>(nullptr);
  };
  // A default spelled out means what its absence means.
  const auto is_default = [](const RecordedOption& r) {
    return r.values.size() == 1 &&
           ((r.name == "--keep" && r.values[0] == "first") || (r.name == "--missing" && r.values[0] == "error") ||
            (r.name == "--format" && r.values[0] == "auto"));
  };
  for (const RecordedOption& given : o.key_time_options) {
    const RecordedOption* had = find(saved, given.name);
    if (!had && is_default(given)) continue;
    if (!had || had->values != given.values)
      throw UsageError(given.name + describe_values(given) + " differs from the state file " + path + " (made with " +
                       describe(saved) + "); drop the option, or use --state-reset to start over");
  }
  std::vector<std::string> args;
  for (const RecordedOption& had : saved) {
    if (find(o.key_time_options, had.name)) continue;
    if (had.values.empty()) args.push_back(had.name);
    for (const std::string& v : had.values) args.push_back(had.name + "=" + v);
  }
  return args;
}

// The seed of a fresh filter's key hashes: secret, from the OS, unless the environment fixes
// it for a test or an experiment (TLBF_DEDUP_HASH_SEED, a decimal or 0x-hex 64-bit number).
std::uint64_t fresh_hash_seed() {
  if (const char* fixed = std::getenv("TLBF_DEDUP_HASH_SEED")) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(fixed, &end, 0);
    if (*fixed == '\0' || *fixed == '-' || *end != '\0' || errno == ERANGE)
      throw std::runtime_error(std::string("TLBF_DEDUP_HASH_SEED '") + fixed +
                               "': expected a 64-bit number, e.g. 42 or 0x2a");
    return v;
  }
  std::uint64_t seed = 0;
  unsigned char* p = reinterpret_cast<unsigned char*>(&seed);
  std::size_t got = 0;
  while (got < sizeof seed) {
    const ssize_t n = ::getrandom(p + got, sizeof seed - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("cannot draw a hash seed from the OS (getrandom): ") + std::strerror(errno));
    }
    got += static_cast<std::size_t>(n);
  }
  return seed;
}

// The front end's diagnostics: warnings on stderr unless --quiet, the summary as --stats asks,
// on stderr or to --stats-file (a file replaced whole, so that a script never reads half of it).
class StderrDiagnostics final : public Diagnostics {
 public:
  StderrDiagnostics(bool quiet, StatsFormat stats, std::optional<StatsFile> stats_file)
      : quiet_(quiet), stats_(stats), stats_file_(std::move(stats_file)) {}
  void warning(const Warning& w) override {
    if (!quiet_) std::fprintf(stderr, "tlbf-dedup: warning: %s\n", w.message.c_str());
  }
  void summary(const RunStats& s) override {
    const std::string text = stats_ != StatsFormat::none ? format_stats(s, stats_) : format_top(s.top);
    if (!stats_file_) return (void)std::fputs(text.c_str(), stderr);  // --top alone: empty without it
    try {
      stats_file_->write(text);
    } catch (const FileError& e) {
      std::fprintf(stderr, "tlbf-dedup: --stats-file %s\n", e.what());
      stats_file_failed_ = true;
    }
  }
  // The summary could not be written to --stats-file (said on stderr): the run fails.
  bool stats_file_failed() const { return stats_file_failed_; }

 private:
  bool quiet_;
  StatsFormat stats_;
  std::optional<StatsFile> stats_file_;
  bool stats_file_failed_ = false;
};

// The lock on the state file, or nullopt when a signal ended the wait. A busy lock is a
// runtime error (exit 1) that names the state file, the lock file and the holder.
std::optional<ExclusiveLock> lock_state(const Options& o) {
  const std::string lock_path = o.state_file + ".lock";
  try {
    return ExclusiveLock::acquire(lock_path, std::chrono::milliseconds(o.lock_timeout / tlbf::kMillisecond),
                                  &g_stop_signal);
  } catch (const LockBusy& e) {
    const std::string holder =
        e.holder_pid() > 0 ? "pid " + std::to_string(e.holder_pid()) : "a process whose pid is unknown";
    throw std::runtime_error("state file '" + o.state_file + "' is in use by another run (" + holder +
                             " holds the lock '" + lock_path + "')" +
                             (o.lock_timeout > 0
                                  ? " and was not released within --lock-timeout " + format_duration(o.lock_timeout)
                                  : "; --lock-timeout DUR waits for it"));
  } catch (const FileError& e) {
    throw std::runtime_error(std::string("state file lock ") + e.what());
  }
}

// What decides a run's records: the filter (local, or in Redis), the seed its keys are hashed
// with, the decider over them, and the clock a saved state had reached.
struct Deciding {
  tlbf::FilterConfig config;
  std::unique_ptr<tlbf::WindowFilter> filter;
  std::unique_ptr<RedisBackend> remote;
  std::unique_ptr<Decider> local;
  std::uint64_t hash_seed = 0;
  tlbf::Time clock = 0;
  std::optional<std::string> held;  // the records a state's run held (--count, --keep last)
  Decider& decider() { return remote ? static_cast<Decider&>(*remote) : *local; }
};

// The filter: in Redis with --redis (reserved there unless it exists; the fresh seed only
// hashes for a local fallback filter); else from the state file when there is one (with its
// hash seed, and its key and time options where this run gives none: `o` is parsed again),
// else fresh with a fresh seed. The decider owns the seed: every hash of a key in the run is
// made with it.
Deciding make_deciding(Options& o, int argc, const char* const* argv, Clock& clock, Diagnostics& diagnostics) {
  Deciding d;
  d.config = o.filter;
  if (o.redis) {
    d.hash_seed = fresh_hash_seed();
    d.remote = std::make_unique<RedisBackend>(*o.redis, o.filter, d.hash_seed, clock, diagnostics);
    d.config = d.remote->filter_config();
    check_filter_matches(o, d.config, "the Redis filter '" + o.redis->key + "' at " + o.redis->url.text,
                         "name another --redis-key");
    return d;
  }
  if (o.state_reset) check_state_reset(o.state_file);  // it replaces a state file, and no other
  if (!o.state_file.empty() && !o.state_reset) {
    if (auto saved = load_state_file(o.state_file)) {
      check_filter_matches(o, saved->config, "the state file " + o.state_file, "use --state-reset to start over");
      if (saved->run.key_time_options) {
        const std::vector<std::string> args = saved_key_time_args(o, *saved->run.key_time_options, o.state_file);
        if (!args.empty()) {
          // The options the run did not give come from the state, and the user hears which.
          try {
            o = *parse_options(argc, argv, args);
          } catch (const UsageError& e) {
            throw UsageError(fmt::format("{} (with {}, taken from the state file {}; use --state-reset to start over)",
                                         e.what(), fmt::join(args, " "), o.state_file));
          }
          diagnostics.warning(Warning{
              WarningKind::state_options, "", 0, 1,
              fmt::format("the state file {} gives {} (as the run that made it)", o.state_file, fmt::join(args, " "))});
        }
      }
      d.config = saved->config;
      d.filter = std::move(saved->filter);
      d.clock = saved->clock;
      d.hash_seed = saved->run.hash_seed;
      d.held = std::move(saved->held);
    }
  }
  if (!d.filter) {
    try {
      d.filter = tlbf::make_filter(d.config);
    } catch (const tlbf::invalid_parameter& e) {
      throw option_error(e);
    } catch (const std::bad_alloc&) {
      throw std::runtime_error(fmt::format(
          "the filter ({} with --max-memory {} bytes) does not fit in the memory this process may take; lower "
          "--max-memory or -c, or raise -e",
          d.config.window_count ? "-n " + std::to_string(d.config.window_count)
                                : "-c " + std::to_string(d.config.capacity) + " keys a window",
          d.config.max_memory_bytes));
    }
    d.hash_seed = fresh_hash_seed();
  }
  d.local = make_local_decider(*d.filter, o.pipeline.refresh, d.hash_seed);
  return d;
}

// The holding stage of --count and --keep last, over the window of the filter the run was
// given (a state's, when there is one), with the records that state held.
std::unique_ptr<Holder> make_holder(const Options& o, const Deciding& d) {
  const auto corrupted = [&](const std::string& problem) {
    return StateFileError("state file '" + o.state_file + "': corrupted (" + problem + ")");
  };
  if (!o.hold.active()) {
    if (d.held) throw corrupted("it holds records, but its run was not made with --count or --keep last");
    if (o.hold.drain) throw UsageError("--drain has no effect without --count or --keep last (nothing is held)");
    return nullptr;
  }
  HoldConfig h = o.hold;
  h.span = d.config.span;
  h.window_count = d.config.window_count;
  h.from = o.pipeline.refresh == Refresh::yes ? WindowFrom::last_copy : WindowFrom::first_copy;
  h.max_bytes = d.config.max_memory_bytes;
  auto holder = std::make_unique<Holder>(h);
  try {
    if (d.held) holder->load(*d.held);
  } catch (const tlbf::state_error& e) {
    throw corrupted(std::string("its held records do not parse: ") + e.what());
  }
  return holder;
}

int run(Options o, int argc, const char* const* argv) {
  // Step 0: the files written beside the output, judged before any is touched; then the
  // state's lock, held until this function returns (every exit path).
  check_state_files(o);
  std::optional<StatsFile> stats_file;
  if (!o.stats_file.empty()) stats_file = StatsFile::judge(o);
  std::optional<ExclusiveLock> lock;
  if (!o.state_file.empty()) {
    lock = lock_state(o);
    if (!lock) return 128 + g_stop_signal;
  }

  SystemClock system_clock;
  StderrDiagnostics diagnostics(o.quiet, o.stats, std::move(stats_file));

  // Step 1: the filter and its decider, and the holding stage with what the state held.
  Deciding d = make_deciding(o, argc, argv, system_clock, diagnostics);
  std::unique_ptr<Holder> holder = make_holder(o, d);

  // Step 2: the state hooks: save at every checkpoint and at the end (--explain only looks),
  // with the records held at that moment.
  StateHooks hooks;
  if (!o.state_file.empty() && o.pipeline.explain == 0) {
    const RunRecord record{d.hash_seed, o.key_time_options};
    hooks.save = [path = o.state_file, config = d.config, record, filter = d.filter.get(),
                  held = holder.get()](tlbf::Time c) {
      if (!held) return save_state_file(path, *filter, config, c, record);
      tlbf::ByteWriter bytes;
      held->save(bytes);
      save_state_file(path, *filter, config, c, record, std::string_view(bytes.data()));
    };
    hooks.every = o.checkpoint;
  }

  // Step 3: the record loop, over inputs merged by time and held for --lateness where -t asks
  // for either, else over the inputs one after another.
  const bool timed = !o.pipeline.extract.time.empty();
  const bool merge = timed && !o.no_merge && o.files.size() >= 2;
  const bool in_time_order = merge || (timed && o.pipeline.clock.lateness > 0);
  // Where the records go: the printer; with --count or --keep last through the holding
  // stage, which decides by itself (the decider then asks no filter).
  Printer printer(STDOUT_FILENO, o.pipeline.output);
  std::unique_ptr<HoldingSink> holding;
  std::unique_ptr<Decider> unasked;
  if (holder) {
    holding = std::make_unique<HoldingSink>(*holder, printer, o.pipeline.extract.time, system_clock);
    unasked = make_unasked_decider(d.hash_seed);
  }
  RecordSink& sink = holding ? static_cast<RecordSink&>(*holding) : printer;
  Decider& decider = unasked ? *unasked : d.decider();
  PipelineConfig pipeline_config = o.pipeline;
  pipeline_config.merged = merge;
  pipeline_config.clock.window = d.config.span;  // the state file's (or Redis's) window when there is one
  pipeline_config.sizing =
      d.config.span > 0 ? FilterSizing{d.config.capacity, false} : FilterSizing{d.config.window_count, true};
  Run pipeline(std::move(pipeline_config), decider, sink, d.clock, system_clock, diagnostics, std::move(hooks));
  try {
    // Warnings and the --stats summary go to `diagnostics`.
    if (in_time_order) {
      const MergeConfig merging{merge, o.pipeline.clock.lateness, d.config.max_memory_bytes / 4,
                                o.pipeline.clock.max_future};
      InputMerge in(o.files, o.reader, merging, pipeline.source_config(), decider.hasher(), system_clock);
      pipeline.run(in, &g_stop_signal);
    } else {
      RecordReader reader(o.files, o.reader);
      pipeline.run(reader, &g_stop_signal);
    }
  } catch (const OutputStopped& e) {
    std::string where;
    if (d.remote)
      where = "; their keys are in the Redis filter already, so a rerun inside the window takes them for duplicates";
    else if (!o.state_file.empty())
      where = "; the state was not saved, so a run resumed from " + o.state_file + " writes them again";
    std::fprintf(stderr,
                 "tlbf-dedup: stopped by signal %d while the output took nothing for %d ms: at least %llu bytes of "
                 "kept records were not written%s\n",
                 static_cast<int>(g_stop_signal), Writer::kStopGraceMs, static_cast<unsigned long long>(e.unwritten),
                 where.c_str());
    return 128 + g_stop_signal;
  }

  // Step 4: the exit status.
  if (g_stop_signal) return 128 + g_stop_signal;
  return diagnostics.stats_file_failed() ? 1 : 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
  try {
    auto options = parse_options(argc, argv);
    if (!options) return 0;
    install_signal_handlers();
    return run(std::move(*options), argc, argv);
  } catch (const BrokenPipe&) {
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "tlbf-dedup: %s\nTry 'tlbf-dedup --help' for more information.\n", e.what());
    return 2;
  } catch (const SpecError& e) {
    std::fprintf(stderr, "tlbf-dedup: %s\nTry 'tlbf-dedup --help' for more information.\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tlbf-dedup: %s\n", e.what());
    return 1;
  }
}

}  // namespace tlbf_dedup
