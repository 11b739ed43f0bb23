# Labels of the unit test cases: read by CTest after the list doctest_discover_tests() wrote,
# whose names it has in TLBF_UNIT_CASES (tlbf_tests) or TLBF_REDIS_UNIT_CASES
# (tlbf_redis_tests). Every case is `unit`, and takes its tier from its measured time
# (tests/tiers.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/tiers.cmake)
foreach(case IN LISTS TLBF_UNIT_CASES TLBF_REDIS_UNIT_CASES)
  tlbf_tier_labels("${case}" tier)
  set_tests_properties("${case}" PROPERTIES LABELS "unit;${tier}")
endforeach()
