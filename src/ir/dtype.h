// Tensor element types as mmdiff names them, with their torch spellings and floating-point traits.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mmdiff {

enum class DType { kFloat64, kFloat32, kFloat16, kBFloat16, kInt8, kUInt8, kInt32, kInt64, kBool };

// "float64", "float16", ... (the torch attribute name without "torch.").
std::string_view DTypeName(DType d);
std::optional<DType> ParseDType(std::string_view name);
const std::vector<DType>& AllDTypes();
bool IsFloating(DType d);
// float16 or bfloat16.
bool IsHalfFloat(DType d);
// Unit roundoff 2^-p of a floating dtype (0 for integers).
double UnitRoundoff(DType d);
// Largest finite value of a floating dtype.
double MaxFinite(DType d);
// The Tensor method that casts to d, where there is one: "double", "float", "half", "bfloat16".
std::optional<std::string_view> CastMethodName(DType d);
// Smallest positive subnormal of a floating dtype (0 for integers).
double MinSubnormal(DType d);
// torch's promote_types (the lattice eager uses when it promotes); nullopt where the result
// is a dtype mmdiff does not model (int8 with uint8 gives int16).
std::optional<DType> PromoteTypes(DType a, DType b);

}  // namespace mmdiff
