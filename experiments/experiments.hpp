// Shared pieces of tlbf-experiments: where results go, CSV output, gnuplot scripts, and the
// key streams. Each experiment is one function writing CSVs (and plot scripts) into the
// output directory; main.cpp runs them in order and renders the plots at the end.
//
// Invariant: every number a CSV holds was measured on this code in this run; nothing is
// copied from the papers (docs/experiments.md puts the papers' numbers beside ours).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tlbf/hash.hpp"
#include "tlbf/types.hpp"

namespace tlbf_experiments {

struct Context {
  std::filesystem::path out;
  bool quick = false;                 // smaller streams and fewer seeds, for the smoke test
  bool paper_queries = false;         // TLBF Figures 4-5 with the paper's 10^i × 10,000 queries
  std::filesystem::path shared_data;  // ../shared/data: the real access log
  std::vector<std::string> plots;     // gnuplot scripts written so far, rendered at the end
};

// A CSV file with a header row; values are written with full precision.
class Csv {
 public:
  Csv(const std::filesystem::path& path, const std::vector<std::string>& header);
  Csv& operator<<(const std::string& v) { return cell(v); }
  Csv& operator<<(const char* v) { return cell(v); }
  Csv& operator<<(double v);
  Csv& operator<<(std::uint64_t v) { return cell(std::to_string(v)); }
  Csv& operator<<(std::int64_t v) { return cell(std::to_string(v)); }
  Csv& operator<<(std::uint32_t v) { return cell(std::to_string(v)); }
  Csv& operator<<(int v) { return cell(std::to_string(v)); }
  void end_row();

 private:
  Csv& cell(const std::string& v);
  std::ofstream f_;
  bool first_ = true;
};

// Writes NAME.gp next to the CSVs: the preamble (PNG terminal, output NAME.png, title,
// axis labels) followed by `body`; main.cpp runs gnuplot on each script at the end.
void add_plot(Context& ctx, const std::string& name, const std::string& title, const std::string& xlabel,
              const std::string& ylabel, const std::string& body);

// Runs gnuplot on every script; returns false (and leaves the CSVs) when gnuplot is missing.
bool render_plots(const Context& ctx);

// Keys: inserted ones are hashed from their id with one seed, never-inserted ("fresh")
// queries from another, so the two sets cannot meet.
inline tlbf::KeyHash inserted_key(std::uint64_t id) { return tlbf::hash_key(&id, sizeof id, 0x5eed); }
inline tlbf::KeyHash fresh_key(std::uint64_t id) { return tlbf::hash_key(&id, sizeof id, 0xf7e54); }

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v);
double percentile(std::vector<double> v, double q);  // nearest rank, q in [0,1]

// The experiments, in the order main.cpp runs them.
void run_gebf_table1(Context& ctx);     // GEBF paper, Table 1
void run_gebf_fpr_model(Context& ctx);  // GEBF paper, §4 FPR approximation against measurement
void run_gebf_real_log(Context& ctx);   // GEBF paper's real-log check, on our access log
void run_gebf_timed(Context& ctx);      // our time-window GEBF beside TLBF (bits per key)
void run_tlbf_slices(Context& ctx);     // TLBF paper, Figures 1-3 and Table 2
void run_tlbf_fpr(Context& ctx);        // TLBF paper, Figures 4-5

}  // namespace tlbf_experiments
