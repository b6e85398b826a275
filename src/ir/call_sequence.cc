// Call sequences.
#include "src/ir/call_sequence.h"

#include <map>
#include <string>

#include "src/ir/verifier.h"

namespace mmdiff {

PriorCall PriorCallOf(const Program& p, const InputRecipe& r) {
  PriorCall c;
  c.recipe = r;
  for (const auto& in : p.inputs) c.shapes.push_back(in.shape);
  return c;
}

Result<Program> PriorCallProgram(const Program& p, const PriorCall& c) {
  if (c.shapes.size() != p.inputs.size())
    return Status::Error("it has " + std::to_string(c.shapes.size()) + " input shapes for " +
                         std::to_string(p.inputs.size()) + " inputs");
  Program q = p;
  for (size_t i = 0; i < q.inputs.size(); ++i) {
    if (c.shapes[i].size() != q.inputs[i].shape.size())
      return Status::Error("input " + q.inputs[i].name + " has rank " +
                           std::to_string(q.inputs[i].shape.size()) + ", the call's shape " +
                           ShapeString(c.shapes[i]));
    q.inputs[i].shape = c.shapes[i];
  }
  // (Its function is p's: a function names no input size; sizes written into views stay.)
  if (Status v = Verify(q); !v.ok()) return Status::Error("with its shapes: " + v.message());
  return q;
}

nlohmann::json PriorCallsToJson(const std::vector<PriorCall>& calls) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : calls)
    out.push_back({{"shapes", c.shapes}, {"inputs", RecipeToJson(c.recipe)}});
  return out;
}

Result<std::vector<PriorCall>> PriorCallsFromJson(const nlohmann::json& j, const Program& p) {
  std::vector<PriorCall> out;
  if (j.is_null()) return out;
  if (!j.is_array()) return Status::Error("\"calls_before\" must be an array of calls");
  if (j.size() > kMaxPriorCalls)
    return Status::Error("\"calls_before\" holds " + std::to_string(j.size()) + " calls; at most " +
                         std::to_string(kMaxPriorCalls) + " are read");
  for (size_t k = 0; k < j.size(); ++k) {
    const std::string where = "calls_before[" + std::to_string(k) + "]";
    const auto& call = j[k];
    if (!call.is_object() || !call.contains("shapes") || !call["shapes"].is_array())
      return Status::Error(where + ": \"shapes\" must be an array of shapes");
    PriorCall c;
    for (const auto& s : call["shapes"]) {
      if (!s.is_array()) return Status::Error(where + ": each shape must be an array of integers");
      Shape shape;
      for (const auto& d : s) {
        if (!d.is_number_integer())
          return Status::Error(where + ": each shape must be an array of integers");
        shape.push_back(d.get<int64_t>());
      }
      c.shapes.push_back(std::move(shape));
    }
    auto recipe = RecipeFromJson(call.contains("inputs") ? call["inputs"] : nlohmann::json());
    if (!recipe.ok()) return Status::Error(where + ": inputs: " + recipe.error());
    c.recipe = recipe.value();
    if (auto q = PriorCallProgram(p, c); !q.ok()) return Status::Error(where + ": " + q.error());
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<std::vector<PriorCall>> CarryPriorCalls(const Program& original,
                                                      const std::vector<PriorCall>& before,
                                                      const Program& candidate) {
  std::vector<PriorCall> out;
  for (const auto& call : before) {
    if (call.shapes.size() != original.inputs.size()) return std::nullopt;
    std::map<int64_t, int64_t> sizes;  // the original's size -> the call's
    for (size_t i = 0; i < call.shapes.size(); ++i) {
      const Shape& from = original.inputs[i].shape;
      if (from.size() != call.shapes[i].size()) return std::nullopt;
      for (size_t d = 0; d < from.size(); ++d) {
        auto [at, added] = sizes.emplace(from[d], call.shapes[i][d]);
        if (!added && at->second != call.shapes[i][d]) return std::nullopt;
      }
    }
    PriorCall carried{{}, call.recipe};
    for (const auto& in : candidate.inputs) {
      Shape s = in.shape;
      for (auto& d : s)
        if (auto it = sizes.find(d); it != sizes.end()) d = it->second;
      carried.shapes.push_back(std::move(s));
    }
    if (!PriorCallProgram(candidate, carried).ok()) return std::nullopt;
    out.push_back(std::move(carried));
  }
  return out;
}

}  // namespace mmdiff
