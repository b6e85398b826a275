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

TEST(ReleaseVenvs, WantedReleasesResolveOnceNewestFirstAndAMissingOneIsSetUpByTheScriptGiven) {
  PrivateTempDir tmp("mmdiff-venvs-test");
  ASSERT_TRUE(tmp.ok());
  fs::path cache = fs::path(tmp.path()) / "cache";
  MakeVenv(cache / "venv-torch-2.9.1-py3.11", true);
  MakeVenv(cache / "venv-torch-2.15.0-py3.11", true);
  auto got = ResolveReleaseVenvs(cache.string(), "3.11", {"2.9.1", "2.15.0", "2.9.1"});
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got.value().size(), 2u);
  EXPECT_EQ(got.value()[0].torch, "2.15.0");
  EXPECT_EQ(got.value()[1].torch, "2.9.1");
  // Without a set-up script a missing release is an error saying how to make it.
  auto missing = ResolveReleaseVenvs(cache.string(), "3.11", {"2.13.0"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("scripts/setup --venv-only"), std::string::npos);
  // A set-up script (in scripts/setup's place) is run with MMDIFF_TORCH and --venv-only.
  const std::string setup = tmp.File("setup");
  std::ofstream(setup) << "[ \"$1\" = --venv-only ] || exit 9\n"
                       << "d=" << cache.string() << "/venv-torch-$MMDIFF_TORCH-py3.11\n"
                       << "mkdir -p $d/bin && touch $d/bin/python $d/.mmdiff-complete\n";
  auto made = ResolveReleaseVenvs(cache.string(), "3.11", {"2.13.0"}, setup);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_EQ(made.value()[0].torch, "2.13.0");
  // A script that fails is an error naming the release; no script at all says so.
  std::ofstream(tmp.File("fails")) << "exit 1\n";
  auto failed = ResolveReleaseVenvs(cache.string(), "3.11", {"2.12.0"}, tmp.File("fails"));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("failed for torch 2.12.0"), std::string::npos);
  auto none = ResolveReleaseVenvs(cache.string(), "3.11", {"2.12.0"}, tmp.File("nowhere"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no " + tmp.File("nowhere")), std::string::npos);
}

}  // namespace
}  // namespace mmdiff
