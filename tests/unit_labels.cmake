# Labels of the unit test cases (tests/CMakeLists.txt, "Tiers"): read by CTest after the list
# doctest_discover_tests() wrote, whose names it has in TLBF_UNIT_CASES (tlbf_tests) or
# TLBF_REDIS_UNIT_CASES (tlbf_redis_tests). Every case is `unit`;
# those that take over about 2.5 s on an idle 2-core machine (much more under the sanitizers)
# are `slow`, the rest `fast`.
set(slow_cases
  "error rate holds at 10\\^6 live keys"
  "the bit-sliced layout decides, saves and loads as the slice-major reference"
  "gebf time: false-positive rate"
  "apbf: the error rate holds for windows of 10 to 10\\^5 keys")
foreach(case IN LISTS TLBF_UNIT_CASES TLBF_REDIS_UNIT_CASES)
  set(tier fast)
  foreach(pattern IN LISTS slow_cases)
    if(case MATCHES "${pattern}")
      set(tier slow)
    endif()
  endforeach()
  set_tests_properties("${case}" PROPERTIES LABELS "unit;${tier}")
endforeach()
