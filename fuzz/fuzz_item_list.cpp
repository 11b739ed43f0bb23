// Fuzzes the item list of TLBF.MADD (tlbf/item_list.hpp), which the Redis module reads from
// any client: parse_items() on arbitrary bytes.
//
// Invariants checked: an accepted list is canonical, so writing its items back with
// append_item() gives the input byte for byte (every item is a view into the input, and no
// byte is skipped or invented); and a list is accepted only whole (cutting its last byte
// off makes it unparseable).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tlbf/item_list.hpp"

namespace {

void require(bool ok, const char* what, std::size_t size) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_item_list: invariant broken: %s (input of %zu bytes)\n", what, size);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view list(reinterpret_cast<const char*>(data), size);
  const auto items = tlbf::parse_items(list);
  if (!items) return 0;
  std::string again;
  for (std::string_view item : *items) {
    require(item.data() >= list.data() && item.data() + item.size() <= list.data() + list.size(),
            "an item is a view into the list", size);
    tlbf::append_item(again, item);
  }
  require(again == list, "an accepted list is its items written back", size);
  if (!list.empty()) require(!tlbf::parse_items(list.substr(0, list.size() - 1)), "a list cut short is refused", size);
  return 0;
}
