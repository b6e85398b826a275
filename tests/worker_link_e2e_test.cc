// The worker shares libtorch's libstdc++ instead of carrying a copy of its own: with a private copy
// (a compiler that ships only libstdc++.a), its std::locale interposes on the shared library's and
// the worker aborts at its first request ("free(): invalid pointer"), as it did on the GPU
// machine's toolchain (cmake/shared_libstdcxx.cmake).
#include <gtest/gtest.h>

#include "tests/e2e_util.h"

namespace mmdiff::e2e {
namespace {

TEST(WorkerLinkE2E, TheWorkerNeedsTheSharedLibstdcxx) {
  CommandResult r = RunShell("readelf -d '" + WorkerBinary() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[libstdc++.so.6]"), std::string::npos)
      << WorkerBinary() << " does not load the shared libstdc++ (linked a static copy?):\n"
      << r.output;
  CommandResult defs =
      RunShell("nm -C --defined-only '" + WorkerBinary() + "' | grep -c ' T std::locale::~locale'");
  EXPECT_EQ(defs.output, "0\n") << WorkerBinary() << " defines std::locale's destructor itself";
}

}  // namespace
}  // namespace mmdiff::e2e
