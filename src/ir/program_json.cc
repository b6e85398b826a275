// Program <-> JSON.
#include "src/ir/program_json.h"

#include <cmath>
#include <limits>

#include "src/ir/verifier.h"
#include "src/support/format_version.h"
#include "src/support/json_guard.h"
#include "src/support/json_limits.h"

namespace mmdiff {

using nlohmann::json;

json ProgramToJson(const Program& p) {
  json j;
  j["format"] = "mmdiff.program";
  j["version"] = kProgramFormatVersion;
  j["inputs"] = json::array();
  for (const auto& i : p.inputs) {
    j["inputs"].push_back({{"name", i.name},
                           {"shape", i.shape},
                           {"dtype", DTypeName(i.dtype)},
                           {"device", DeviceName(i.device)},
                           {"layout", LayoutName(i.layout)}});
    if (i.requires_grad) j["inputs"].back()["requires_grad"] = true;
    if (IsWeight(i)) j["inputs"].back()["role"] = InputRoleName(i.role);  // absent: an input
  }
  j["nodes"] = json::array();
  for (const auto& n : p.nodes) {
    json jn = {{"name", n.name}, {"op", GetOpSpec(n.op).name}, {"args", n.args}};
    if (n.dtype) jn["dtype"] = DTypeName(*n.dtype);
    if (GetOpSpec(n.op).has_ints) jn["ints"] = n.ints;
    if (GetOpSpec(n.op).has_alpha_beta) {
      jn["alpha"] = n.alpha;
      jn["beta"] = n.beta;
    }
    // JSON has no infinities: a fill value of +-inf is written "inf" or "-inf".
    if (HasScalar(n.op))
      jn["alpha"] = std::isinf(n.alpha) ? json(n.alpha > 0 ? "inf" : "-inf") : json(n.alpha);
    if (n.device) jn["device"] = DeviceName(*n.device);
    if (n.method_spelling) jn["spelling"] = "method";
    if (n.op == OpKind::kSdpa) {
      jn["is_causal"] = n.is_causal;
      jn["enable_gqa"] = n.enable_gqa;
      if (n.scale) jn["scale"] = *n.scale;
    }
    if (n.op == OpKind::kDropout) {
      jn["p"] = n.dropout_p;
      jn["train"] = n.train;
    }
    if (n.op == OpKind::kGelu) jn["approximate"] = n.gelu_tanh ? "tanh" : "none";
    if (n.op == OpKind::kClamp) {  // its bounds, kept in alpha and beta
      jn["min"] = n.alpha;
      jn["max"] = n.beta;
    }
    if (n.autocast) jn["autocast"] = *n.autocast;
    j["nodes"].push_back(jn);
  }
  j["outputs"] = p.outputs;
  if (!p.autocast.empty()) {
    j["autocast"] = json::array();
    for (const auto& r : p.autocast) {
      json jr = {{"device_type", DeviceName(r.device)},
                 {"dtype", DTypeName(r.dtype)},
                 {"enabled", r.enabled}};
      if (r.parent) jr["parent"] = *r.parent;
      j["autocast"].push_back(jr);
    }
  }
  return j;
}

namespace {

Result<std::string> GetString(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string())
    return Status::Error(where + ": field \"" + key + "\" must be a string");
  return j[key].get<std::string>();
}

// A string field mapped through a parser (ParseDType, ParseDevice, ...); `what` names it in errors.
template <typename Parse>
auto GetParsed(const json& j, const char* key, const std::string& where, Parse parse,
               const char* what)
    -> Result<typename decltype(parse(std::string_view()))::value_type> {
  auto text = GetString(j, key, where);
  if (!text.ok()) return text.status();
  auto v = parse(text.value());
  if (!v) return Status::Error(where + ": unknown " + what + " \"" + text.value() + "\"");
  return *v;
}

Result<InputSpec> InputFromJson(const json& j, size_t idx) {
  std::string where = "inputs[" + std::to_string(idx) + "]";
  InputSpec in;
  auto name = GetString(j, "name", where);
  if (!name.ok()) return name.status();
  in.name = name.value();
  where += " (" + in.name + ")";
  if (!j.contains("shape") || !j["shape"].is_array())
    return Status::Error(where + ": field \"shape\" must be an array of integers");
  for (const auto& d : j["shape"]) {
    if (!d.is_number_integer()) return Status::Error(where + ": shape entries must be integers");
    in.shape.push_back(d.get<int64_t>());
  }
  auto dtype = GetParsed(j, "dtype", where, ParseDType, "dtype");
  if (!dtype.ok()) return dtype.status();
  in.dtype = dtype.value();
  auto device = GetParsed(j, "device", where, ParseDevice, "device");
  if (!device.ok()) return device.status();
  in.device = device.value();
  if (j.contains("layout")) {
    auto layout = GetParsed(j, "layout", where, ParseLayout, "layout");
    if (!layout.ok()) return layout.status();
    in.layout = layout.value();
  }
  if (j.contains("requires_grad")) {
    if (!j["requires_grad"].is_boolean())
      return Status::Error(where + ": \"requires_grad\" must be true or false");
    in.requires_grad = j["requires_grad"].get<bool>();
  }
  if (j.contains("role")) {
    auto role = GetParsed(j, "role", where, ParseInputRole, "role");
    if (!role.ok()) return role.status();
    in.role = role.value();
  }
  return in;
}

// A region index: a non-negative integer (the verifier checks that it names a region).
Result<std::optional<size_t>> GetRegionIndex(const json& j, const char* key,
                                             const std::string& where) {
  if (!j.contains(key)) return std::optional<size_t>();
  if (!j[key].is_number_unsigned() || j[key].get<uint64_t>() > kMaxAutocastRegions)
    return Status::Error(where + ": \"" + key + "\" must be an autocast region's index");
  return std::optional<size_t>(j[key].get<uint64_t>());
}

Result<AutocastRegion> RegionFromJson(const json& j, size_t idx) {
  std::string where = "autocast[" + std::to_string(idx) + "]";
  if (!j.is_object()) return Status::Error(where + ": a region must be an object");
  AutocastRegion r;
  auto device = GetParsed(j, "device_type", where, ParseDevice, "device type");
  if (!device.ok()) return device.status();
  r.device = device.value();
  auto dtype = GetParsed(j, "dtype", where, ParseDType, "dtype");
  if (!dtype.ok()) return dtype.status();
  r.dtype = dtype.value();
  if (!j.contains("enabled") || !j["enabled"].is_boolean())
    return Status::Error(where + ": \"enabled\" must be true or false");
  r.enabled = j["enabled"].get<bool>();
  auto parent = GetRegionIndex(j, "parent", where);
  if (!parent.ok()) return parent.status();
  r.parent = parent.value();
  return r;
}

Result<Node> NodeFromJson(const json& j, size_t idx) {
  std::string where = "nodes[" + std::to_string(idx) + "]";
  Node n;
  auto name = GetString(j, "name", where);
  if (!name.ok()) return name.status();
  n.name = name.value();
  where += " (" + n.name + ")";
  auto kind = GetParsed(j, "op", where, ParseOpKind, "op");
  if (!kind.ok()) return kind.status();
  n.op = kind.value();
  if (!j.contains("args") || !j["args"].is_array())
    return Status::Error(where + ": field \"args\" must be an array of value names");
  for (const auto& a : j["args"]) {
    if (!a.is_string()) return Status::Error(where + ": args must be strings");
    n.args.push_back(a.get<std::string>());
  }
  if (j.contains("dtype")) {
    auto dtype = GetParsed(j, "dtype", where, ParseDType, "dtype");
    if (!dtype.ok()) return dtype.status();
    n.dtype = dtype.value();
  }
  if (j.contains("ints")) {
    if (!j["ints"].is_array())
      return Status::Error(where + ": \"ints\" must be an array of integers");
    for (const auto& x : j["ints"]) {
      if (!x.is_number_integer())
        return Status::Error(where + ": \"ints\" must be an array of integers");
      n.ints.push_back(x.get<int64_t>());
    }
  }
  for (const char* key : {"alpha", "beta", "scale"}) {
    if (!j.contains(key)) continue;
    const bool infinite = std::string(key) == "alpha" && (j[key] == "inf" || j[key] == "-inf");
    if (!j[key].is_number() && !infinite)
      return Status::Error(where + ": \"" + key + "\" must be a number" +
                           (std::string(key) == "alpha" ? " (or \"inf\", \"-inf\")" : ""));
    const double inf = std::numeric_limits<double>::infinity();
    double v = infinite ? (j[key] == "inf" ? inf : -inf) : j[key].get<double>();
    if (std::string(key) == "scale")
      n.scale = v;
    else
      (std::string(key) == "alpha" ? n.alpha : n.beta) = v;
  }
  if (j.contains("approximate")) {
    if (j["approximate"] != "none" && j["approximate"] != "tanh")
      return Status::Error(where + ": \"approximate\" must be \"none\" or \"tanh\"");
    n.gelu_tanh = j["approximate"] == "tanh";
  }
  // clamp's bounds; the verifier checks that only clamp has them (in alpha and beta).
  for (const char* key : {"min", "max"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number()) return Status::Error(where + ": \"" + key + "\" must be a number");
    (std::string(key) == "min" ? n.alpha : n.beta) = j[key].get<double>();
  }
  if (j.contains("p")) {
    if (!j["p"].is_number()) return Status::Error(where + ": \"p\" must be a number");
    n.dropout_p = j["p"].get<double>();
  }
  if (j.contains("train")) {
    if (!j["train"].is_boolean()) return Status::Error(where + ": \"train\" must be true or false");
    n.train = j["train"].get<bool>();
  }
  for (const char* key : {"is_causal", "enable_gqa"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_boolean())
      return Status::Error(where + ": \"" + key + "\" must be true or false");
    (std::string(key) == "is_causal" ? n.is_causal : n.enable_gqa) = j[key].get<bool>();
  }
  if (j.contains("spelling")) {
    if (j["spelling"] != "method" && j["spelling"] != "to")
      return Status::Error(where + ": \"spelling\" must be \"method\" or \"to\"");
    n.method_spelling = j["spelling"] == "method";
  }
  if (j.contains("device")) {
    auto device = GetParsed(j, "device", where, ParseDevice, "device");
    if (!device.ok()) return device.status();
    n.device = device.value();
  }
  auto region = GetRegionIndex(j, "autocast", where);
  if (!region.ok()) return region.status();
  n.autocast = region.value();
  return n;
}

}  // namespace

namespace {
Result<Program> ProgramFromJsonUnguarded(const json& j) {
  if (!j.is_object()) return Status::Error("a program must be a JSON object");
  if (j.value("format", "") != "mmdiff.program")
    return Status::Error("not an mmdiff program: \"format\" must be \"mmdiff.program\"");
  if (auto v = ReadFormatVersion(j, "program", kProgramFormatVersion, kProgramFormatVersion);
      !v.ok())
    return v.status();
  Program p;
  for (const char* key : {"inputs", "nodes", "outputs"})
    if (!j.contains(key) || !j[key].is_array())
      return Status::Error(std::string("program: field \"") + key + "\" must be an array");
  for (size_t i = 0; i < j["inputs"].size(); ++i) {
    auto in = InputFromJson(j["inputs"][i], i);
    if (!in.ok()) return in.status();
    p.inputs.push_back(std::move(in).value());
  }
  for (size_t i = 0; i < j["nodes"].size(); ++i) {
    auto n = NodeFromJson(j["nodes"][i], i);
    if (!n.ok()) return n.status();
    p.nodes.push_back(std::move(n).value());
  }
  for (const auto& o : j["outputs"]) {
    if (!o.is_string()) return Status::Error("program: outputs must be value names");
    p.outputs.push_back(o.get<std::string>());
  }
  if (j.contains("autocast")) {
    if (!j["autocast"].is_array())
      return Status::Error("program: field \"autocast\" must be an array of regions");
    if (j["autocast"].size() > kMaxAutocastRegions)
      return Status::Error("program: more than " + std::to_string(kMaxAutocastRegions) +
                           " autocast regions");
    for (size_t i = 0; i < j["autocast"].size(); ++i) {
      auto r = RegionFromJson(j["autocast"][i], i);
      if (!r.ok()) return r.status();
      p.autocast.push_back(r.value());
    }
  }
  return p;
}
}  // namespace

Result<Program> ProgramFromJson(const json& j) {
  return GuardJson("program", [&] { return ProgramFromJsonUnguarded(j); });
}

namespace {
Result<Program> ProgramFromDocumentUnguarded(const json& doc) {
  // A report or regression entry embeds the program under "program".
  bool embedded =
      doc.is_object() && doc.contains("program") && doc.value("format", "") != "mmdiff.program";
  auto p = ProgramFromJson(embedded ? doc["program"] : doc);
  if (!p.ok()) return p;
  Status s = Verify(p.value());
  if (!s.ok()) return s;
  return p;
}
}  // namespace

Result<Program> ProgramFromDocument(const json& j) {
  return GuardJson("program", [&] { return ProgramFromDocumentUnguarded(j); });
}

Result<Program> ParseProgramText(const std::string& text) {
  auto parsed = ParseJsonBounded(text);
  if (!parsed.ok()) return parsed.status();
  return ProgramFromDocument(parsed.value());
}

}  // namespace mmdiff
