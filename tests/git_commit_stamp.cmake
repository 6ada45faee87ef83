# Test of app/git_commit.cmake (cmake -P, from tests/CMakeLists.txt; WORK = a scratch folder, SCRIPT = the
# stamp script): the commit a build stamps follows the checkout without a reconfigure, a build at the same
# commit leaves the generated file untouched (nothing recompiles), "-dirty" marks uncommitted changes, and
# outside a git checkout the stamp is "unknown".
function(fail what)
  message(FATAL_ERROR "git_commit.cmake: ${what}")
endfunction()
function(git)
  execute_process(COMMAND git -c user.email=t@example.com -c user.name=t ${ARGN} WORKING_DIRECTORY ${repo}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    fail("git ${ARGN} failed")
  endif()
endfunction()
function(head out)
  execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${repo} OUTPUT_VARIABLE h
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(${out} ${h} PARENT_SCOPE)
endfunction()
function(stamp source_dir out)  # runs the script as the build does; returns the commit it wrote
  set(SOURCE_DIR ${source_dir})
  set(OUT ${out})
  include(${SCRIPT})
  file(READ ${out} text)
  string(REGEX MATCH "return \"([^\"]*)\"" _ "${text}")
  set(commit ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

set(repo ${WORK}/repo)
set(gen ${WORK}/git_commit.cpp)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${repo})
git(init -q)
file(WRITE ${repo}/a.txt "one\n")
git(add a.txt)
git(commit -q -m one)
head(first)
stamp(${repo} ${gen})
if(NOT commit STREQUAL first)
  fail("the first commit: got '${commit}', want '${first}'")
endif()

# Same commit: the file is not rewritten (its old time stays), so ninja's restat recompiles nothing.
execute_process(COMMAND touch -d "2001-01-01 00:00:00" ${gen})
stamp(${repo} ${gen})
file(TIMESTAMP ${gen} when "%Y")
if(NOT when STREQUAL 2001)
  fail("an unchanged commit rewrote the file (time ${when})")
endif()

# A new commit, no reconfigure: the next build stamps it.
file(WRITE ${repo}/a.txt "two\n")
git(commit -q -a -m two)
head(second)
stamp(${repo} ${gen})
if(NOT commit STREQUAL second)
  fail("after a commit: got '${commit}', want '${second}'")
endif()

# An uncommitted change to a tracked file: "-dirty".
file(WRITE ${repo}/a.txt "three\n")
stamp(${repo} ${gen})
if(NOT commit STREQUAL "${second}-dirty")
  fail("a modified tree: got '${commit}', want '${second}-dirty'")
endif()

# No checkout at all (git stops looking at WORK, which may sit inside fa-bench's own checkout).
set(ENV{GIT_CEILING_DIRECTORIES} ${WORK})
file(MAKE_DIRECTORY ${WORK}/plain)
stamp(${WORK}/plain ${gen})
if(NOT commit STREQUAL unknown)
  fail("outside a checkout: got '${commit}', want 'unknown'")
endif()
message(STATUS "git_commit.cmake: the stamp follows the checkout")
