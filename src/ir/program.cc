// Program lookups and summaries.
#include "src/ir/program.h"

#include <map>
#include <set>

namespace mmdiff {

std::string_view LayoutName(Layout l) {
  return l == Layout::kContiguous ? "contiguous" : "transposed";
}

std::optional<Layout> ParseLayout(std::string_view name) {
  if (name == "contiguous") return Layout::kContiguous;
  if (name == "transposed") return Layout::kTransposed;
  return std::nullopt;
}

std::string_view InputRoleName(InputRole r) {
  switch (r) {
    case InputRole::kInput:
      return "input";
    case InputRole::kParameter:
      return "parameter";
    case InputRole::kBuffer:
      return "buffer";
  }
  return "input";
}

std::optional<InputRole> ParseInputRole(std::string_view name) {
  for (InputRole r : {InputRole::kInput, InputRole::kParameter, InputRole::kBuffer})
    if (name == InputRoleName(r)) return r;
  return std::nullopt;
}

const InputSpec* Program::FindInput(const std::string& name) const {
  for (const auto& i : inputs)
    if (i.name == name) return &i;
  return nullptr;
}

const Node* Program::FindNode(const std::string& name) const {
  for (const auto& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

bool HasWeights(const Program& p) {
  for (const auto& i : p.inputs)
    if (IsWeight(i)) return true;
  return false;
}

std::vector<size_t> ForwardInputs(const Program& p) {
  std::vector<size_t> out;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (!IsWeight(p.inputs[i])) out.push_back(i);
  return out;
}

std::vector<size_t> WeightOperandInputs(const Program& p) {
  std::set<size_t> out;
  auto trace = [&](std::string name) {
    for (const Node* n = p.FindNode(name); n && !n->args.empty(); n = p.FindNode(name)) {
      if (!IsView(n->op) && n->op != OpKind::kCast && n->op != OpKind::kToDevice) return;
      name = n->args[0];
    }
    for (size_t i = 0; i < p.inputs.size(); ++i)
      if (p.inputs[i].name == name) out.insert(i);
  };
  for (const auto& n : p.nodes) {
    std::vector<size_t> at;
    switch (n.op) {
      case OpKind::kLinear:
        at = {1, 2};
        break;
      case OpKind::kMm:
      case OpKind::kBmm:
      case OpKind::kMatmul:
      case OpKind::kMv:
        at = {1};
        break;
      case OpKind::kAddmm:
      case OpKind::kAddmv:
      case OpKind::kBaddbmm:
      case OpKind::kAddbmm:
        at = {0, 2};
        break;
      default:
        break;
    }
    for (size_t a : at)
      if (a < n.args.size()) trace(n.args[a]);
  }
  return {out.begin(), out.end()};
}

bool Trains(const Program& p) {
  for (const auto& i : p.inputs)
    if (i.requires_grad) return true;
  return false;
}

std::vector<size_t> GradientInputs(const Program& p) {
  std::vector<size_t> out;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (p.inputs[i].requires_grad) out.push_back(i);
  return out;
}

std::string ResultName(const Program& p, size_t i) {
  if (i < p.outputs.size()) return p.outputs[i];
  std::vector<size_t> grads = GradientInputs(p);
  size_t g = i - p.outputs.size();
  return g < grads.size() ? "grad(" + p.inputs[grads[g]].name + ")" : "result " + std::to_string(i);
}

std::string Program::Summary() const {
  std::map<std::string, std::string> text;
  for (const auto& i : inputs) {
    std::string dims = ShapeString(i.shape);
    // A weight is named by its role: linear(float32[8,32], parameter float32[64,32]).
    text[i.name] = (IsWeight(i) ? std::string(InputRoleName(i.role)) + " " : std::string()) +
                   std::string(DTypeName(i.dtype)) + dims +
                   (i.device != Device::kCpu ? "@" + std::string(DeviceName(i.device)) : "");
  }
  std::string out;
  for (const auto& n : nodes) {
    std::string call = std::string(GetOpSpec(n.op).name) + "(";
    for (size_t a = 0; a < n.args.size(); ++a) {
      if (a) call += ", ";
      auto it = text.find(n.args[a]);
      call += it == text.end() ? n.args[a] : it->second;
    }
    if (n.dtype) call += std::string(n.args.empty() ? "" : ", ") + std::string(DTypeName(*n.dtype));
    call += ")";
    text[n.name] = call;
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (o) out += "; ";
    auto it = text.find(outputs[o]);
    out += it == text.end() ? outputs[o] : it->second;
  }
  std::string grads;
  for (size_t g : GradientInputs(*this)) grads += (grads.empty() ? "" : ", ") + inputs[g].name;
  if (!grads.empty()) out += "; backward to " + grads;
  return out;
}

}  // namespace mmdiff
