// A stand-in worker for the tests of worker faults (worker_fault_e2e_test.cc): it starts the real
// mmdiff-worker and relays its frames both ways, spoiling one of them as a broken worker would.
//
//   MMDIFF_WORKER=build/relay_worker MMDIFF_RELAY_WORKER=build/mmdiff-worker
//   MMDIFF_RELAY_MODE=flip mmdiff run case.json
//
// MMDIFF_RELAY_MODE (the reply it spoils is the first frame the worker sends after a run request,
// unless said otherwise):
//   truncate      half the frame, then the relay exits (a worker dying while it writes)
//   flip          16 bytes of the body flipped, the header as sent (memory scribbled over)
//   oversize      a header claiming more than kMaxFrameBytes
//   stall         nothing more, ever (a worker stuck before it acknowledges the request)
//   wrong_type    a "hello" instead of the frame
//   duplicate     the first result frame sent twice
//   stderr_flood  64 MiB on stderr before the frame, which then goes as sent
//   die_at_start  exits at once with a line on stderr, before the real worker starts
//   kill_on_run   after the first result frame of run request MMDIFF_RELAY_AT (default 1), the
//                 real worker is killed and the relay exits (a case that kills its worker)
// MMDIFF_RELAY_ONCE=FILE spoils only where FILE does not exist yet (and creates it): the first
// worker to spoil is the only one, so a restarted worker is a good one.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "src/exec/wire.h"

namespace {

using mmdiff::ReadFrame;
using mmdiff::ReadResult;
using mmdiff::ReadState;
using mmdiff::WriteFrame;

std::string Env(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

// Whether this relay may spoil: always, or once across all relays (MMDIFF_RELAY_ONCE).
bool MaySpoil() {
  std::string once = Env("MMDIFF_RELAY_ONCE");
  if (once.empty()) return true;
  int fd = open(once.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return false;
  close(fd);
  return true;
}

void WriteRaw(const std::vector<uint8_t>& bytes, size_t n) {
  size_t at = 0;
  while (at < n) {
    ssize_t w = write(1, bytes.data() + at, n - at);
    if (w <= 0) _exit(1);
    at += static_cast<size_t>(w);
  }
}

// The frame WriteFrame would send for `m`.
std::vector<uint8_t> Encode(const nlohmann::json& m) {
  return mmdiff::EncodeFrame(nlohmann::json::to_msgpack(m));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = Env("MMDIFF_RELAY_MODE");
  if (mode == "die_at_start") {
    std::fprintf(stderr, "relay_worker: dying at start-up, as a broken install would\n");
    return 1;
  }
  const std::string real = Env("MMDIFF_RELAY_WORKER");
  if (real.empty()) {
    std::fprintf(stderr, "relay_worker: MMDIFF_RELAY_WORKER names no worker\n");
    return 2;
  }
  int to[2], from[2];
  if (pipe(to) != 0 || pipe(from) != 0) return 2;
  pid_t child = fork();
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the real worker goes with the relay
    dup2(to[0], 0);
    dup2(from[1], 1);
    close(to[0]);
    close(to[1]);
    close(from[0]);
    close(from[1]);
    std::vector<char*> args{const_cast<char*>(real.c_str())};
    for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    execv(real.c_str(), args.data());
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  std::atomic<int> runs{0};  // run requests forwarded
  // The supervisor's requests go to the worker as they are.
  std::thread([&] {
    for (;;) {
      ReadResult r = ReadFrame(0, -1);
      if (r.state != ReadState::kOk) break;
      if (r.message.value("type", "") == "run") ++runs;
      if (!WriteFrame(to[1], r.message).ok()) break;
    }
    close(to[1]);
  }).detach();
  const int at = std::atoi(Env("MMDIFF_RELAY_AT", "1").c_str());
  bool spoiled = false;
  int answered = 0;  // the run request whose reply was seen last
  for (;;) {
    ReadResult r = ReadFrame(from[0], -1);
    if (r.state != ReadState::kOk) break;
    std::vector<uint8_t> frame = Encode(r.message);
    const bool first_reply = runs.load() > answered;
    if (first_reply) answered = runs.load();
    const bool result = r.message.value("type", "") == "result";
    const bool due = !spoiled && runs.load() > 0 &&
                     (mode == "duplicate"     ? result
                      : mode == "kill_on_run" ? result && answered == at
                                              : first_reply);
    if (!due || !MaySpoil()) {
      WriteRaw(frame, frame.size());
      continue;
    }
    spoiled = true;
    if (mode == "truncate") {
      WriteRaw(frame, frame.size() / 2);
      kill(child, SIGKILL);
      return 1;
    } else if (mode == "flip") {
      for (size_t i = 0; i < 16; ++i) {
        size_t pos =
            mmdiff::kFrameHeaderBytes + (i * 7919) % (frame.size() - mmdiff::kFrameHeaderBytes);
        frame[pos] ^= 0xA5;
      }
      WriteRaw(frame, frame.size());
    } else if (mode == "oversize") {
      std::vector<uint8_t> header(mmdiff::kFrameHeaderBytes, 0xFF);
      WriteRaw(header, header.size());
    } else if (mode == "stall") {
      for (;;) pause();
    } else if (mode == "wrong_type") {
      std::vector<uint8_t> hello = Encode({{"type", "hello"}, {"paths", nlohmann::json::array()}});
      WriteRaw(hello, hello.size());
    } else if (mode == "duplicate") {
      WriteRaw(frame, frame.size());
      WriteRaw(frame, frame.size());
    } else if (mode == "stderr_flood") {
      std::string line(1023, 'x');
      line += '\n';
      for (int i = 0; i < 64 * 1024; ++i)
        if (write(2, line.data(), line.size()) < 0) break;
      WriteRaw(frame, frame.size());
    } else if (mode == "kill_on_run") {
      WriteRaw(frame, frame.size());
      kill(child, SIGKILL);
      return 1;
    } else {
      std::fprintf(stderr, "relay_worker: unknown MMDIFF_RELAY_MODE \"%s\"\n", mode.c_str());
      kill(child, SIGKILL);
      return 2;
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
