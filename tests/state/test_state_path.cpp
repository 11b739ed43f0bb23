// resolve_state_path() (src/state/state_path.hpp) and the state store through it: a path leads
// to a regular file or nothing, links are followed and kept, and a FIFO, a device or a link to
// one is refused without being opened, read or replaced.
#include <doctest/doctest.h>

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "state/state_fixtures.hpp"
#include "state/state_path.hpp"
#include "state/state_store.hpp"
#include "tlbf/factory.hpp"

namespace fs = std::filesystem;
using tlbf_dedup::StateFileError;

TEST_SUITE("state_path") {
  TEST_CASE("a state path leads to a regular file or nothing, following links and keeping them") {
    TempDir dir("tlbf-state-path");
    const std::string real = (dir.path / "real.state").string(), link = (dir.path / "link.state").string();
    CHECK(tlbf_dedup::resolve_state_path(real) == real);  // nothing there yet
    fs::create_symlink("real.state", link);
    // A link to nothing is refused: its first save would create a file wherever it points.
    CHECK_THROWS_WITH_AS(tlbf_dedup::resolve_state_path(link), doctest::Contains("which does not exist"),
                         StateFileError);
    const tlbf::FilterConfig c = one_second_exact();
    tlbf_dedup::save_state_file(real, *tlbf::make_filter(c), c, 1);
    CHECK(tlbf_dedup::resolve_state_path(link) == real);
    fs::create_directory(dir.path / "sub");
    fs::create_symlink("../link.state", dir.path / "sub" / "up.state");
    tlbf_dedup::save_state_file(link, *tlbf::make_filter(c), c, 7);
    CHECK(fs::is_symlink(link));
    CHECK(fs::is_regular_file(fs::symlink_status(real)));
    CHECK(tlbf_dedup::load_state_file(link)->clock == 7);
    // A relative link in another directory, through a link: the same file.
    CHECK(fs::equivalent(tlbf_dedup::resolve_state_path((dir.path / "sub" / "up.state").string()), real));
  }

  TEST_CASE("a FIFO, a device, a directory, a link loop are refused, never opened") {
    TempDir dir("tlbf-state-path");
    REQUIRE(::mkfifo((dir.path / "fifo").c_str(), 0600) == 0);
    fs::create_symlink("fifo", dir.path / "to-fifo");
    fs::create_symlink("/dev/zero", dir.path / "to-zero");
    fs::create_directory(dir.path / "dir");
    fs::create_symlink("loop", dir.path / "loop");
    const tlbf::FilterConfig c = one_second_exact();
    for (const char* name : {"fifo", "to-fifo", "to-zero", "dir", "loop"}) {
      const std::string path = (dir.path / name).string();
      CHECK_THROWS_WITH_AS(tlbf_dedup::resolve_state_path(path), doctest::Contains(path.c_str()), StateFileError);
      CHECK_THROWS_AS(tlbf_dedup::load_state_file(path), StateFileError);  // never waits, never reads
      CHECK_THROWS_AS(tlbf_dedup::save_state_file(path, *tlbf::make_filter(c), c, 0), StateFileError);
    }
    CHECK(fs::is_fifo(dir.path / "fifo"));
    CHECK(fs::is_character_file("/dev/zero"));
  }
}
