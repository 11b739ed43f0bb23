# The test tiers, chosen from measured times: tests/test_times.txt holds the seconds each test
# took in a run of the whole suite (`ctest -j2`) on a 2-core machine, and
# scripts/test-times.sh measures them again. A test that took at most TLBF_FAST_SECONDS is
# `fast` (`ctest -L fast`, the inner loop: about a minute on two cores); the rest are `slow`,
# and those over TLBF_HEAVY_SECONDS are also `heavy` (the statistical runs the suite under the
# sanitizers leaves out: it runs everything else, at several times the cost). A test the table
# does not name yet is `fast`: CI fails when a fast test takes over 10 s (scripts/test_times.py
# check), which tells its author to measure it. Included at configure time (tests/CMakeLists.txt,
# for the tests it adds) and by CTest at test time (tests/unit_labels.cmake, for the unit cases
# doctest discovers), so it uses script commands only.
set(TLBF_FAST_SECONDS 2.5)
set(TLBF_HEAVY_SECONDS 40)
set(TLBF_TEST_TIMES ${CMAKE_CURRENT_LIST_DIR}/test_times.txt)
# Tests of how the program meets signals and threads at given moments: their timing is what
# they check, and under the sanitizers (several times slower) the moments move, so the
# sanitized run leaves them out (label `timing`), as it did when they were in the slow list.
set(TLBF_TIMING_TESTS e2e.signals e2e.threads e2e.redis_replica)

# The table, "SECONDS<TAB>NAME" a line, as variables TLBF_TIME_<NAME> (any name can be a
# variable's when referred to through another variable).
file(STRINGS ${TLBF_TEST_TIMES} tlbf_time_lines REGEX "^[0-9]")
foreach(line IN LISTS tlbf_time_lines)
  if(line MATCHES "^([0-9.]+)\t(.+)$")
    set("TLBF_TIME_${CMAKE_MATCH_2}" "${CMAKE_MATCH_1}")
  endif()
endforeach()
unset(tlbf_time_lines)

# tlbf_tier_labels(NAME OUT): sets OUT to the tier labels of test NAME ("fast", "slow" or
# "slow;heavy").
function(tlbf_tier_labels name out)
  set(labels fast)
  if(DEFINED "TLBF_TIME_${name}")
    set(seconds "${TLBF_TIME_${name}}")
    if(seconds GREATER TLBF_HEAVY_SECONDS)
      set(labels slow heavy)
    elseif(seconds GREATER TLBF_FAST_SECONDS)
      set(labels slow)
    endif()
  endif()
  list(FIND TLBF_TIMING_TESTS "${name}" timing)  # (not IN_LIST: CTest reads this without policies)
  if(NOT timing EQUAL -1)
    list(APPEND labels timing)
  endif()
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()
