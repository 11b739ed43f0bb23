# cmake -DSOURCE_DIR=... -DOUTPUT=... -P WriteBuildCommit.cmake
# Writes OUTPUT, a header defining TLBF_BUILD_COMMIT (see TlbfBuildCommit.cmake), and
# leaves it untouched when its text would not change, so that builds stay incremental.
set(commit unknown)
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  # Only a repository whose top level is SOURCE_DIR describes these sources.
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --show-toplevel --short=12 HEAD
                  OUTPUT_VARIABLE lines RESULT_VARIABLE status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REPLACE "\n" ";" lines "${lines}")
  list(LENGTH lines count)
  if(status EQUAL 0 AND count EQUAL 2)
    list(GET lines 0 top)
    list(GET lines 1 hash)
    file(REAL_PATH ${SOURCE_DIR} source_dir)
    file(REAL_PATH ${top} top)
    if(top STREQUAL source_dir)
      set(commit ${hash})
      # --no-optional-locks: a build must not take the index lock from a commit under way.
      execute_process(COMMAND ${GIT_EXECUTABLE} --no-optional-locks -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                      OUTPUT_VARIABLE changes RESULT_VARIABLE status ERROR_QUIET)
      if(NOT status EQUAL 0 OR NOT changes STREQUAL "")
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()
file(WRITE ${OUTPUT}.new "// Generated at build time by cmake/WriteBuildCommit.cmake; do not edit.\n#pragma once\n#define TLBF_BUILD_COMMIT \"${commit}\"\n")
configure_file(${OUTPUT}.new ${OUTPUT} COPYONLY)
file(REMOVE ${OUTPUT}.new)
