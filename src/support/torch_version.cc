#include "src/support/torch_version.h"

#include "src/support/utf8.h"

namespace mmdiff {

namespace {

std::string Quoted(std::string_view text) {
  return "\"" + TerminalLine(text.substr(0, 64)) + (text.size() > 64 ? "...\"" : "\"");
}

// The suffix after the numbers: empty, or one that starts as PyTorch's local, pre-release,
// development and post-release marks do.
bool KnownSuffix(std::string_view rest) {
  if (rest.empty() || rest[0] == '+' || rest[0] == '-') return true;
  for (std::string_view mark : {"a", "b", "rc", ".dev", ".post"})
    if (rest.substr(0, mark.size()) == mark) return true;
  return false;
}

// Parses the numbers at the start of text; `rest` gets what follows them.
Result<TorchVersion> ParseNumbers(std::string_view text, std::string_view& rest) {
  const Status bad = Status::Error("bad torch version " + Quoted(text) +
                                   ": expected up to three numbers of at most 4 digits joined by "
                                   "'.', e.g. 2.11.0 or 2.11.0+cu130");
  int parts[3] = {0, 0, 0};
  size_t i = 0;
  int count = 0;
  while (true) {
    size_t start = i;
    int value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (i - start == 4) return bad;  // a fifth digit
      value = value * 10 + (text[i] - '0');
      ++i;
    }
    if (i == start) return bad;
    parts[count++] = value;
    bool more = i + 1 < text.size() && text[i] == '.' && text[i + 1] >= '0' && text[i + 1] <= '9';
    if (!more) break;
    if (count == 3) return bad;  // a fourth part
    ++i;
  }
  rest = text.substr(i);
  return TorchVersion{parts[0], parts[1], parts[2]};
}

}  // namespace

Result<TorchVersion> ParseTorchVersion(std::string_view text) {
  std::string_view rest;
  auto v = ParseNumbers(text, rest);
  if (!v.ok()) return v;
  if (!KnownSuffix(rest))
    return Status::Error("bad torch version " + Quoted(text) + ": unexpected " + Quoted(rest) +
                         " after the numbers");
  return v;
}

bool IsReleaseName(std::string_view text) {
  std::string_view rest;
  return ParseNumbers(text, rest).ok() && rest.empty() && text.find('.') != std::string_view::npos;
}

std::string TorchVersionString(const TorchVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

namespace {

// Calls fn(op, bound) for each clause of `range` (see TorchVersionInRange), in order; the first
// malformed clause is the error.
template <typename F>
Status ForEachClause(std::string_view range, F&& fn) {
  if (range.empty()) return Status::Error("empty torch version range");
  auto strip = [](std::string_view& t) {
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  };
  for (bool last = false; !last;) {
    size_t comma = range.find(',');
    last = comma == std::string_view::npos;
    std::string_view clause = range.substr(0, comma);
    if (!last) range.remove_prefix(comma + 1);
    strip(clause);
    size_t op_len = 0;
    while (op_len < clause.size() &&
           (clause[op_len] == '<' || clause[op_len] == '>' || clause[op_len] == '='))
      ++op_len;
    std::string_view op = clause.substr(0, op_len);
    if (op != ">=" && op != ">" && op != "<=" && op != "<" && op != "==")
      return Status::Error("bad torch version range clause " + Quoted(clause) +
                           ": expected >=, >, <=, < or == and a version");
    std::string_view bound_text = clause.substr(op_len);
    strip(bound_text);
    auto bound = ParseTorchVersion(bound_text);
    if (!bound.ok()) return bound.status();
    fn(op, bound.value());
  }
  return Status::Ok();
}

}  // namespace

Result<bool> TorchVersionInRange(std::string_view version, std::string_view range) {
  auto v = ParseTorchVersion(version);
  if (!v.ok()) return v.status();
  bool in = true;
  Status s = ForEachClause(range, [&](std::string_view op, const TorchVersion& bound) {
    auto cmp = v.value() <=> bound;
    in &= op == ">="   ? cmp >= 0
          : op == ">"  ? cmp > 0
          : op == "<=" ? cmp <= 0
          : op == "<"  ? cmp < 0
                       : cmp == 0;
  });
  if (!s.ok()) return s;
  return in;
}

Result<std::optional<TorchVersion>> TorchRangeLowerBound(std::string_view range) {
  std::optional<TorchVersion> low;
  Status s = ForEachClause(range, [&](std::string_view op, const TorchVersion& bound) {
    if ((op == ">=" || op == "==") && (!low || *low < bound)) low = bound;
  });
  if (!s.ok()) return s;
  return low;
}

}  // namespace mmdiff
