// Tests for running a program with a time limit.
#include "src/support/subprocess.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "src/support/files.h"

namespace mmdiff {
namespace {

TEST(Subprocess, ExitCodeOutputAndEnvironment) {
  PrivateTempDir tmp("mmdiff-subprocess-test");
  ASSERT_TRUE(tmp.ok());
  ProcessOptions o;
  o.argv = {"sh", "-c", "echo \"out $MMDIFF_TEST_VALUE\"; echo err >&2; exit 7"};
  o.env = {"MMDIFF_TEST_VALUE=42"};
  o.output = tmp.File("log");
  ProcessResult r = RunProcess(o);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(ReadFile(tmp.File("log")).value(), "out 42\nerr\n");
}

// The child runs in the folder asked for (torch's debug files land there, not in ours), and one it
// cannot enter leaves it unstarted with exit 127.
TEST(Subprocess, TheChildRunsInTheFolderAskedFor) {
  PrivateTempDir tmp("mmdiff-subprocess-test");
  ASSERT_TRUE(tmp.ok());
  ProcessOptions o;
  o.argv = {"sh", "-c", "pwd; echo left > here.txt"};
  o.capture_stdout = true;
  o.output = tmp.File("log");
  o.cwd = tmp.path();
  ProcessResult r = RunProcess(o);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text, std::filesystem::canonical(tmp.path()).string() + "\n");
  EXPECT_EQ(ReadFile(tmp.File("here.txt")).value(), "left\n");
  o.cwd = tmp.File("missing");
  r = RunProcess(o);
  EXPECT_EQ(r.exit_code, 127);
}

TEST(Subprocess, CapturedStdoutComesBackApartFromStderrAndIsBounded) {
  PrivateTempDir tmp("mmdiff-subprocess-test");
  ASSERT_TRUE(tmp.ok());
  ProcessOptions o;
  o.argv = {"sh", "-c", "echo 123; echo err >&2"};
  o.output = tmp.File("log");
  o.capture_stdout = true;
  ProcessResult r = RunProcess(o);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text, "123\n");
  EXPECT_EQ(ReadFile(tmp.File("log")).value(), "err\n");
  // Twice the bound: the first kMaxCapturedStdout bytes are kept.
  o.argv = {"sh", "-c", "head -c " + std::to_string(2 * kMaxCapturedStdout) + " /dev/zero"};
  r = RunProcess(o);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text.size(), kMaxCapturedStdout);
}

TEST(Subprocess, ATimeOutKillsTheWholeGroup) {
  PrivateTempDir tmp("mmdiff-subprocess-test");
  ASSERT_TRUE(tmp.ok());
  ProcessOptions o;
  // A child that leaves a grandchild behind, which would write the file if it lived.
  o.argv = {"sh", "-c", "(sleep 3; echo late > " + tmp.File("late") + ") & sleep 600"};
  o.timeout_s = 0.5;
  ProcessResult r = RunProcess(o);
  ASSERT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  // Wait past the grandchild's sleep: the group was killed, so nothing is written.
  ProcessOptions wait;
  wait.argv = {"sleep", "4"};
  RunProcess(wait);
  EXPECT_FALSE(ReadFile(tmp.File("late")).ok());
}

TEST(Subprocess, AMissingProgramExits127AndNoArgvIsAnError) {
  ProcessOptions o;
  o.argv = {"/nonexistent/mmdiff-no-such-program"};
  ProcessResult r = RunProcess(o);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_FALSE(RunProcess(ProcessOptions{}).started);
}

}  // namespace
}  // namespace mmdiff
