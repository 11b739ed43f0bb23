// tlbf-dedup: removes duplicate records within a time window using bounded memory.
// main() only hands over to the program library (src/app/cli.cpp), so the tests can run the same code.
#include "app/cli.hpp"

int main(int argc, char** argv) { return tlbf_dedup::run_cli(argc, argv); }
