// Tests for the frame protocol: round trip, timeout, closed pipe, frames that are no frame.
#include "src/exec/wire.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <optional>
#include <vector>

#include "src/support/crc32c.h"

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

// The supervisor reads what a worker sends: a hostile or broken worker gets an error, never a
// crash, an allocation of what its header claims, or a string the JSON writers refuse. `checksum`:
// the body's own unless given.
void SendRaw(int fd, const std::vector<uint8_t>& body, uint32_t claimed,
             std::optional<uint32_t> checksum = std::nullopt) {
  uint32_t sum = checksum.value_or(Crc32c(body.data(), body.size()));
  uint8_t header[kFrameHeaderBytes];
  for (int i = 0; i < 4; ++i) {
    header[i] = static_cast<uint8_t>(claimed >> (8 * i));
    header[4 + i] = static_cast<uint8_t>(sum >> (8 * i));
  }
  ASSERT_EQ(write(fd, header, kFrameHeaderBytes), static_cast<ssize_t>(kFrameHeaderBytes));
  if (!body.empty()) {
    ASSERT_EQ(write(fd, body.data(), body.size()), static_cast<ssize_t>(body.size()));
  }
}

TEST(Wire, CorruptFramesAreCorruptNotCrashes) {
  Pipe p;
  SendRaw(p.fds[1], {}, 0xFFFFFFFFu);
  ReadResult huge = ReadFrame(p.fds[0], 1000);
  EXPECT_EQ(huge.state, ReadState::kCorrupt);
  EXPECT_NE(huge.error.find("exceeds the limit"), std::string::npos) << huge.error;
  Pipe q;
  SendRaw(q.fds[1], {0xC1, 0xC1}, 2);  // 0xC1 is never valid MessagePack
  ReadResult bad = ReadFrame(q.fds[0], 1000);
  EXPECT_EQ(bad.state, ReadState::kCorrupt);
  EXPECT_NE(bad.error.find("malformed"), std::string::npos) << bad.error;
}

// A frame damaged on the way (a worker's memory scribbled over by the code it runs) fails its
// checksum whichever byte changed; the next frame is read as usual.
TEST(Wire, AFlippedByteFailsTheChecksum) {
  nlohmann::json m = {{"type", "result"}, {"values", {1.5, -2.0, 3.25}}};
  std::vector<uint8_t> body = nlohmann::json::to_msgpack(m);
  for (size_t i = 0; i < body.size(); ++i) {
    Pipe p;
    std::vector<uint8_t> flipped = body;
    flipped[i] ^= 0x10;
    SendRaw(p.fds[1], flipped, static_cast<uint32_t>(flipped.size()),
            Crc32c(body.data(), body.size()));
    ASSERT_TRUE(WriteFrame(p.fds[1], m).ok());
    ReadResult r = ReadFrame(p.fds[0], 1000);
    EXPECT_EQ(r.state, ReadState::kCorrupt) << "byte " << i;
    EXPECT_NE(r.error.find("checksum"), std::string::npos) << r.error;
    ReadResult next = ReadFrame(p.fds[0], 1000);
    ASSERT_EQ(next.state, ReadState::kOk) << next.error;
    EXPECT_EQ(next.message, m);
  }
}

// The pipe's end inside a frame is a frame cut short, not a worker that ended between frames.
TEST(Wire, AFrameCutShortIsCorruptAClosedPipeIsClosed) {
  std::vector<uint8_t> body = nlohmann::json::to_msgpack({{"type", "done"}});
  for (size_t keep : {size_t{3}, kFrameHeaderBytes + body.size() / 2}) {
    Pipe p;
    std::vector<uint8_t> frame = EncodeFrame(body);
    ASSERT_EQ(write(p.fds[1], frame.data(), keep), static_cast<ssize_t>(keep));
    close(p.fds[1]);
    p.fds[1] = -1;
    ReadResult r = ReadFrame(p.fds[0], 1000);
    EXPECT_EQ(r.state, ReadState::kCorrupt) << keep << " bytes";
    EXPECT_NE(r.error.find("the pipe ended inside a frame"), std::string::npos) << r.error;
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
  EXPECT_EQ(ReadFrame(p.fds[0], 1000).state, ReadState::kCorrupt);
  EXPECT_LT(MaxRssKb() - before, 64 * 1024) << "kB of resident memory for a one-byte frame";
}

TEST(Wire, DeepNestingAndNonObjectsAreErrors) {
  Pipe p;
  std::vector<uint8_t> deep(60000, 0x91);  // [[[[...]]]]: one byte per level
  deep.push_back(0xC0);
  SendRaw(p.fds[1], deep, static_cast<uint32_t>(deep.size()));
  ReadResult r = ReadFrame(p.fds[0], 1000);
  EXPECT_EQ(r.state, ReadState::kCorrupt);
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
    EXPECT_EQ(n.state, ReadState::kCorrupt) << m.dump();
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
