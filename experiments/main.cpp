// tlbf-experiments: regenerates the tables and figures of both papers from this library.
//
//   tlbf-experiments --out DIR [--quick] [--paper-queries] [--no-plots]
//                    [--only gebf|tlbf|tlbf-slices|tlbf-fpr|timed]
//
// Writes one CSV per table or figure into DIR and, when gnuplot is installed, one PNG per
// figure (the .gp scripts stay next to the CSVs, so a figure can be re-rendered or restyled
// without re-running). docs/experiments.md shows each result beside the paper's number.
// Runs single-threaded; the full run is sized to finish within 10 minutes on 2 cores.
#include <chrono>
#include <cstdio>
#include <exception>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "experiments.hpp"

int main(int argc, char** argv) {
  namespace tx = tlbf_experiments;
  CLI::App app{"Regenerate the TLBF and GEBF papers' tables and figures as CSV and PNG"};
  tx::Context ctx;
  std::string out;
  std::string only;
  app.add_option("--out", out, "directory for the CSV, gnuplot and PNG files (created if missing)")->required();
  app.add_flag("--quick", ctx.quick, "smaller streams and fewer seeds: a smoke run of a few seconds");
  app.add_flag("--paper-queries", ctx.paper_queries,
               "TLBF Figures 4-5 with the paper's 10^i x 10,000 queries per sample (10x slower)");
  ctx.shared_data = TLBF_SHARED_DATA_DIR;
  app.add_option("--shared-data", ctx.shared_data,
                 "directory holding apache_access_elastic.log (default: the source tree's ../shared/data)");
  bool no_plots = false;
  app.add_flag("--no-plots", no_plots, "write the CSVs and .gp scripts but do not run gnuplot");
  app.add_option("--only", only,
                 "run one part: gebf (GEBF paper) | tlbf (TLBF paper; tlbf-slices: Figures 1-3 and Table 2 alone, "
                 "tlbf-fpr: Figures 4-5 alone) | timed (time-window GEBF vs TLBF)")
      ->check(CLI::IsMember({"gebf", "tlbf", "tlbf-slices", "tlbf-fpr", "timed"}));
  CLI11_PARSE(app, argc, argv);

  try {
    ctx.out = out;
    std::filesystem::create_directories(ctx.out);
    const auto start = std::chrono::steady_clock::now();
    auto step = [&](const char* what, void (*run)(tx::Context&)) {
      const auto t0 = std::chrono::steady_clock::now();
      fmt::print("{} ...\n", what);
      std::fflush(stdout);
      run(ctx);
      fmt::print("  done in {:.1f} s\n", tx::seconds_since(t0));
    };
    if (only.empty() || only == "gebf") {
      // 1. GEBF paper: Table 1 (FPR, stale rate, live FNR, throughput) and the §4 model.
      step("GEBF Table 1", tx::run_gebf_table1);
      step("GEBF FPR approximation vs measurement", tx::run_gebf_fpr_model);
      step("GEBF on a real access log", tx::run_gebf_real_log);
    }
    const bool tlbf_all = only.empty() || only == "tlbf";
    // 2. TLBF paper: slices, slice-0 size and bits per element (Figures 1-3, Table 2).
    if (tlbf_all || only == "tlbf-slices") step("TLBF Figures 1-3 and Table 2", tx::run_tlbf_slices);
    // 3. TLBF paper: false-positive rate per insertion (Figures 4-5).
    if (tlbf_all || only == "tlbf-fpr") step("TLBF Figures 4-5", tx::run_tlbf_fpr);
    if (only.empty() || only == "timed") {
      // 4. Our time-window GEBF beside TLBF and the exact filter under changing rates.
      step("time-window GEBF vs TLBF", tx::run_gebf_timed);
    }
    // 5. Pictures last, so a plotting problem never costs a CSV.
    if (no_plots)
      fmt::print("plots not rendered (--no-plots); run gnuplot on the .gp scripts in {}\n", ctx.out.string());
    else if (tx::render_plots(ctx))
      fmt::print("plots: {} PNG files in {}\n", ctx.plots.size(), ctx.out.string());
    else
      fmt::print("plots skipped: gnuplot not found (install gnuplot-nox); the CSVs and .gp scripts are in {}\n",
                 ctx.out.string());
    fmt::print("total {:.1f} s\n", tx::seconds_since(start));
  } catch (const std::exception& e) {
    fmt::print(stderr, "tlbf-experiments: {}\n", e.what());
    return 1;
  }
  return 0;
}
