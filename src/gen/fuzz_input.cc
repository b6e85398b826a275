// The program fuzzer's input decoding (see fuzz_input.h).
#include "src/gen/fuzz_input.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "src/ir/program_json.h"
#include "src/ir/verifier.h"
#include "src/support/json_limits.h"

namespace mmdiff {

namespace {

Program PlainMm() {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32}, {"b", {3, 2}, DType::kFloat32}};
  Node mm;
  mm.name = "v0";
  mm.op = OpKind::kMm;
  mm.args = {"a", "b"};
  p.nodes = {mm};
  p.outputs = {"v0"};
  return p;
}

// The case in `bytes` when they are one; else nullopt, and `why` says why not.
std::optional<GeneratedCase> ReadCase(std::string_view bytes, std::string& why) {
  auto parsed = ParseJsonBounded(bytes);
  if (!parsed.ok()) {
    Status limits = CheckJsonLimits(bytes);
    why = limits.ok() ? "not JSON" : "not JSON: " + limits.message();
    return std::nullopt;
  }
  const nlohmann::json& j = parsed.value();
  if (!j.is_object() || !j.contains("program")) {
    why = "JSON without a \"program\"";
    return std::nullopt;
  }
  auto p = ProgramFromJson(j["program"]);
  if (!p.ok()) {
    why = "program: " + p.error();
    return std::nullopt;
  }
  auto r = j.contains("inputs") ? RecipeFromJson(j["inputs"]) : Result<InputRecipe>(InputRecipe{});
  if (!r.ok()) {
    why = "inputs: " + r.error();
    return std::nullopt;
  }
  if (Status s = Verify(p.value()); !s.ok()) {
    why = "program: " + s.message();
    return std::nullopt;
  }
  return GeneratedCase{p.value(), r.value()};
}

}  // namespace

std::string_view FuzzInputKindName(FuzzInputKind k) {
  switch (k) {
    case FuzzInputKind::kEmpty:
      return "empty input";
    case FuzzInputKind::kCase:
      return "case JSON";
    case FuzzInputKind::kChoices:
      return "generator bytes";
  }
  return "?";
}

FuzzInput DecodeFuzzInput(std::string_view bytes, const GenPolicy& policy) {
  FuzzInput in;
  if (bytes.empty()) {
    in.gc = {PlainMm(), InputRecipe{"grid16", 0}};
    return in;
  }
  if (auto c = ReadCase(bytes, in.not_a_case)) {  // parsed once: this runs for every fuzzer input
    in.kind = FuzzInputKind::kCase;
    in.gc = *std::move(c);
    return in;
  }
  in.kind = FuzzInputKind::kChoices;
  ByteChoices choices(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                      /*fallback_seed=*/bytes.size());
  in.gc = GenerateCase(choices, policy);
  return in;
}

std::string EncodeFuzzCase(const Program& p, const InputRecipe& r) {
  return nlohmann::json{{"program", ProgramToJson(p)}, {"inputs", RecipeToJson(r)}}.dump();
}

}  // namespace mmdiff
