#include "src/exec/worker_folder.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

bool HasEntry(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST(WorkerFolder, TemporaryFolderIsPrivateAndRemovedWithWhatItHolds) {
  std::string path;
  {
    WorkerFolder folder;
    auto got = folder.Get("");
    ASSERT_TRUE(got.ok()) << got.error();
    path = got.value();
    EXPECT_TRUE(fs::path(path).is_absolute());
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_EQ(folder.Get("").value(), path);  // the same folder for every worker it starts
    fs::create_directories(fs::path(path) / "sub");
    fs::create_symlink("/", fs::path(path) / "root-link");  // removed, not followed
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(WorkerFolder, WantedFolderIsMadeAbsoluteCreatedAndKept) {
  fs::path base = fs::temp_directory_path() / ("mmdiff-wf-test-" + std::to_string(getpid()));
  fs::remove_all(base);
  fs::create_directories(base);
  fs::path before = fs::current_path();
  fs::current_path(base);
  {
    WorkerFolder folder;
    auto got = folder.Get("campaign/worker-files");
    ASSERT_TRUE(got.ok()) << got.error();
    EXPECT_EQ(got.value(), (base / "campaign/worker-files").string());
  }
  fs::current_path(before);
  EXPECT_TRUE(fs::is_directory(base / "campaign/worker-files"));
  std::ofstream(base / "file") << "x";
  WorkerFolder not_a_folder;
  EXPECT_FALSE(not_a_folder.Get((base / "file").string()).ok());
  fs::remove_all(base);
}

TEST(WorkerFolder, RelativePathVariablesBecomeAbsolute) {
  std::string here = fs::current_path().string();
  setenv("TORCHINDUCTOR_CACHE_DIR", "rel/cache", 1);
  setenv("MMDIFF_AOTI_DIR", "/abs/aoti", 1);
  setenv("PYTHONPATH", "a:b", 1);
  setenv("MMDIFF_WF_OTHER", "rel/other", 1);
  std::vector<std::string> env = WorkerEnvironment();
  EXPECT_TRUE(HasEntry(env, "TORCHINDUCTOR_CACHE_DIR=" + here + "/rel/cache"));
  EXPECT_TRUE(HasEntry(env, "MMDIFF_AOTI_DIR=/abs/aoti"));
  EXPECT_TRUE(HasEntry(env, "PYTHONPATH=a:b"));             // a list is left as it is
  EXPECT_TRUE(HasEntry(env, "MMDIFF_WF_OTHER=rel/other"));  // not a path variable
  for (const char* v :
       {"TORCHINDUCTOR_CACHE_DIR", "MMDIFF_AOTI_DIR", "PYTHONPATH", "MMDIFF_WF_OTHER"})
    unsetenv(v);
}

}  // namespace
}  // namespace mmdiff
