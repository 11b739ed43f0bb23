// tlbf-dedup: removes duplicate records within a time window using bounded memory.
// main() only hands over to the program library (src/cli.cpp), so the tests can run the same code.
#include "cli.hpp"

int main(int argc, char** argv) { return tlbf_dedup::run_cli(argc, argv); }
