// The program's front end: options → filter (fresh or from a state file) → pipeline.
//
// This is the one place that turns errors into a message and an exit status:
// 0 success (also when downstream closed the pipe: quietly), 1 runtime error, 2 usage
// error, 128+N when ended by signal N (SIGINT 130, SIGTERM 143) after flushing the output
// and saving the state. Nothing below this layer prints errors or exits.
#include "cli.hpp"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>

#include <unistd.h>

#include "duration.hpp"
#include "options.hpp"
#include "pipeline.hpp"
#include "record_reader.hpp"
#include "state_store.hpp"
#include "stats.hpp"
#include "tlbf/factory.hpp"
#include "writer.hpp"

namespace tlbf_dedup {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

// SIGINT/SIGTERM set a flag and interrupt a blocking read(2) (no SA_RESTART), so the
// loop stops, flushes and saves. SIGPIPE is ignored so a closed pipe is an EPIPE error.
void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

// The filter options a state file fixes; an explicitly given, different value is an error.
void check_state_matches(const Options& o, const tlbf::FilterConfig& saved, const std::string& path) {
  auto conflict = [&](const char* option, const std::string& saved_value) {
    throw UsageError(std::string(option) + " differs from the state file " + path + " (which has " + saved_value +
                     "); drop the option, or use --state-reset to start over");
  };
  const FilterOverrides& given = o.given;
  if (given.span && saved.span != *given.span) conflict("-w/--window", saved.span ? format_duration(saved.span) : "a count window");
  if (given.window_count && saved.window_count != *given.window_count)
    conflict("-n/--window-count", saved.window_count ? std::to_string(saved.window_count) : "a time window");
  if (given.algorithm && saved.algorithm != *given.algorithm) conflict("-a/--algorithm", std::string(tlbf::algorithm_name(saved.algorithm)));
  if (given.error_rate && saved.error_rate != *given.error_rate) conflict("-e/--error-rate", std::to_string(saved.error_rate));
  if (given.capacity && saved.capacity != *given.capacity) conflict("-c/--capacity", std::to_string(saved.capacity));
  if (given.max_memory_bytes && saved.max_memory_bytes != *given.max_memory_bytes)
    conflict("--max-memory", std::to_string(saved.max_memory_bytes) + " bytes");
}

// The front end's diagnostics: warnings on stderr unless --quiet, the summary as --stats asks.
class StderrDiagnostics final : public Diagnostics {
 public:
  StderrDiagnostics(bool quiet, StatsFormat stats) : quiet_(quiet), stats_(stats) {}
  void warning(const Warning& w) override {
    if (!quiet_) std::fprintf(stderr, "tlbf-dedup: warning: %s\n", w.message.c_str());
  }
  void summary(const RunStats& s) override {
    if (stats_ != StatsFormat::none) std::fputs(format_stats(s, stats_).c_str(), stderr);
  }

 private:
  bool quiet_;
  StatsFormat stats_;
};

int run(const Options& o) {
  // Step 1: the filter, from the state file when there is one, else fresh.
  tlbf::FilterConfig config = o.filter;
  std::unique_ptr<tlbf::WindowFilter> filter;
  tlbf::Time clock = 0;
  if (!o.state_file.empty() && !o.state_reset) {
    if (auto saved = load_state_file(o.state_file)) {
      check_state_matches(o, saved->config, o.state_file);
      config = saved->config;
      filter = std::move(saved->filter);
      clock = saved->clock;
    }
  }
  if (!filter) {
    try {
      filter = tlbf::make_filter(config);
    } catch (const tlbf::invalid_parameter& e) {
      throw option_error(e);
    }
  }

  // Step 2: the state hooks: save at every checkpoint and at the end.
  StateHooks hooks;
  if (!o.state_file.empty()) {
    hooks.save = [path = o.state_file, config](const tlbf::WindowFilter& f, tlbf::Time c) { save_state_file(path, f, config, c); };
    hooks.every = o.checkpoint;
  }

  // Step 3: the record loop.
  RecordReader reader(o.files, o.null_terminated ? '\0' : '\n');
  Writer writer(STDOUT_FILENO);
  SystemClock system_clock;
  StderrDiagnostics diagnostics(o.quiet, o.stats);
  Pipeline pipeline(o.pipeline, *filter, clock, system_clock, diagnostics, std::move(hooks));
  pipeline.run(reader, writer, &g_stop_signal);  // warnings and the --stats summary go to `diagnostics`

  // Step 4: the exit status.
  if (g_stop_signal) return 128 + g_stop_signal;
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
  try {
    auto options = parse_options(argc, argv);
    if (!options) return 0;
    install_signal_handlers();
    return run(*options);
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
