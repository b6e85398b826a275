// Node-dropping passes.
#include "src/reduce/ddmin.h"

#include <algorithm>

#include "src/reduce/program_edits.h"

namespace mmdiff {

bool ReduceOutputs(ReduceSession& s) {
  bool kept = false;
  for (size_t i = 0;
       s.program().outputs.size() > 1 && i < s.program().outputs.size() && !s.exhausted(); ++i) {
    std::string o = s.program().outputs[i];
    if (s.Try(KeepOnlyOutput(s.program(), o), "kept only output " + o)) kept = true;
  }
  for (size_t i = 0;
       s.program().outputs.size() > 1 && i < s.program().outputs.size() && !s.exhausted();) {
    Program candidate = s.program();
    std::string o = candidate.outputs[i];
    candidate.outputs.erase(candidate.outputs.begin() + static_cast<long>(i));
    if (s.Try(Tidy(std::move(candidate)), "dropped output " + o))
      kept = true;
    else
      ++i;
  }
  return kept;
}

bool TruncateAfterNode(ReduceSession& s) {
  bool kept = false;
  for (size_t i = 0; i < s.program().nodes.size() && !s.exhausted(); ++i) {
    std::string name = s.program().nodes[i].name;
    if (s.program().outputs == std::vector<std::string>{name}) continue;
    if (s.Try(KeepOnlyOutput(s.program(), name), "made " + name + " the only output")) {
      kept = true;
      // The program shrank around the new output; start again from its first node.
      i = static_cast<size_t>(-1);
    }
  }
  return kept;
}

bool RemoveNodeChunks(ReduceSession& s) {
  bool kept = false;
  size_t chunk = std::max<size_t>(s.program().nodes.size() / 2, 1);
  while (!s.exhausted()) {
    for (size_t start = 0; start < s.program().nodes.size() && !s.exhausted();) {
      const Program& p = s.program();
      size_t end = std::min(start + chunk, p.nodes.size());
      std::set<std::string> names;
      for (size_t i = start; i < end; ++i) names.insert(p.nodes[i].name);
      std::string what = "removed " + std::to_string(names.size()) + " node(s) " +
                         p.nodes[start].name +
                         (end - start > 1 ? ".." + p.nodes[end - 1].name : "");
      if (s.Try(RemoveNodes(p, InferStaticTypes(p), names), what))
        kept = true;  // the same start now names the nodes after the removed chunk
      else
        start = end;
    }
    if (chunk == 1) break;
    chunk = std::max<size_t>(chunk / 2, 1);
  }
  return kept;
}

bool BypassNodes(ReduceSession& s) {
  bool kept = false;
  for (size_t i = 0; i < s.program().nodes.size() && !s.exhausted(); ++i) {
    const Program p = s.program();
    const std::string name = p.nodes[i].name;
    for (const auto& sub : Substitutes(p, InferStaticTypes(p), name)) {
      if (s.Try(Bypass(p, name, sub), "removed " + name + ", its uses now read " + sub)) {
        kept = true;
        i = static_cast<size_t>(-1);  // indices moved: start again
        break;
      }
      if (s.exhausted()) break;
    }
  }
  return kept;
}

}  // namespace mmdiff
