// CSV and gnuplot output for tlbf-experiments. CSV cells are never quoted: every value the
// experiments write is a number or a plain identifier. Plots are gnuplot scripts run after
// all CSVs exist, so a missing gnuplot costs the pictures and nothing else.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "experiments.hpp"

namespace tlbf_experiments {

Csv::Csv(const std::filesystem::path& path, const std::vector<std::string>& header) : f_(path) {
  if (!f_) throw std::runtime_error("cannot write " + path.string());
  for (const std::string& h : header) cell(h);
  end_row();
}

Csv& Csv::operator<<(double v) { return cell(fmt::format("{:.6g}", v)); }

Csv& Csv::cell(const std::string& v) {
  if (!first_) f_ << ',';
  f_ << v;
  first_ = false;
  return *this;
}

void Csv::end_row() {
  f_ << '\n';
  first_ = true;
}

void add_plot(Context& ctx, const std::string& name, const std::string& title, const std::string& xlabel,
              const std::string& ylabel, const std::string& body) {
  std::ofstream gp(ctx.out / (name + ".gp"));
  gp << "set terminal pngcairo size 960," << (body.find("multiplot") != std::string::npos ? 1200 : 600)
     << " font 'sans,10'\n"
     << "set output '" << name << ".png'\n"
     << "set datafile separator ','\n"
     << "set key outside right top\n"
     << "set grid\n"
     << "set title '" << title << "'\n"
     << "set xlabel '" << xlabel << "'\n"
     << "set ylabel '" << ylabel << "'\n"
     << body << '\n';
  ctx.plots.push_back(name);
}

bool render_plots(const Context& ctx) {
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) return false;
  for (const std::string& name : ctx.plots) {
    std::string cmd = fmt::format("cd '{}' && gnuplot '{}.gp'", ctx.out.string(), name);
    if (std::system(cmd.c_str()) != 0) fmt::print(stderr, "gnuplot failed on {}.gp\n", name);
  }
  return true;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, i > 0 ? i - 1 : 0)];
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace tlbf_experiments
