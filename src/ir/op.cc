// Op specs and shape rules.
#include "src/ir/op.h"

#include <array>

namespace mmdiff {

namespace {
constexpr std::array<OpSpec, 5> kSpecs = {{
    {OpKind::kMm, "mm", 2, "torch.mm", false, false},
    {OpKind::kBmm, "bmm", 2, "torch.bmm", false, false},
    {OpKind::kMatmul, "matmul", 2, "torch.matmul", false, false},
    {OpKind::kAddmm, "addmm", 3, "torch.addmm", true, false},
    {OpKind::kCast, "cast", 1, ".to", false, true},
}};

Status RankIs(const Shape& s, size_t rank, const char* what) {
  if (s.size() != rank)
    return Status::Error(std::string(what) + " must be a " + std::to_string(rank) + "D tensor, got " +
                         ShapeString(s));
  return Status::Ok();
}

Result<Shape> MmShape(const Shape& a, const Shape& b) {
  if (auto s = RankIs(a, 2, "self"); !s.ok()) return s;
  if (auto s = RankIs(b, 2, "mat2"); !s.ok()) return s;
  if (a[1] != b[0])
    return Status::Error("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a[0]) + "x" +
                         std::to_string(a[1]) + " and " + std::to_string(b[0]) + "x" +
                         std::to_string(b[1]) + ")");
  return Shape{a[0], b[1]};
}
}  // namespace

const OpSpec& GetOpSpec(OpKind k) { return kSpecs[static_cast<size_t>(k)]; }

std::optional<OpKind> ParseOpKind(std::string_view name) {
  for (const auto& s : kSpecs)
    if (s.name == name) return s.kind;
  return std::nullopt;
}

const std::vector<OpKind>& AllOpKinds() {
  static const std::vector<OpKind> kAll = {OpKind::kMm, OpKind::kBmm, OpKind::kMatmul,
                                           OpKind::kAddmm, OpKind::kCast};
  return kAll;
}

Result<Shape> InferShape(OpKind k, const std::vector<Shape>& args) {
  if (static_cast<int>(args.size()) != GetOpSpec(k).arity)
    return Status::Error("wrong number of arguments");
  switch (k) {
    case OpKind::kMm:
      return MmShape(args[0], args[1]);
    case OpKind::kBmm: {
      const Shape &a = args[0], &b = args[1];
      if (auto s = RankIs(a, 3, "batch1"); !s.ok()) return s;
      if (auto s = RankIs(b, 3, "batch2"); !s.ok()) return s;
      if (a[0] != b[0] || a[2] != b[1])
        return Status::Error("Expected size for first two dimensions of batch2 tensor to be: [" +
                             std::to_string(a[0]) + ", " + std::to_string(a[2]) + "] but got: [" +
                             std::to_string(b[0]) + ", " + std::to_string(b[1]) + "].");
      return Shape{a[0], a[1], b[2]};
    }
    case OpKind::kMatmul:
      return MatmulShape(args[0], args[1]);
    case OpKind::kAddmm: {
      auto mm = MmShape(args[1], args[2]);
      if (!mm.ok()) return mm;
      // The bias must broadcast to the product's shape (expand semantics: bias rank <= 2).
      const Shape& bias = args[0];
      auto b = BroadcastShapes(bias, mm.value());
      if (bias.size() > 2 || !b.ok() || b.value() != mm.value())
        return Status::Error("bias of shape " + ShapeString(bias) + " cannot be expanded to " +
                             ShapeString(mm.value()));
      return mm;
    }
    case OpKind::kCast:
      return args[0];
  }
  return Status::Error("unknown op");
}

}  // namespace mmdiff
