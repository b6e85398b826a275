// Shape rules.
#include "src/ir/shape.h"

#include <algorithm>
#include <limits>

namespace mmdiff {

int64_t Numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return std::numeric_limits<int64_t>::max();
    n *= d;
  }
  return n;
}

std::string ShapeString(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + "]";
}

Result<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      return Status::Error("shapes " + ShapeString(a) + " and " + ShapeString(b) +
                           " are not broadcastable");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::string MatmulReaches(const Shape& a, const Shape& b) {
  size_t ra = a.size(), rb = b.size();
  if (ra == 0 || rb == 0) return "?";  // matmul rejects scalars
  if (ra == 1 && rb == 1) return "dot";
  if (rb == 1) return "mv";  // 2-D, or >= 3-D folded into one matrix
  if (rb == 2) return "mm";  // 1-D as a row, 2-D, or >= 3-D folded
  if (ra >= 2) return "bmm";
  // 1-D @ >= 3-D: should_fold transposes the batch into a matrix times a, which is a view only
  // if a's size is 1 or b is empty.
  return a[0] <= 1 || Numel(b) == 0 ? "mv" : "bmm";
}

Result<Shape> MatmulShape(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    return Status::Error("both arguments to matmul need to be at least 1D");
  Shape a2 = a, b2 = b;
  bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a2.insert(a2.begin(), 1);
  if (b_vec) b2.push_back(1);
  int64_t k_a = a2.back(), k_b = b2[b2.size() - 2];
  if (k_a != k_b)
    return Status::Error("size mismatch: " + ShapeString(a) + " @ " + ShapeString(b) +
                         " (contracted dims " + std::to_string(k_a) + " and " +
                         std::to_string(k_b) + ")");
  Shape batch_a(a2.begin(), a2.end() - 2), batch_b(b2.begin(), b2.end() - 2);
  auto batch = BroadcastShapes(batch_a, batch_b);
  if (!batch.ok()) return batch.status();
  Shape out = batch.value();
  if (!a_vec) out.push_back(a2[a2.size() - 2]);
  if (!b_vec) out.push_back(b2.back());
  return out;
}

std::vector<int64_t> ContiguousStrides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i)
    st[i] = st[i + 1] * std::max<int64_t>(s[i + 1], 1);
  return st;
}

}  // namespace mmdiff
