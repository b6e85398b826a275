// Program verifier.
#include "src/ir/verifier.h"

#include <cmath>
#include <set>

#include "src/ir/static_types.h"

namespace mmdiff {

namespace {

// A name in an error message, quoted, and clipped: names come from files, and a 100,000-character
// one is not a message.
std::string Quoted(const std::string& name) {
  return "\"" + (name.size() > 80
                     ? name.substr(0, 80) + "...\" (" + std::to_string(name.size()) + " characters)"
                     : name + "\"");
}

// The attributes of torch.nn.Module (dir(torch.nn.Module) on torch 2.15.0, without those that start
// with "_", all of which are refused): a weight of that name would replace one of them.
bool IsModuleAttribute(const std::string& s) {
  static const std::set<std::string> kAttributes = {"T_destination",
                                                    "add_module",
                                                    "apply",
                                                    "bfloat16",
                                                    "buffers",
                                                    "call_super_init",
                                                    "children",
                                                    "compile",
                                                    "cpu",
                                                    "cuda",
                                                    "double",
                                                    "dump_patches",
                                                    "eval",
                                                    "extra_repr",
                                                    "float",
                                                    "forward",
                                                    "get_buffer",
                                                    "get_extra_state",
                                                    "get_parameter",
                                                    "get_submodule",
                                                    "half",
                                                    "ipu",
                                                    "load_state_dict",
                                                    "modules",
                                                    "mtia",
                                                    "named_buffers",
                                                    "named_children",
                                                    "named_modules",
                                                    "named_parameters",
                                                    "parameters",
                                                    "register_backward_hook",
                                                    "register_buffer",
                                                    "register_forward_hook",
                                                    "register_forward_pre_hook",
                                                    "register_full_backward_hook",
                                                    "register_full_backward_pre_hook",
                                                    "register_load_state_dict_post_hook",
                                                    "register_load_state_dict_pre_hook",
                                                    "register_module",
                                                    "register_parameter",
                                                    "register_state_dict_post_hook",
                                                    "register_state_dict_pre_hook",
                                                    "requires_grad_",
                                                    "set_extra_state",
                                                    "set_submodule",
                                                    "share_memory",
                                                    "state_dict",
                                                    "to",
                                                    "to_empty",
                                                    "train",
                                                    "training",
                                                    "type",
                                                    "xpu",
                                                    "zero_grad"};
  return s.rfind('_', 0) == 0 || kAttributes.count(s) > 0;
}

bool IsIdentifier(const std::string& s) {
  // Names become Python and TorchScript variables in generated code (repro.py, the compiled paths'
  // functions): Python 3's keywords and soft keywords, its builtins (which the generated code
  // calls: a value named `print` or `float` would shadow them), the modules it imports and its
  // own function `f` are not names; nor are dunder names (`__debug__` cannot be assigned) or
  // mmdiff's own `_mmdiff` helpers.
  static const std::set<std::string> kReserved = {"ArithmeticError",
                                                  "AssertionError",
                                                  "AttributeError",
                                                  "BaseException",
                                                  "BaseExceptionGroup",
                                                  "BlockingIOError",
                                                  "BrokenPipeError",
                                                  "BufferError",
                                                  "BytesWarning",
                                                  "ChildProcessError",
                                                  "ConnectionAbortedError",
                                                  "ConnectionError",
                                                  "ConnectionRefusedError",
                                                  "ConnectionResetError",
                                                  "DeprecationWarning",
                                                  "EOFError",
                                                  "Ellipsis",
                                                  "EncodingWarning",
                                                  "EnvironmentError",
                                                  "Exception",
                                                  "ExceptionGroup",
                                                  "False",
                                                  "FileExistsError",
                                                  "FileNotFoundError",
                                                  "FloatingPointError",
                                                  "FutureWarning",
                                                  "GeneratorExit",
                                                  "IOError",
                                                  "ImportError",
                                                  "ImportWarning",
                                                  "IndentationError",
                                                  "IndexError",
                                                  "InterruptedError",
                                                  "IsADirectoryError",
                                                  "KeyError",
                                                  "KeyboardInterrupt",
                                                  "LookupError",
                                                  "MemoryError",
                                                  "Model",
                                                  "ModuleNotFoundError",
                                                  "NameError",
                                                  "None",
                                                  "NotADirectoryError",
                                                  "NotImplemented",
                                                  "NotImplementedError",
                                                  "OSError",
                                                  "OverflowError",
                                                  "PendingDeprecationWarning",
                                                  "PermissionError",
                                                  "ProcessLookupError",
                                                  "RecursionError",
                                                  "ReferenceError",
                                                  "ResourceWarning",
                                                  "RuntimeError",
                                                  "RuntimeWarning",
                                                  "StopAsyncIteration",
                                                  "StopIteration",
                                                  "SyntaxError",
                                                  "SyntaxWarning",
                                                  "SystemError",
                                                  "SystemExit",
                                                  "TabError",
                                                  "TimeoutError",
                                                  "True",
                                                  "TypeError",
                                                  "UnboundLocalError",
                                                  "UnicodeDecodeError",
                                                  "UnicodeEncodeError",
                                                  "UnicodeError",
                                                  "UnicodeTranslateError",
                                                  "UnicodeWarning",
                                                  "UserWarning",
                                                  "ValueError",
                                                  "Warning",
                                                  "ZeroDivisionError",
                                                  "abs",
                                                  "aiter",
                                                  "all",
                                                  "and",
                                                  "anext",
                                                  "any",
                                                  "as",
                                                  "ascii",
                                                  "assert",
                                                  "async",
                                                  "await",
                                                  "bin",
                                                  "bool",
                                                  "break",
                                                  "breakpoint",
                                                  "bytearray",
                                                  "bytes",
                                                  "callable",
                                                  "case",
                                                  "chr",
                                                  "class",
                                                  "classmethod",
                                                  "compile",
                                                  "complex",
                                                  "contextlib",
                                                  "continue",
                                                  "copyright",
                                                  "credits",
                                                  "def",
                                                  "del",
                                                  "delattr",
                                                  "dict",
                                                  "dir",
                                                  "divmod",
                                                  "elif",
                                                  "else",
                                                  "enumerate",
                                                  "eval",
                                                  "except",
                                                  "exec",
                                                  "exit",
                                                  "f",
                                                  "filter",
                                                  "finally",
                                                  "float",
                                                  "for",
                                                  "format",
                                                  "from",
                                                  "frozenset",
                                                  "getattr",
                                                  "global",
                                                  "globals",
                                                  "hasattr",
                                                  "hash",
                                                  "help",
                                                  "hex",
                                                  "id",
                                                  "if",
                                                  "import",
                                                  "in",
                                                  "input",
                                                  "int",
                                                  "is",
                                                  "isinstance",
                                                  "issubclass",
                                                  "iter",
                                                  "json",
                                                  "lambda",
                                                  "len",
                                                  "license",
                                                  "list",
                                                  "locals",
                                                  "map",
                                                  "match",
                                                  "math",
                                                  "max",
                                                  "memoryview",
                                                  "min",
                                                  "next",
                                                  "nonlocal",
                                                  "not",
                                                  "object",
                                                  "oct",
                                                  "open",
                                                  "or",
                                                  "ord",
                                                  "os",
                                                  "pass",
                                                  "platform",
                                                  "pow",
                                                  "print",
                                                  "property",
                                                  "quit",
                                                  "raise",
                                                  "range",
                                                  "re",
                                                  "repr",
                                                  "return",
                                                  "reversed",
                                                  "round",
                                                  "self",
                                                  "set",
                                                  "setattr",
                                                  "slice",
                                                  "sorted",
                                                  "staticmethod",
                                                  "str",
                                                  "sum",
                                                  "super",
                                                  "sys",
                                                  "tempfile",
                                                  "torch",
                                                  "try",
                                                  "tuple",
                                                  "type",
                                                  "vars",
                                                  "while",
                                                  "with",
                                                  "yield",
                                                  "zip"};
  if (s.empty() || s.size() > 64 || kReserved.count(s) || s.rfind("_mmdiff", 0) == 0 ||
      s.rfind("__", 0) == 0 || s == "_")
    return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// view's contract depends on strides, which mmdiff tracks only this far: a contiguous-layout input
// or the result of .contiguous().
bool IsContiguousValue(const Program& p, const std::string& name) {
  if (const InputSpec* in = p.FindInput(name)) return in->layout == Layout::kContiguous;
  const Node* n = p.FindNode(name);
  return n && n->op == OpKind::kContiguous;
}

// Whether a promoting op's operand dtypes give a dtype mmdiff models (unknown operands: yes).
enum PromotionCheck { kModelled, kUnmodelled };
PromotionCheck Promotes(const Node& n, const std::map<std::string, StaticType>& types) {
  std::vector<DType> dtypes;
  std::vector<bool> zero_dim;
  for (const auto& a : n.args) {
    auto it = types.find(a);
    if (it == types.end()) return kModelled;
    dtypes.push_back(it->second.dtype);
    zero_dim.push_back(it->second.shape && it->second.shape->empty());
  }
  return ResultDType(n, dtypes, zero_dim) ? kModelled : kUnmodelled;
}

}  // namespace

Status Verify(const Program& p) {
  // Counts first: a hostile program of a million inputs is rejected before any work on it.
  if (p.nodes.size() > kMaxNodes)
    return Status::Error("program has " + std::to_string(p.nodes.size()) + " nodes; the limit is " +
                         std::to_string(kMaxNodes));
  if (p.inputs.size() > kMaxInputs)
    return Status::Error("program has " + std::to_string(p.inputs.size()) +
                         " inputs; the limit is " + std::to_string(kMaxInputs));
  if (p.outputs.size() > kMaxOutputs)
    return Status::Error("program has " + std::to_string(p.outputs.size()) +
                         " outputs; the limit is " + std::to_string(kMaxOutputs));
  if (p.autocast.size() > kMaxAutocastRegions)
    return Status::Error("program has " + std::to_string(p.autocast.size()) +
                         " autocast regions; the limit is " + std::to_string(kMaxAutocastRegions));
  for (size_t i = 0; i < p.autocast.size(); ++i) {
    const AutocastRegion& r = p.autocast[i];
    const std::string where = "autocast[" + std::to_string(i) + "]";
    if (r.device == Device::kMeta)
      return Status::Error(where + ": device_type must be cpu or cuda");
    if (r.dtype != DType::kFloat16 && r.dtype != DType::kBFloat16)
      return Status::Error(where + ": dtype must be float16 or bfloat16");
    if (r.parent && *r.parent >= i)
      return Status::Error(where + ": its parent must be an earlier region");
  }
  for (const auto& n : p.nodes)
    if (n.autocast && *n.autocast >= p.autocast.size())
      return Status::Error("node " + Quoted(n.name) + ": autocast region " +
                           std::to_string(*n.autocast) + " is not defined");
  std::set<std::string> defined;
  const auto types = InferStaticTypes(p);
  int64_t total_elements = 0;
  for (const auto& in : p.inputs) {
    std::string where = "input " + Quoted(in.name);
    if (!IsIdentifier(in.name)) return Status::Error(where + ": name is not a usable identifier");
    if (!defined.insert(in.name).second) return Status::Error(where + ": name defined twice");
    if (in.shape.size() > kMaxRank)
      return Status::Error(where + ": rank " + std::to_string(in.shape.size()) + " exceeds " +
                           std::to_string(kMaxRank));
    int64_t numel = 1;
    for (int64_t d : in.shape) {
      if (d < 0) return Status::Error(where + ": negative dimension in " + ShapeString(in.shape));
      if (d > kMaxNumel)
        return Status::Error(where + ": dimension too large in " + ShapeString(in.shape));
      numel *= d;
      if (numel > kMaxNumel)
        return Status::Error(where + ": more than " + std::to_string(kMaxNumel) + " elements");
    }
    total_elements += numel;
    if (total_elements > kMaxInputElements)
      return Status::Error("the inputs hold more than " + std::to_string(kMaxInputElements) +
                           " elements together");
    if (in.layout == Layout::kTransposed && in.shape.size() < 2)
      return Status::Error(where + ": a transposed layout needs rank >= 2");
    if (in.role == InputRole::kBuffer && in.requires_grad)
      return Status::Error(where +
                           ": a buffer cannot require grad (a trained weight is a parameter)");
    // A weight is an attribute of the module (self.<name>): not one torch.nn.Module has.
    if (IsWeight(in) && IsModuleAttribute(in.name))
      return Status::Error(where + ": a weight cannot be named like torch.nn.Module's attribute " +
                           Quoted(in.name));
  }
  for (const auto& n : p.nodes) {
    std::string where = "node " + Quoted(n.name) + " (" + std::string(GetOpSpec(n.op).name) + ")";
    if (!IsIdentifier(n.name)) return Status::Error(where + ": name is not a usable identifier");
    if (defined.count(n.name)) return Status::Error(where + ": name defined twice");
    const OpSpec& spec = GetOpSpec(n.op);
    int nargs = static_cast<int>(n.args.size());
    if (nargs < spec.min_arity || nargs > spec.arity)
      return Status::Error(where + ": takes " +
                           (spec.min_arity == spec.arity ? std::to_string(spec.arity)
                                                         : std::to_string(spec.min_arity) + " or " +
                                                               std::to_string(spec.arity)) +
                           " arguments, got " + std::to_string(n.args.size()));
    for (const auto& a : n.args)
      if (!defined.count(a))
        return Status::Error(where + ": argument " + Quoted(a) +
                             " is not defined before this node");
    if (spec.has_dtype && !n.dtype) return Status::Error(where + ": needs a \"dtype\"");
    if (!spec.has_dtype && n.dtype && n.op != OpKind::kSoftmax && n.op != OpKind::kFull)
      return Status::Error(where + ": takes no \"dtype\"");
    if (n.op == OpKind::kFull && n.dtype && !IsFloating(*n.dtype) && *n.dtype != DType::kBool)
      return Status::Error(where + ": full makes floating or bool tensors only");
    if ((n.op == OpKind::kToDevice) != n.device.has_value())
      return Status::Error(where + (n.device ? ": takes no \"device\"" : ": needs a \"device\""));
    if (n.op != OpKind::kSdpa && (n.is_causal || n.enable_gqa || n.scale))
      return Status::Error(
          where + ": is_causal, enable_gqa and scale belong to scaled_dot_product_attention");
    if (n.scale && !std::isfinite(*n.scale)) return Status::Error(where + ": scale must be finite");
    if (n.op != OpKind::kDropout && (n.dropout_p != 0.0 || n.train))
      return Status::Error(where + ": p and train belong to dropout");
    if (!(n.dropout_p >= 0.0 && n.dropout_p < 1.0))
      return Status::Error(where + ": dropout's p must lie in [0, 1)");
    if (n.method_spelling && (n.op != OpKind::kCast || !n.dtype || !CastMethodName(*n.dtype)))
      return Status::Error(
          where +
          ": the method spelling exists for casts to float64, float32, float16 and bfloat16 only");
    if (n.op == OpKind::kSlice &&
        (n.ints.size() != 4 || n.ints[1] < 0 || n.ints[2] < n.ints[1] || n.ints[3] < 1))
      return Status::Error(
          where + ": ints must be {dim, start, end, step} with 0 <= start <= end and step >= 1");
    if (n.op == OpKind::kSoftmax && n.ints.size() != 1)
      return Status::Error(where + ": ints must be {dim}");
    if (n.op == OpKind::kView && !IsContiguousValue(p, n.args[0]))
      return Status::Error(
          where +
          ": view's operand must be an input with a contiguous layout or a contiguous node");
    if (spec.has_alpha_beta && (!std::isfinite(n.alpha) || !std::isfinite(n.beta)))
      return Status::Error(where + ": alpha and beta must be finite");
    if (!spec.has_ints && !n.ints.empty()) return Status::Error(where + ": takes no \"ints\"");
    if (n.ints.size() > 8) return Status::Error(where + ": too many \"ints\"");
    for (int64_t v : n.ints)
      if (v < -kMaxNumel || v > kMaxNumel)
        return Status::Error(where + ": \"ints\" entry out of range");
    // A fill value may be an infinity (masks); the other scalars are finite.
    const bool fills = n.op == OpKind::kMaskedFill || n.op == OpKind::kFull;
    if (HasScalar(n.op) && (fills ? std::isnan(n.alpha) : !std::isfinite(n.alpha)))
      return Status::Error(where + (fills ? ": alpha must not be NaN" : ": alpha must be finite"));
    if (n.op == OpKind::kTril && n.ints.size() != 1)
      return Status::Error(where + ": ints must be {diagonal}");
    if (n.op == OpKind::kDivScalar && n.alpha == 0.0)
      return Status::Error(where + ": cannot divide by 0");
    if (n.op == OpKind::kClamp &&
        !(n.alpha == std::trunc(n.alpha) && n.beta == std::trunc(n.beta) &&
          std::fabs(n.alpha) <= 1e6 && std::fabs(n.beta) <= 1e6 && n.alpha <= n.beta))
      return Status::Error(where +
                           ": clamp's min and max must be integers in [-1e6, 1e6], min <= max");
    if (n.op != OpKind::kGelu && n.gelu_tanh)
      return Status::Error(where + ": approximate belongs to gelu");
    if (!spec.has_alpha_beta && n.op != OpKind::kClamp &&
        ((n.alpha != 1.0 && !HasScalar(n.op)) || n.beta != 1.0))
      return Status::Error(where + ": takes no alpha/beta");
    if ((IsBinaryPromoting(n.op) || n.op == OpKind::kWhere) && Promotes(n, types) == kUnmodelled)
      return Status::Error(where + ": int8 with uint8 gives int16, a dtype mmdiff does not model");
    if (n.op == OpKind::kSdpa && n.args.size() == 4) {
      auto it = types.find(n.args[3]);
      if (it != types.end() && it->second.shape && it->second.shape->size() < 2)
        return Status::Error(where + ": the attention mask needs rank >= 2");
    }
    defined.insert(n.name);
  }
  // Every result whose shape follows from the inputs must fit in a worker, like the inputs do.
  for (const auto& n : p.nodes) {
    const std::optional<Shape>& shape = types.at(n.name).shape;
    if (shape && (shape->size() > kMaxRank || Numel(*shape) > kMaxNumel))
      return Status::Error("node " + Quoted(n.name) + " (" + std::string(GetOpSpec(n.op).name) +
                           "): result " + ShapeString(*shape) + " is larger than " +
                           std::to_string(kMaxNumel) + " elements or rank " +
                           std::to_string(kMaxRank));
  }
  if (p.outputs.empty()) return Status::Error("program has no outputs");
  for (const auto& o : p.outputs)
    if (!defined.count(o)) return Status::Error("output " + Quoted(o) + " is not defined");
  return Status::Ok();
}

}  // namespace mmdiff
