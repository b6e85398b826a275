// DType tables.
#include "src/ir/dtype.h"

#include <array>

namespace mmdiff {

namespace {
struct DTypeInfo {
  DType dtype;
  std::string_view name;
  bool floating;
  double unit_roundoff;
  double max_finite;
  double min_subnormal;  // smallest positive subnormal (0 for integers)
};
constexpr std::array<DTypeInfo, 9> kInfo = {{
    {DType::kFloat64, "float64", true, 0x1.0p-53, 1.7976931348623157e308, 0x1.0p-1074},
    {DType::kFloat32, "float32", true, 0x1.0p-24, 3.4028234663852886e38, 0x1.0p-149},
    {DType::kFloat16, "float16", true, 0x1.0p-11, 65504.0, 0x1.0p-24},
    {DType::kBFloat16, "bfloat16", true, 0x1.0p-8, 3.3895313892515355e38, 0x1.0p-133},
    {DType::kInt8, "int8", false, 0, 127, 0},
    {DType::kUInt8, "uint8", false, 0, 255, 0},
    {DType::kInt32, "int32", false, 0, 2147483647.0, 0},
    {DType::kInt64, "int64", false, 0, 9223372036854775807.0, 0},
    {DType::kBool, "bool", false, 0, 1, 0},
}};
const DTypeInfo& Info(DType d) { return kInfo[static_cast<size_t>(d)]; }
}  // namespace

std::string_view DTypeName(DType d) { return Info(d).name; }

std::optional<DType> ParseDType(std::string_view name) {
  for (const auto& i : kInfo)
    if (i.name == name) return i.dtype;
  return std::nullopt;
}

const std::vector<DType>& AllDTypes() {
  static const std::vector<DType> kAll = [] {
    std::vector<DType> v;
    for (const auto& i : kInfo) v.push_back(i.dtype);
    return v;
  }();
  return kAll;
}

bool IsFloating(DType d) { return Info(d).floating; }

bool IsHalfFloat(DType d) { return d == DType::kFloat16 || d == DType::kBFloat16; }
double UnitRoundoff(DType d) { return Info(d).unit_roundoff; }
double MaxFinite(DType d) { return Info(d).max_finite; }
std::optional<std::string_view> CastMethodName(DType d) {
  switch (d) {
    case DType::kFloat64:
      return "double";
    case DType::kFloat32:
      return "float";
    case DType::kFloat16:
      return "half";
    case DType::kBFloat16:
      return "bfloat16";
    default:
      return std::nullopt;
  }
}

double MinSubnormal(DType d) { return Info(d).min_subnormal; }

std::optional<DType> PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  if (IsFloating(a) != IsFloating(b)) return IsFloating(a) ? a : b;
  if (IsFloating(a)) {
    // float16 + bfloat16 -> float32; otherwise the wider one.
    auto rank = [](DType d) { return d == DType::kFloat64 ? 3 : d == DType::kFloat32 ? 2 : 1; };
    if (rank(a) == 1 && rank(b) == 1) return DType::kFloat32;
    return rank(a) >= rank(b) ? a : b;
  }
  if (a == DType::kBool) return b;
  if (b == DType::kBool) return a;
  if ((a == DType::kInt8 && b == DType::kUInt8) || (a == DType::kUInt8 && b == DType::kInt8))
    return std::nullopt;  // torch gives int16, which mmdiff does not model
  auto width = [](DType d) { return d == DType::kInt64 ? 3 : d == DType::kInt32 ? 2 : 1; };
  return width(a) >= width(b) ? a : b;
}

}  // namespace mmdiff
