// The dimension-shrinking pass.
#include "src/reduce/shrink_dims.h"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "src/reduce/program_edits.h"

namespace mmdiff {

namespace {

void ReplaceIn(int64_t& v, int64_t from, int64_t to) {
  if (v == from) v = to;
}

// The distinct input sizes above 1, largest first.
std::vector<int64_t> SizeClasses(const Program& p) {
  std::set<int64_t, std::greater<>> sizes;
  for (const auto& in : p.inputs)
    for (int64_t d : in.shape)
      if (d > 1) sizes.insert(d);
  return {sizes.begin(), sizes.end()};
}

// 1, half, one less: distinct, between 1 and size - 1.
std::vector<int64_t> Targets(int64_t size) {
  std::vector<int64_t> out;
  for (int64_t t : {int64_t{1}, size / 2, size - 1})
    if (t >= 1 && t < size && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  return out;
}

}  // namespace

Program ReplaceSize(const Program& p, int64_t from, int64_t to) {
  Program out = p;
  for (auto& in : out.inputs)
    for (auto& d : in.shape) ReplaceIn(d, from, to);
  for (auto& n : out.nodes) {
    switch (n.op) {
      case OpKind::kReshape:
      case OpKind::kView:
      case OpKind::kExpand:
      case OpKind::kFull:
        for (auto& v : n.ints) ReplaceIn(v, from, to);
        break;
      case OpKind::kNarrow:
        if (n.ints.size() == 3) ReplaceIn(n.ints[2], from, to);
        break;
      case OpKind::kSlice:
        if (n.ints.size() == 4) ReplaceIn(n.ints[2], from, to);
        break;
      default:
        break;
    }
  }
  return out;
}

bool ShrinkDims(ReduceSession& s) {
  bool kept = false;
  for (int64_t size : SizeClasses(s.program())) {
    bool shrunk = true;
    while (shrunk && !s.exhausted()) {
      shrunk = false;
      const std::set<std::string> valid = ShapeValidNodes(s.program());
      for (int64_t to : Targets(size)) {
        Program candidate = ReplaceSize(s.program(), size, to);
        if (ShapeValidNodes(candidate) != valid) {
          s.SkipInvalid();
          continue;
        }
        if (s.Try(candidate,
                  "size " + std::to_string(size) + " -> " + std::to_string(to) + " everywhere")) {
          kept = shrunk = true;
          size = to;
          break;
        }
        if (s.exhausted()) break;
      }
    }
  }
  return kept;
}

}  // namespace mmdiff
