// Program lookups and summaries.
#include "src/ir/program.h"

#include <map>

namespace mmdiff {

std::string_view LayoutName(Layout l) {
  return l == Layout::kContiguous ? "contiguous" : "transposed";
}

std::optional<Layout> ParseLayout(std::string_view name) {
  if (name == "contiguous") return Layout::kContiguous;
  if (name == "transposed") return Layout::kTransposed;
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

std::string Program::Summary() const {
  std::map<std::string, std::string> text;
  for (const auto& i : inputs) {
    std::string dims = ShapeString(i.shape);
    text[i.name] = std::string(DTypeName(i.dtype)) + dims +
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
  return out;
}

}  // namespace mmdiff
