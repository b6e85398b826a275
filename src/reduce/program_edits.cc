// Structural program edits for reduction.
#include "src/reduce/program_edits.h"

#include <algorithm>
#include <optional>

#include "src/gen/mutator.h"

namespace mmdiff {

namespace {

// Nodes that some output depends on (directly or through other nodes).
std::set<std::string> LiveNodes(const Program& p) {
  std::set<std::string> live(p.outputs.begin(), p.outputs.end());
  for (auto it = p.nodes.rbegin(); it != p.nodes.rend(); ++it)
    if (live.count(it->name)) live.insert(it->args.begin(), it->args.end());
  return live;
}

void AddUnique(std::vector<std::string>& list, const std::string& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

}  // namespace

bool SameStaticType(const StaticTypes& types, const std::string& a, const std::string& b) {
  auto ia = types.find(a), ib = types.find(b);
  if (ia == types.end() || ib == types.end()) return false;
  return ia->second.shape && ia->second.shape == ib->second.shape &&
         ia->second.dtype == ib->second.dtype;
}

Program Tidy(Program p) {
  p = Legalize(std::move(p));
  std::set<std::string> live = LiveNodes(p);
  std::erase_if(p.nodes, [&](const Node& n) { return !live.count(n.name); });
  // Legalize again drops the inputs that only dead nodes read.
  return Legalize(std::move(p));
}

void ReplaceUses(Program& p, const std::string& from, const std::string& to) {
  for (auto& n : p.nodes)
    for (auto& a : n.args)
      if (a == from) a = to;
  for (auto& o : p.outputs)
    if (o == from) o = to;
}

std::vector<std::string> Substitutes(const Program& p, const StaticTypes& types,
                                     const std::string& name) {
  std::vector<std::string> out;
  auto at =
      std::find_if(p.nodes.begin(), p.nodes.end(), [&](const Node& n) { return n.name == name; });
  if (at == p.nodes.end()) return out;
  for (const auto& a : at->args)
    if (SameStaticType(types, a, name)) AddUnique(out, a);
  for (const auto& in : p.inputs)
    if (SameStaticType(types, in.name, name)) AddUnique(out, in.name);
  for (auto it = p.nodes.begin(); it != at; ++it)
    if (SameStaticType(types, it->name, name)) AddUnique(out, it->name);
  for (const auto& a : at->args) AddUnique(out, a);
  return out;
}

Program Bypass(const Program& p, const std::string& name, const std::string& replacement) {
  Program out = p;
  std::erase_if(out.nodes, [&](const Node& n) { return n.name == name; });
  ReplaceUses(out, name, replacement);
  return Tidy(std::move(out));
}

Program RemoveNodes(const Program& p, const StaticTypes& types,
                    const std::set<std::string>& names) {
  // Each removed node's substitute, resolved in program order so that chains of removed nodes
  // reach a surviving value (or none).
  std::map<std::string, std::optional<std::string>> substitute;
  for (const auto& n : p.nodes) {
    if (!names.count(n.name)) continue;
    std::optional<std::string> found;
    for (const auto& a : n.args) {
      if (!SameStaticType(types, a, n.name)) continue;
      auto s = substitute.find(a);
      if (s == substitute.end()) {
        found = a;
        break;
      }
      if (s->second) {
        found = s->second;
        break;
      }
    }
    substitute[n.name] = found;
  }
  Program out = p;
  std::erase_if(out.nodes, [&](const Node& n) { return names.count(n.name) > 0; });
  for (const auto& [gone, sub] : substitute)
    if (sub) ReplaceUses(out, gone, *sub);
  // Uses without a substitute still name the removed node: Legalize drops those users in turn.
  return Tidy(std::move(out));
}

Program KeepOnlyOutput(const Program& p, const std::string& name) {
  Program out = p;
  out.outputs = {name};
  return Tidy(std::move(out));
}

std::set<std::string> ShapeValidNodes(const Program& p) {
  std::set<std::string> out;
  StaticTypes types = InferStaticTypes(p);
  for (const auto& n : p.nodes) {
    auto it = types.find(n.name);
    if (it != types.end() && it->second.shape) out.insert(n.name);
  }
  return out;
}

}  // namespace mmdiff
