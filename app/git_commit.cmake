# Run at every build (cmake -P, from CMakeLists.txt's fa_git_commit target): writes OUT, a C++ file
# defining fa::build_commit(), from `git describe` of SOURCE_DIR ("-dirty" with uncommitted changes,
# "unknown" outside a git checkout). The file is rewritten only when the text changes, so a build at
# the same commit recompiles nothing. Until 2026-11-28 the commit was read at configure time and a
# build directory that was never reconfigured stamped every row with the commit it was configured at
# (build90 here: 70d17da, 68 commits stale).
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
set(text "// Generated at build time by app/git_commit.cmake; do not edit.\n#include \"build_info.h\"\n\nnamespace fa {\nconst char* build_commit() { return \"${commit}\"; }\n}  // namespace fa\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
