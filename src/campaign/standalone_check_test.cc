// Tests for the standalone check's reading of repro.py runs and its one-line summary.
#include "src/campaign/standalone_check.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TEST(StandaloneCheck, ARunCountsTheAttemptThatShowedTheFinding) {
  // Exit 1 at the second attempt: two attempts, one hit.
  EXPECT_EQ(ReproAttempts("attempt 1 of 3: no difference; trying again\n"
                          "attempt 2 of 3: the finding shows\nTraceback ...",
                          1, 3),
            (std::pair<int, int>{2, 1}));
  // Exit 1 without attempt lines (a script with one attempt): the first.
  EXPECT_EQ(ReproAttempts("eager:    ...\nAssertionError", 1, 1), (std::pair<int, int>{1, 1}));
  // Exit 0: every attempt, none showed it; exit 3 or a crash: none ran to a comparison.
  EXPECT_EQ(ReproAttempts("attempt 1 of 3: no difference; trying again\n", 0, 3),
            (std::pair<int, int>{3, 0}));
  EXPECT_EQ(ReproAttempts("REPRODUCER FAILED: ...", 3, 3), (std::pair<int, int>{0, 0}));
  EXPECT_EQ(ReproAttempts("attempt 99999999999 of 3: the finding shows", 1, 3),
            (std::pair<int, int>{1, 1}));  // a hostile number is not read
  // Exit 1 from a script of three attempts that never printed the line: Python's status for an
  // uncaught error (the GPU busy, a torch that cannot import), not the finding.
  EXPECT_EQ(
      ReproAttempts("Traceback (most recent call last):\n...\nRuntimeError: CUDA error", 1, 3),
      (std::pair<int, int>{0, 0}));
}

TEST(StandaloneCheck, TheLastLineOfAnOutputIsShortAndPrintable) {
  EXPECT_EQ(LastLine("Traceback ...\nRuntimeError: CUDA error\n\n  \n"),
            "RuntimeError: CUDA error");
  EXPECT_EQ(LastLine("one line"), "one line");
  EXPECT_EQ(LastLine(" \n\t"), "");
  EXPECT_EQ(LastLine("x\n" + std::string(300, 'a')), std::string(200, 'a'));
  EXPECT_EQ(LastLine("bell\x07\xff"), "bell?\xEF\xBF\xBD");  // a control byte, then not UTF-8
}

TEST(StandaloneCheck, TheLineSaysWhetherAndHowOftenItShowed) {
  EXPECT_EQ(StandaloneLine({2, 2, 1, 1, 1, "x"}), "reproduced standalone (3 of 3 runs)");
  EXPECT_EQ(StandaloneLine({2, 1, 2, 1, 1, "x"}), "shows only some of the time: 2 of 4 runs");
  EXPECT_EQ(StandaloneLine({2, 2, 3, 0, 0, "repro.py exit 0"}),
            "not reproduced standalone: repro.py exit 0");
  EXPECT_EQ(StandaloneLine({0, 0, 0, 0, -1, "the campaign was stopping"}),
            "not checked standalone: the campaign was stopping");
}

}  // namespace
}  // namespace mmdiff
