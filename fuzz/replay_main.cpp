// Runs a fuzz target's LLVMFuzzerTestOneInput on given files (or every file in given
// directories), one call per file, without libFuzzer. Every build compiles the targets this
// way, so a fuzz target that no longer builds, or a saved corpus input that now breaks an
// invariant, fails the ordinary test suite instead of only the fuzzing stage.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
    return 1;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.push_back(arg);
    }
  }
  // The empty input too: every target must accept it.
  LLVMFuzzerTestOneInput(nullptr, 0);
  int failures = 0;
  for (const auto& f : files) failures += replay(f);
  std::printf("replayed %zu inputs\n", files.size() + 1);
  return failures == 0 ? 0 : 1;
}
