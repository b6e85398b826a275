// Tests for the frame protocol: round trip, timeout, closed pipe, corrupt length.
#include "src/exec/wire.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace mmdiff {
namespace {

struct Pipe {
  int fds[2];
  Pipe() { EXPECT_EQ(pipe(fds), 0); }
  ~Pipe() {
    close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
  }
};

TEST(Wire, RoundTrip) {
  Pipe p;
  nlohmann::json m = {{"type", "result"}, {"values", {1.5, -2.0}}};
  ASSERT_TRUE(WriteFrame(p.fds[1], m).ok());
  ReadResult r = ReadFrame(p.fds[0], 1000);
  ASSERT_EQ(r.state, ReadState::kOk);
  EXPECT_EQ(r.message, m);
}

TEST(Wire, TimeoutAndClose) {
  Pipe p;
  EXPECT_EQ(ReadFrame(p.fds[0], 50).state, ReadState::kTimeout);
  close(p.fds[1]);
  p.fds[1] = -1;
  EXPECT_EQ(ReadFrame(p.fds[0], 1000).state, ReadState::kClosed);
}

TEST(Wire, CorruptFramesAreErrorsNotCrashes) {
  Pipe p;
  uint8_t huge[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  ASSERT_EQ(write(p.fds[1], huge, 4), 4);
  EXPECT_EQ(ReadFrame(p.fds[0], 1000).state, ReadState::kError);
  Pipe q;
  uint8_t bad[6] = {2, 0, 0, 0, 0xC1, 0xC1};  // 0xC1 is never valid MessagePack
  ASSERT_EQ(write(q.fds[1], bad, 6), 6);
  EXPECT_EQ(ReadFrame(q.fds[0], 1000).state, ReadState::kError);
}

}  // namespace
}  // namespace mmdiff
