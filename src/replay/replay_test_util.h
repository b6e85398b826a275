// Helpers shared by the replay unit tests: a small mm, a regression entry of it, scratch files,
// path results and a replay environment.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/ir/program_json.h"
#include "src/replay/replay.h"

namespace mmdiff::replay_test {

inline Program Mm(Device device = Device::kCpu) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32, device}, {"b", {3, 2}, DType::kFloat32, device}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

// A regression entry of Mm() expecting `verdict` ("agree", or "diverge": error_behaviour, eager).
inline nlohmann::json Entry(const std::string& verdict, Device device = Device::kCpu) {
  nlohmann::json x = {{"torch", ">=2.11"}, {"verdict", verdict}};
  if (verdict == "diverge") x["divergences"] = {{{"kind", "error_behaviour"}, {"blamed", "eager"}}};
  return {{"format", "mmdiff.regression"},
          {"version", 1},
          {"title", "an mm"},
          {"program", ProgramToJson(Mm(device))},
          {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
          {"paths", {"reference", "eager"}},
          {"expected", {x}}};
}

// A fresh empty folder for this test process.
inline std::string Scratch(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / ("mmdiff-replay-test-" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

inline std::string Write(const std::string& dir, const std::string& name,
                         const std::string& bytes) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A float32[2, 2] result of `path`.
inline PathResult Ok(const std::string& path, std::vector<double> data) {
  PathResult r{path, OutcomeKind::kOk};
  TensorValue t{DType::kFloat32, {2, 2}, Device::kCpu, data, std::vector<double>(data.size(), 0.0)};
  r.outputs = {t};
  return r;
}

// Fake paths: reference and eager agree on a float32[2, 2] (the paths asked for go to `ran`).
inline RunPathsFn Agreeing(std::vector<std::string>* ran = nullptr) {
  return [ran](const Program&, const InputRecipe&, const std::vector<std::string>& paths, bool) {
    if (ran) *ran = paths;
    return std::vector<PathResult>{Ok("reference", {1, 2, 3, 4}), Ok("eager", {1, 2, 3, 4})};
  };
}

// Fake paths: eager raises where the reference returns a value.
inline RunPathsFn Raising() {
  return [](const Program&, const InputRecipe&, const std::vector<std::string>&, bool) {
    PathResult e{"eager", OutcomeKind::kError, "RuntimeError", "c10::Error", "boom"};
    return std::vector<PathResult>{Ok("reference", {1, 2, 3, 4}), e};
  };
}

// torch 2.15.0 without a GPU: reference and eager available, inductor not.
inline ReplayEnvironment Env() {
  ReplayEnvironment env{"2.15.0", false, {}, false};
  env.paths = {{"reference", true}, {"eager", true}, {"inductor", false, "no C++ compiler"}};
  return env;
}

}  // namespace mmdiff::replay_test
