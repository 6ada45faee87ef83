#pragma once

namespace fa {

// The commit this binary was built from (`git describe --always --dirty --abbrev=12`, "unknown"
// outside a checkout), read at build time, not configure time: every CSV row, --version and --schema
// carry it. Defined in the build directory's generated git_commit.cpp (app/git_commit.cmake).
const char* build_commit();

}  // namespace fa
