// Tests for the frame protocol: round trip, timeout, closed pipe, corrupt length.
#include "src/exec/wire.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <vector>

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

// The supervisor reads what a worker sends: a hostile or broken worker gets an error, never a
// crash, an allocation of what its header claims, or a string the JSON writers refuse.
void SendRaw(int fd, const std::vector<uint8_t>& body, uint32_t claimed) {
  uint8_t header[4] = {static_cast<uint8_t>(claimed), static_cast<uint8_t>(claimed >> 8),
                       static_cast<uint8_t>(claimed >> 16), static_cast<uint8_t>(claimed >> 24)};
  ASSERT_EQ(write(fd, header, 4), 4);
  if (!body.empty()) {
    ASSERT_EQ(write(fd, body.data(), body.size()), static_cast<ssize_t>(body.size()));
  }
}

long MaxRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(Wire, AClaimedLengthCostsOnlyTheBytesThatArrive) {
  Pipe p;
  long before = MaxRssKb();
  SendRaw(p.fds[1], {0x80}, kMaxFrameBytes);  // 512 MiB claimed, one byte sent
  close(p.fds[1]);
  p.fds[1] = -1;
  EXPECT_EQ(ReadFrame(p.fds[0], 1000).state, ReadState::kClosed);
  EXPECT_LT(MaxRssKb() - before, 64 * 1024) << "kB of resident memory for a one-byte frame";
}

TEST(Wire, DeepNestingAndNonObjectsAreErrors) {
  Pipe p;
  std::vector<uint8_t> deep(60000, 0x91);  // [[[[...]]]]: one byte per level
  deep.push_back(0xC0);
  SendRaw(p.fds[1], deep, static_cast<uint32_t>(deep.size()));
  ReadResult r = ReadFrame(p.fds[0], 1000);
  EXPECT_EQ(r.state, ReadState::kError);
  EXPECT_NE(r.error.find("nested deeper"), std::string::npos) << r.error;
  // As deep as the limit allows, inside a map: read.
  std::vector<uint8_t> ok = {0x81, 0xA1, 'a'};
  ok.insert(ok.end(), kMaxFrameDepth - 1, 0x91);
  ok.push_back(0xC0);
  SendRaw(p.fds[1], ok, static_cast<uint32_t>(ok.size()));
  EXPECT_EQ(ReadFrame(p.fds[0], 1000).state, ReadState::kOk);
  for (const nlohmann::json& m :
       {nlohmann::json::array({1, 2}), nlohmann::json(7), nlohmann::json("hello")}) {
    ASSERT_TRUE(WriteFrame(p.fds[1], m).ok());
    ReadResult n = ReadFrame(p.fds[0], 1000);
    EXPECT_EQ(n.state, ReadState::kError) << m.dump();
    EXPECT_NE(n.error.find("not an object"), std::string::npos) << n.error;
  }
}

TEST(Wire, StringsAreMadeValidUtf8) {
  Pipe p;
  // {"message": "tail \xE2\x82"}: a string cut inside a character.
  std::vector<uint8_t> body = {0x81, 0xA7, 'm', 'e', 's', 's', 'a',  'g', 'e',
                               0xA7, 't',  'a', 'i', 'l', ' ', 0xE2, 0x82};
  SendRaw(p.fds[1], body, static_cast<uint32_t>(body.size()));
  ReadResult r = ReadFrame(p.fds[0], 1000);
  ASSERT_EQ(r.state, ReadState::kOk) << r.error;
  EXPECT_EQ(r.message["message"], "tail \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_NO_THROW(r.message.dump());
}

}  // namespace
}  // namespace mmdiff
