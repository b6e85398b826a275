// Worker request loop.
#include "src/exec/worker_loop.h"

#include <chrono>

#include "src/exec/path_info.h"
#include "src/exec/wire.h"
#include "src/ir/program_json.h"
#include "src/ir/verifier.h"

namespace mmdiff {

namespace {

class PipeStages : public StageReporter {
 public:
  PipeStages(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void Stage(const std::string& stage) override {
    WriteFrame(fd_, {{"type", "stage"}, {"path", path_}, {"stage", stage}});
  }

 private:
  int fd_;
  std::string path_;
};

Backend* FindBackend(std::vector<std::unique_ptr<Backend>>& backends, const std::string& name) {
  for (auto& b : backends)
    if (b->name() == name) return b.get();
  return nullptr;
}

void HandleRun(int out_fd, const nlohmann::json& req,
               std::vector<std::unique_ptr<Backend>>& backends) {
  auto prog = ProgramFromJson(req.value("program", nlohmann::json()));
  Status valid = prog.ok() ? Verify(prog.value()) : prog.status();
  auto recipe = RecipeFromJson(req.value("recipe", nlohmann::json()));
  if (!valid.ok() || !recipe.ok()) {
    WriteFrame(out_fd,
               {{"type", "error"}, {"message", valid.ok() ? recipe.error() : valid.message()}});
    return;
  }
  // A fresh request: no path keeps what it compiled for earlier calls (src/ir/call_sequence.h).
  if (req.contains("fresh") && req["fresh"].is_boolean() && req["fresh"].get<bool>())
    for (auto& b : backends) b->Forget();
  for (const auto& name_json : req.value("paths", nlohmann::json::array())) {
    std::string name = name_json.is_string() ? name_json.get<std::string>() : "?";
    PathResult r;
    Backend* b = FindBackend(backends, name);
    auto start = std::chrono::steady_clock::now();
    if (!b) {
      r = PathResult{name, OutcomeKind::kUnsupported};
      r.unsupported = UnsupportedReason::kUnknownPath;
      r.message = "no such path in this worker";
    } else if (std::string why = b->Unavailable(); !why.empty()) {
      r = PathResult{name, OutcomeKind::kUnsupported};
      r.unsupported = UnsupportedReason::kUnavailable;
      r.message = why;
    } else {
      PipeStages stages(out_fd, name);
      stages.Stage("start");
      r = b->Run(prog.value(), recipe.value(), stages);
      r.path = name;
      if (r.kind != OutcomeKind::kUnsupported) r.unsupported = UnsupportedReason::kNone;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WriteFrame(out_fd, {{"type", "result"}, {"result", PathResultToJson(r, /*with_data=*/true)}});
  }
  WriteFrame(out_fd, {{"type", "done"}});
}

}  // namespace

int RunWorkerLoop(int in_fd, int out_fd, std::vector<std::unique_ptr<Backend>>& backends,
                  const nlohmann::json& versions) {
  while (true) {
    ReadResult req = ReadFrame(in_fd, -1);
    if (req.state == ReadState::kClosed) return 0;
    if (req.state != ReadState::kOk) return 2;
    std::string type = req.message.is_object() ? req.message.value("type", "") : "";
    if (type == "exit") return 0;
    if (type == "hello") {
      nlohmann::json paths = nlohmann::json::array();
      for (auto& b : backends) {
        std::string why = b->Unavailable();
        paths.push_back(PathInfoToJson({b->name(), why.empty(), why, b->traits()}));
      }
      WriteFrame(out_fd, {{"type", "hello"}, {"versions", versions}, {"paths", paths}});
    } else if (type == "run") {
      HandleRun(out_fd, req.message, backends);
    } else {
      WriteFrame(out_fd, {{"type", "error"}, {"message", "unknown request type \"" + type + "\""}});
    }
  }
}

}  // namespace mmdiff
