// Tests for finding the torch venvs scripts/setup made.
#include "src/releases/release_venvs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/support/files.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

TEST(ReleaseVenvs, ComparesReleasesNumberByNumber) {
  EXPECT_LT(CompareTorchVersions("2.9.0", "2.11.0"), 0);
  EXPECT_GT(CompareTorchVersions("2.14.1", "2.14.0"), 0);
  EXPECT_EQ(CompareTorchVersions("2.11.0+cu130", "2.11.0"), 0);
  EXPECT_EQ(CompareTorchVersions("2.11", "2.11.0"), 0);
  EXPECT_LT(CompareTorchVersions("2.15.0", "3.0.0"), 0);
  // Text that is not a version (a hostile releases.json) counts as 0.0.0, whatever its length.
  EXPECT_LT(CompareTorchVersions("12345678901.0", "2.11.0"), 0);
  EXPECT_EQ(CompareTorchVersions("banana", "0.0"), 0);
}

TEST(ReleaseVenvs, PythonMajorMinor) {
  EXPECT_EQ(PythonMajorMinor("3.11.2"), "3.11");
  EXPECT_EQ(PythonMajorMinor("3.12"), "3.12");
}

void MakeVenv(const fs::path& dir, bool complete) {
  fs::create_directories(dir / "bin");
  std::ofstream(dir / "bin" / "python") << "";
  if (complete) std::ofstream(dir / ".mmdiff-complete") << "";
}

TEST(ReleaseVenvs, FindsCompleteVenvsOfThisPythonNewestFirst) {
  PrivateTempDir tmp("mmdiff-venvs-test");
  ASSERT_TRUE(tmp.ok());
  fs::path cache(tmp.path());
  MakeVenv(cache / "venv-torch-2.11.0-py3.11", true);
  MakeVenv(cache / "venv-torch-2.15.0-py3.11", true);
  MakeVenv(cache / "venv-torch-2.9.1-py3.11", true);
  MakeVenv(cache / "venv-torch-2.13.0-py3.11", false);  // a set-up that did not finish
  MakeVenv(cache / "venv-torch-2.14.1-py3.12", true);   // another Python
  MakeVenv(cache / "venv-torch-evil;x-py3.11", true);   // not a version
  auto found = FindReleaseVenvs(cache.string(), "3.11");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].torch, "2.15.0");
  EXPECT_EQ(found[1].torch, "2.11.0");
  EXPECT_EQ(found[2].torch, "2.9.1");
  EXPECT_EQ(found[1].python, (cache / "venv-torch-2.11.0-py3.11" / "bin" / "python").string());

  EXPECT_TRUE(FindReleaseVenv(cache.string(), "2.11.0", "3.11").ok());
  auto missing = FindReleaseVenv(cache.string(), "2.13.0", "3.11");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("MMDIFF_TORCH=2.13.0 scripts/setup --venv-only"),
            std::string::npos)
      << missing.status().message();
  EXPECT_FALSE(FindReleaseVenv(cache.string(), "../x", "3.11").ok());
  EXPECT_TRUE(FindReleaseVenvs((cache / "nowhere").string(), "3.11").empty());
}

}  // namespace
}  // namespace mmdiff
