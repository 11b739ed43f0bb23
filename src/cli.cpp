// Command-line front end (placeholder until the pipeline lands): --help and --version.
#include "cli.hpp"

#include <CLI/CLI.hpp>

namespace tlbf_dedup {

int run_cli(int argc, char** argv) {
  CLI::App app{"tlbf-dedup: remove duplicate records within a time window, in bounded memory"};
  app.set_version_flag("-V,--version", std::string("tlbf-dedup ") + TLBF_VERSION);
  CLI11_PARSE(app, argc, argv);
  return 0;
}

}  // namespace tlbf_dedup
