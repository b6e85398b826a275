// Autocast's op lists and the lowering of regions to explicit casts.
#include "src/ir/autocast.h"

#include <map>
#include <set>

#include "src/ir/static_types.h"

namespace mmdiff {

AutocastPolicy AutocastPolicyOf(OpKind op, Device device) {
  switch (op) {
    case OpKind::kMm:
    case OpKind::kBmm:
    case OpKind::kMatmul:
    case OpKind::kAddmm:
    case OpKind::kBaddbmm:
    case OpKind::kAddbmm:
    case OpKind::kLinear:
    case OpKind::kSdpa:
      return device == Device::kMeta ? AutocastPolicy::kNone : AutocastPolicy::kLowerPrecision;
    case OpKind::kMv:
    case OpKind::kAddmv:
      return device == Device::kCuda ? AutocastPolicy::kLowerPrecision : AutocastPolicy::kNone;
    case OpKind::kSoftmax:
      return device == Device::kCuda ? AutocastPolicy::kFloat32OptDtype : AutocastPolicy::kNone;
    case OpKind::kDot:
      return device == Device::kCuda ? AutocastPolicy::kPromote : AutocastPolicy::kNone;
    default:
      return AutocastPolicy::kNone;
  }
}

std::vector<size_t> RegionPath(const Program& p, std::optional<size_t> region) {
  std::vector<size_t> path;
  // Parents are earlier regions (the verifier checks it); the bound keeps a bad program finite.
  for (std::optional<size_t> r = region;
       r && *r < p.autocast.size() && path.size() <= p.autocast.size(); r = p.autocast[*r].parent)
    path.insert(path.begin(), *r);
  return path;
}

std::optional<DType> AutocastDType(const Program& p, const Node& n, Device device) {
  std::vector<size_t> path = RegionPath(p, n.autocast);
  for (auto r = path.rbegin(); r != path.rend(); ++r) {
    const AutocastRegion& region = p.autocast[*r];
    if (region.device != device) continue;
    if (!region.enabled) return std::nullopt;
    return region.dtype;
  }
  return std::nullopt;
}

bool UsesAutocast(const Program& p) {
  for (const auto& n : p.nodes)
    if (AutocastDType(p, n, Device::kCpu) || AutocastDType(p, n, Device::kCuda)) return true;
  return false;
}

namespace {

struct Value {
  DType dtype;
  Device device;
  bool zero_dim = false;  // a 0-d tensor (type promotion treats it apart)
};

std::string FreshName(const std::string& base, std::set<std::string>& taken) {
  std::string name = base;
  while (taken.count(name)) name += "_";
  taken.insert(name);
  return name;
}

}  // namespace

AutocastLowering LowerAutocast(const Program& p) {
  AutocastLowering out;
  Program& q = out.program;
  q.inputs = p.inputs;
  q.outputs = p.outputs;
  std::map<std::string, Value> values;
  std::set<std::string> taken;
  const std::map<std::string, StaticType> shapes = InferStaticTypes(p);
  auto zero_dim = [&](const std::string& name) {
    auto it = shapes.find(name);
    return it != shapes.end() && it->second.shape && it->second.shape->empty();
  };
  for (const auto& in : p.inputs) {
    values[in.name] = {in.dtype, in.device, in.shape.empty()};
    taken.insert(in.name);
  }
  for (const auto& n : p.nodes) taken.insert(n.name);
  for (Node n : p.nodes) {
    bool known = !n.args.empty();
    for (const auto& a : n.args) known = known && values.count(a) > 0;
    if (!known) {  // an unverified program: leave the rest as written
      n.autocast.reset();
      q.nodes.push_back(n);
      continue;
    }
    const Device device = values.at(n.args[0]).device;
    const std::optional<DType> region = AutocastDType(p, n, device);
    const AutocastPolicy policy = region ? AutocastPolicyOf(n.op, device) : AutocastPolicy::kNone;
    auto eligible = [&](const std::string& a) {
      const Value& v = values.at(a);
      return v.device == device && IsFloating(v.dtype) && v.dtype != DType::kFloat64;
    };
    std::optional<DType> target;
    if (policy == AutocastPolicy::kLowerPrecision) target = region;
    if (policy == AutocastPolicy::kFloat32OptDtype && !n.dtype && eligible(n.args[0]))
      n.dtype = DType::kFloat32;
    if (policy == AutocastPolicy::kPromote) {
      // at::autocast::prioritize: float32 wins over the region's dtype; any other floating dtype
      // (the other 16-bit one) is an error; float64 and ineligible arguments are ignored.
      DType widest = *region;
      for (const auto& a : n.args) {
        if (!eligible(a)) continue;
        DType d = values.at(a).dtype;
        if (d == DType::kFloat32 || widest == DType::kFloat32) {
          widest = DType::kFloat32;
        } else if (d != *region) {
          out.error_node = n.name;
          out.error = "Unexpected floating ScalarType in at::autocast::prioritize";
          return out;
        }
      }
      target = widest;
    }
    if (target) {
      for (size_t i = 0; i < n.args.size(); ++i) {
        if (!eligible(n.args[i]) || values.at(n.args[i]).dtype == *target) continue;
        Node cast;
        cast.name = FreshName(n.name + "_ac" + std::to_string(i), taken);
        cast.op = OpKind::kCast;
        cast.args = {n.args[i]};
        cast.dtype = *target;
        values[cast.name] = {*target, device, values.at(n.args[i]).zero_dim};
        n.args[i] = cast.name;
        q.nodes.push_back(std::move(cast));
      }
    }
    n.autocast.reset();
    std::vector<DType> dtypes;
    std::vector<bool> zero;
    for (const auto& a : n.args) {
      dtypes.push_back(values.at(a).dtype);
      zero.push_back(values.at(a).zero_dim);
    }
    Value v{ResultDType(n, dtypes, zero).value_or(dtypes[0]), device, zero_dim(n.name)};
    if (n.op == OpKind::kToDevice && n.device) v.device = *n.device;
    values[n.name] = v;
    q.nodes.push_back(std::move(n));
  }
  return out;
}

}  // namespace mmdiff
