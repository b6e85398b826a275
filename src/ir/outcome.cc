// PathResult JSON (also the worker wire format, through MessagePack; non-finite doubles survive
// there).
#include "src/ir/outcome.h"

#include <bit>
#include <cstring>

namespace mmdiff {

std::string_view OutcomeName(OutcomeKind k) {
  switch (k) {
    case OutcomeKind::kOk:
      return "ok";
    case OutcomeKind::kError:
      return "error";
    case OutcomeKind::kCrash:
      return "crash";
    case OutcomeKind::kTimeout:
      return "timeout";
    case OutcomeKind::kUnsupported:
      return "unsupported";
  }
  return "?";
}

namespace {
static_assert(std::endian::native == std::endian::little, "the wire's doubles are little-endian");

// On the wire, values travel as MessagePack binaries (8 bytes per double, little-endian; one byte
// per also-bit set): an element costs a copy, not a JSON node each way.
nlohmann::json DoublesBinary(const std::vector<double>& v) {
  nlohmann::json::binary_t::container_type b(v.size() * sizeof(double));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return nlohmann::json::binary(std::move(b));
}

// A binary as written above, or an array of numbers (a report's or an older peer's form).
Result<std::vector<double>> ReadDoubles(const nlohmann::json& j, const char* what) {
  if (j.is_binary()) {
    const auto& b = j.get_binary();
    if (b.size() % sizeof(double) != 0)
      return Status::Error(std::string("path result: \"") + what +
                           "\" is not a whole number of doubles");
    std::vector<double> v(b.size() / sizeof(double));
    if (!v.empty()) std::memcpy(v.data(), b.data(), b.size());
    return v;
  }
  if (!j.is_array()) return Status::Error(std::string("path result: bad \"") + what + "\"");
  std::vector<double> v;
  v.reserve(j.size());
  for (const auto& x : j) {
    if (!x.is_number()) return Status::Error(std::string("path result: bad \"") + what + "\"");
    v.push_back(x.get<double>());
  }
  return v;
}

Result<std::vector<uint8_t>> ReadAlso(const nlohmann::json& j) {
  std::vector<uint8_t> out;
  if (j.is_binary()) {
    out.assign(j.get_binary().begin(), j.get_binary().end());
    for (uint8_t bits : out)
      if (bits > 7) return Status::Error("path result: bad \"also\" bits");
  } else if (j.is_array()) {
    for (const auto& x : j) {
      if (!x.is_number_unsigned() || x.get<uint64_t>() > 7)
        return Status::Error("path result: bad \"also\" bits");
      out.push_back(static_cast<uint8_t>(x.get<uint64_t>()));
    }
  } else {
    return Status::Error("path result: bad \"also\" bits");
  }
  return out;
}

Result<OutcomeKind> ParseOutcome(const std::string& s) {
  for (auto k : {OutcomeKind::kOk, OutcomeKind::kError, OutcomeKind::kCrash, OutcomeKind::kTimeout,
                 OutcomeKind::kUnsupported})
    if (OutcomeName(k) == s) return k;
  return Status::Error("unknown outcome \"" + s + "\"");
}
}  // namespace

const PathResult* FindResult(const std::vector<PathResult>& results, const std::string& path) {
  for (const auto& r : results)
    if (r.path == path) return &r;
  return nullptr;
}

nlohmann::json PathResultToJson(const PathResult& r, bool wire) {
  nlohmann::json j = {{"path", r.path}, {"outcome", OutcomeName(r.kind)}, {"seconds", r.seconds}};
  if (r.kind == OutcomeKind::kError) {
    j["error_class"] = r.error_class;
    j["error_type"] = r.error_type;
  }
  if (!r.message.empty()) j["message"] = r.message;
  if (wire && r.kind == OutcomeKind::kUnsupported && r.unsupported != UnsupportedReason::kNone)
    j["unsupported_reason"] = UnsupportedReasonName(r.unsupported);
  if (!r.stage.empty()) j["stage"] = r.stage;
  if (!r.node.empty()) j["node"] = r.node;
  if (r.backward) j["backward"] = true;
  if (r.signal) j["signal"] = r.signal;
  if (r.compile.present)
    j["compile"] = {{"compiled", r.compile.compiled},
                    {"reused", r.compile.reused},
                    {"fx_cache_hits", r.compile.fx_cache_hits},
                    {"fx_cache_misses", r.compile.fx_cache_misses},
                    {"internals", r.compile.internals}};
  if (wire && r.compile.present) j["compile"]["phases"] = CompilePhasesToJson(r.compile.phases);
  if (r.kind == OutcomeKind::kOk) {
    j["outputs"] = nlohmann::json::array();
    for (const auto& t : r.outputs) {
      nlohmann::json jt = {
          {"dtype", DTypeName(t.dtype)}, {"shape", t.shape}, {"device", DeviceName(t.device)}};
      if (wire) {
        jt["data"] = DoublesBinary(t.data);
        if (!t.bound.empty()) jt["bound"] = DoublesBinary(t.bound);
        if (!t.also.empty()) jt["also"] = nlohmann::json::binary(t.also);
      }
      j["outputs"].push_back(jt);
    }
  }
  return j;
}

Result<PathResult> PathResultFromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("path") || !j.contains("outcome"))
    return Status::Error("path result needs \"path\" and \"outcome\"");
  try {
    PathResult r;
    r.path = j.at("path").get<std::string>();
    auto kind = ParseOutcome(j.at("outcome").get<std::string>());
    if (!kind.ok()) return kind.status();
    r.kind = kind.value();
    r.seconds = j.value("seconds", 0.0);
    r.error_class = j.value("error_class", "");
    r.error_type = j.value("error_type", "");
    r.message = j.value("message", "");
    if (j.contains("unsupported_reason")) {
      const auto& reason = j.at("unsupported_reason");
      if (!reason.is_string())
        return Status::Error("path result: \"unsupported_reason\" must be a string");
      auto parsed = ParseUnsupportedReason(reason.get<std::string>());
      if (!parsed.ok()) return Status::Error("path result: " + parsed.error());
      if (r.kind != OutcomeKind::kUnsupported && parsed.value() != UnsupportedReason::kNone)
        return Status::Error("path result: an unsupported reason on a result whose outcome is \"" +
                             std::string(OutcomeName(r.kind)) + "\"");
      r.unsupported = parsed.value();
    }
    r.stage = j.value("stage", "");
    r.node = j.value("node", "");
    r.backward = j.value("backward", false);
    if (r.backward && r.kind != OutcomeKind::kError)
      return Status::Error("path result: \"backward\" marks an error outcome only");
    r.signal = j.value("signal", 0);
    if (j.contains("compile")) {
      const auto& c = j.at("compile");
      r.compile.present = true;
      r.compile.compiled = c.at("compiled").get<bool>();
      r.compile.reused = c.at("reused").get<bool>();
      r.compile.fx_cache_hits = c.at("fx_cache_hits").get<int>();
      r.compile.fx_cache_misses = c.at("fx_cache_misses").get<int>();
      r.compile.internals = c.at("internals").get<std::vector<std::string>>();
      if (c.contains("phases")) {
        auto phases = CompilePhasesFromJson(c.at("phases"));
        if (!phases.ok()) return Status::Error("path result: " + phases.error());
        r.compile.phases = phases.value();
      }
    }
    if (j.contains("outputs")) {
      for (const auto& jt : j.at("outputs")) {
        TensorValue t;
        auto dt = ParseDType(jt.at("dtype").get<std::string>());
        auto dev = ParseDevice(jt.at("device").get<std::string>());
        if (!dt || !dev) return Status::Error("path result: bad dtype or device");
        t.dtype = *dt;
        t.device = *dev;
        t.shape = jt.at("shape").get<Shape>();
        if (jt.contains("data")) {
          auto data = ReadDoubles(jt.at("data"), "data");
          if (!data.ok()) return data.status();
          t.data = std::move(data.value());
        }
        if (jt.contains("bound")) {
          auto bound = ReadDoubles(jt.at("bound"), "bound");
          if (!bound.ok()) return bound.status();
          t.bound = std::move(bound.value());
        }
        if (!t.bound.empty() && t.bound.size() != t.data.size())
          return Status::Error("path result: \"bound\" and \"data\" differ in size");
        if (jt.contains("also")) {
          auto also = ReadAlso(jt.at("also"));
          if (!also.ok()) return also.status();
          t.also = std::move(also.value());
          if (t.also.size() != t.data.size())
            return Status::Error("path result: \"also\" and \"data\" differ in size");
        }
        r.outputs.push_back(std::move(t));
      }
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(std::string("path result: ") + e.what());
  }
}

}  // namespace mmdiff
