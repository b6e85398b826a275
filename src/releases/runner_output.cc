// Reading a release runner's JSON lines.
#include "src/releases/runner_output.h"

#include <cstring>
#include <sstream>

#include "src/support/json_guard.h"
#include "src/support/json_limits.h"

namespace mmdiff {

namespace {

constexpr int64_t kMaxElements = int64_t{1} << 26;

Result<std::vector<double>> HexDoubles(const std::string& hex, int64_t numel) {
  if (hex.size() != static_cast<size_t>(numel) * 16)
    return Status::Error("\"data\" holds " + std::to_string(hex.size() / 16) +
                         " values where the shape has " + std::to_string(numel));
  std::vector<double> out(static_cast<size_t>(numel));
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned char bytes[8];
    for (size_t b = 0; b < 8; ++b) {
      int hi = nibble(hex[i * 16 + b * 2]), lo = nibble(hex[i * 16 + b * 2 + 1]);
      if (hi < 0 || lo < 0) return Status::Error("\"data\" is not lower-case hex");
      bytes[b] = static_cast<unsigned char>(hi * 16 + lo);
    }
    uint64_t bits = 0;
    for (int b = 7; b >= 0; --b) bits = (bits << 8) | bytes[b];  // little-endian
    std::memcpy(&out[i], &bits, sizeof bits);
  }
  return out;
}

Result<TensorValue> ReadTensor(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("an output is not an object");
  TensorValue t;
  auto dtype = ParseDType(StringField(j, "dtype"));
  if (!dtype) return Status::Error("unknown dtype '" + StringField(j, "dtype") + "'");
  t.dtype = *dtype;
  auto device = ParseDevice(StringField(j, "device"));
  if (!device) return Status::Error("unknown device '" + StringField(j, "device") + "'");
  t.device = *device;
  if (!j.contains("shape") || !j["shape"].is_array() || j["shape"].size() > 8)
    return Status::Error("\"shape\" is not a list of at most 8 sizes");
  int64_t numel = 1;
  for (const auto& d : j["shape"]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > kMaxElements)
      return Status::Error("a size in \"shape\" is not a count");
    t.shape.push_back(d.get<int64_t>());
    numel *= t.shape.back();
    if (numel > kMaxElements) return Status::Error("the shape has too many elements");
  }
  if (t.device == Device::kMeta) {
    if (j.contains("data")) return Status::Error("a meta tensor has \"data\"");
    return t;
  }
  auto data = HexDoubles(StringField(j, "data"), numel);
  if (!data.ok()) return data.status();
  t.data = std::move(data.value());
  return t;
}

Result<PathResult> ReadResult(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) return Status::Error("not an object");
  PathResult r;
  r.path = StringField(j, "path");
  if (r.path != path) return Status::Error("path '" + r.path + "' where " + path + " was next");
  std::string outcome = StringField(j, "outcome");
  if (j.contains("seconds") && j["seconds"].is_number()) r.seconds = j["seconds"].get<double>();
  if (outcome == "error") {
    r.kind = OutcomeKind::kError;
    r.error_class = StringField(j, "error_class");
    r.error_type = StringField(j, "error_type");
    r.message = StringField(j, "message");
    r.node = StringField(j, "node");
    r.backward = BoolField(j, "backward", false);
    if (r.error_class.empty()) return Status::Error("an error without \"error_class\"");
    return r;
  }
  if (outcome == "unsupported") {  // the release lacks what the path needs
    r.kind = OutcomeKind::kUnsupported;
    r.unsupported = UnsupportedReason::kUnavailable;
    r.message = StringField(j, "message");
    return r;
  }
  if (outcome != "ok") return Status::Error("unknown outcome '" + outcome + "'");
  r.kind = OutcomeKind::kOk;
  if (!j.contains("outputs") || !j["outputs"].is_array())
    return Status::Error("\"outputs\" is not a list");
  for (const auto& o : j["outputs"]) {
    auto t = ReadTensor(o);
    if (!t.ok()) return t.status();
    r.outputs.push_back(std::move(t.value()));
  }
  return r;
}

}  // namespace

Result<RunnerOutput> ParseRunnerOutput(const std::string& text,
                                       const std::vector<std::string>& paths) {
  RunnerOutput out;
  size_t start = 0, line_no = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) break;  // cut off mid-line: the runner died writing it
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    auto parsed = ParseJsonBounded(line);
    auto where = [&](const std::string& what) {
      return Status::Error("runner output line " + std::to_string(line_no) + ": " + what);
    };
    if (!parsed.ok()) return where(parsed.status().message());
    const nlohmann::json& j = parsed.value();
    if (line_no == 1) {
      out.torch = StringField(j, "torch");
      out.python = StringField(j, "python");
      if (out.torch.empty()) return where("the header names no torch version");
      continue;
    }
    if (out.results.size() >= paths.size()) return where("more results than paths");
    auto r = GuardJson("result", [&] { return ReadResult(j, paths[out.results.size()]); });
    if (!r.ok()) return where(r.status().message());
    out.results.push_back(std::move(r.value()));
  }
  if (line_no == 0) return Status::Error("the runner wrote nothing");
  return out;
}

}  // namespace mmdiff
