// Entry point of the program: parses the command line and runs the pipeline.
#pragma once

namespace tlbf_dedup {

// Returns the process exit status: 0 success, 1 runtime error, 2 usage error.
int run_cli(int argc, char** argv);

}  // namespace tlbf_dedup
