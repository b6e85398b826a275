// Tests for file helpers: atomic write round-trip and clear errors.
#include "src/support/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

namespace mmdiff {
namespace {

TEST(Files, AtomicWriteRoundTripsAndLeavesNoTempFile) {
  auto dir =
      std::filesystem::temp_directory_path() / ("mmdiff_files_test_" + std::to_string(getpid()));
  std::string path = (dir / "sub" / "a.txt").string();
  ASSERT_TRUE(WriteFileAtomic(path, "hello").ok());
  ASSERT_TRUE(WriteFileAtomic(path, "world").ok());
  auto r = ReadFile(path);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value(), "world");
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir / "sub")) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(Files, MissingFileGivesClearError) {
  auto r = ReadFile("/nonexistent/mmdiff/x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("no such file"), std::string::npos);
}

TEST(Files, UnwritableFolderIsReported) {
  if (geteuid() == 0) GTEST_SKIP() << "running as root: permissions are not enforced";
  auto dir = std::filesystem::temp_directory_path() / ("mmdiff_ro_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  chmod(dir.c_str(), 0500);
  EXPECT_FALSE(MakeWritableDir(dir.string()).ok());
  chmod(dir.c_str(), 0700);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mmdiff
