# The commit tlbf-dedup is built from, for --version.
#
# tlbf_add_build_commit(TARGET) gives TARGET a private include directory holding
# tlbf_build_commit.hpp, which defines TLBF_BUILD_COMMIT: the abbreviated hash of the
# checked-out commit, with "-dirty" when tracked files differ from it, or "unknown" when
# the sources are not a git checkout of their own (a tarball, even one unpacked inside
# another repository) or git is missing. The header is refreshed at every build, not only
# at configure time, so a commit made since configuring is not misreported; it is
# rewritten only when its text changes, so an unchanged commit recompiles nothing and a
# new one recompiles the one file that includes it.
set(TLBF_WRITE_BUILD_COMMIT_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/WriteBuildCommit.cmake)

function(tlbf_add_build_commit target)
  set(dir ${PROJECT_BINARY_DIR}/generated)
  set(header ${dir}/tlbf_build_commit.hpp)
  set(write_header ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${header}
      -P ${TLBF_WRITE_BUILD_COMMIT_SCRIPT})
  # Once now, so the header exists for tools that read compile_commands.json before a build.
  execute_process(COMMAND ${write_header})
  add_custom_target(tlbf_build_commit COMMAND ${write_header} BYPRODUCTS ${header} VERBATIM)
  add_dependencies(${target} tlbf_build_commit)
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
