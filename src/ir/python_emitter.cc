// Python emission. The fixed helper functions repro.py defines (its input builder, runner and the
// root-cause rule it shares with the worker) are Python sources in src/ir/python/, embedded at
// build time as mmdiff::embedded::k*Py (cmake/mmdiff_module.cmake, mmdiff_embed_python); this file
// writes what depends on the program and the finding around them.
#include "src/ir/python_emitter.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "mmdiff/python/planted_backends.h"
#include "mmdiff/python/repro_aoti.h"
#include "mmdiff/python/repro_calls_before.h"
#include "mmdiff/python/repro_ignored_input.h"
#include "mmdiff/python/repro_inputs.h"
#include "mmdiff/python/repro_meta.h"
#include "mmdiff/python/repro_module.h"
#include "mmdiff/python/repro_outcome.h"
#include "mmdiff/python/root_cause.h"
#include "src/ir/autocast.h"

namespace mmdiff {

namespace {

std::string PyFloat(double v) {
  if (std::isnan(v)) return "float(\"nan\")";
  if (std::isinf(v)) return v > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string PyShape(const Shape& s) {
  if (s.size() == 1) return "(" + std::to_string(s[0]) + ",)";
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + ")";
}

std::string PyStr(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string TorchDType(DType d) { return "torch." + std::string(DTypeName(d)); }

// A number as Python reads it (repro.py imports math): nan and infinities by name.
std::string PyNumber(double v) {
  if (std::isnan(v)) return "math.nan";
  if (std::isinf(v)) return v > 0 ? "math.inf" : "-math.inf";
  return PyFloat(v);
}

// Text inside a """docstring""": messages come from torch and from files, so nothing in them may
// end the docstring or start an escape.
std::string DocText(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\\')
      out += "\\\\";
    else if (s.compare(i, 3, "\"\"\"") == 0)
      out += "\\\"";  // breaks a run of three quotes
    else if (static_cast<unsigned char>(c) < 0x20 && c != '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// c10::ScalarType's numbering, which TorchScript uses for dtypes (torch/csrc/api: ScalarType.h).
int ScalarTypeCode(DType d) {
  switch (d) {
    case DType::kUInt8:
      return 0;
    case DType::kInt8:
      return 1;
    case DType::kInt32:
      return 3;
    case DType::kInt64:
      return 4;
    case DType::kFloat16:
      return 5;
    case DType::kFloat32:
      return 6;
    case DType::kFloat64:
      return 7;
    case DType::kBool:
      return 11;
    case DType::kBFloat16:
      return 15;
  }
  return 6;
}

// How repro.py compiles f for the compared path: its name, a one-line description, code defining
// what it needs (ending in a blank line, or ""), and either `build`, an expression that compiles f
// ahead of the run and gives the callable (a failure there is a compile failure, told apart from
// f's own errors), or `callable`, handed to outcome() as is (torch.compile compiles on the first
// call, and its compile errors are the compiled outcome, as on mmdiff's torch.compile paths).
struct ReproCompiled {
  std::string name, description, setup, build, callable;
  std::vector<KnobSetting> knobs;  // a knob variant's torch._inductor.config settings
};
// How repro.py compiles for `backend`: its path's row says, where it is a path that repro.py does
// not spell as torch.compile (a torch.compile backend such as "aot_eager" is not always a path).
ReproKind ReproKindOf(const std::string& backend) {
  const PathRow* row = FindPath(backend);
  return row && row->repro != ReproKind::kNone ? row->repro : ReproKind::kTorchCompile;
}

ReproCompiled ReproCompiledFor(const Program& p, const std::string& backend) {
  if (ReproKindOf(backend) == ReproKind::kTorchScript)
    return {"TorchScript",
            "TorchScript (torch.jit.CompilationUnit on the TorchScript spelling of f below)",
            "TS_SOURCE = \"\"\"\n" + EmitFunction(p, "f", FunctionDialect::kTorchScriptFromPython) +
                "\"\"\"\n\n\n",
            "torch.jit.CompilationUnit(TS_SOURCE).f", ""};
  if (ReproKindOf(backend) == ReproKind::kAoti)
    return {"AOTInductor",
            "AOTInductor (torch.export, aoti_compile_and_package, aoti_load_package)",
            std::string(embedded::kReproAotiPy) + "\n\n", "aoti(f, inputs())", ""};
  // A knob variant (a path of the catalogue, e.g. inductor_freezing): its backend compiles under
  // its settings, with dynamic=True for the dynamic variant, called under torch.no_grad() where
  // the variant runs so.
  const PathRow* row = FindPath(backend);
  const bool variant = row && row->variant_of[0] != '\0';
  const std::string torch_backend = variant ? row->torch_backend : backend;
  // The test-only planted paths' deliberately wrong backends, registered by their own text.
  std::string setup = torch_backend.rfind("mmdiff_planted_", 0) == 0
                          ? std::string(embedded::kPlantedBackendsPy) +
                                "\n_mmdiff_register_planted_backends()\n\n\n"
                          : "";
  const bool dynamic = variant && std::string_view(row->knob) == "dynamic";
  const bool no_grad = variant && row->no_grad;
  std::string args =
      "backend=" + PyStr(torch_backend) + ", fullgraph=True" + (dynamic ? ", dynamic=True" : "");
  // A program with weights is compiled as its model (module_call, repro_module.py).
  std::string callable = HasWeights(p)
                             ? "module_call(lambda model: torch.compile(model, " + args + "))"
                             : "torch.compile(f, " + args + ")";
  if (no_grad) callable = "torch.no_grad()(" + callable + ")";
  std::string description = "torch.compile(" + std::string(HasWeights(p) ? "Model(...), " : "") +
                            "backend='" + torch_backend + "'" + (dynamic ? ", dynamic=True" : "") +
                            ")";
  if (variant && !row->settings.empty())
    description += " with " + VariantSpelling(*row);
  else if (no_grad)
    description += " under torch.no_grad()";
  return {"torch.compile", description,
          setup,           "",
          callable,        variant ? row->settings : std::vector<KnobSetting>{}};
}

}  // namespace

std::string EmitFunction(const Program& p, const std::string& name, FunctionDialect dialect) {
  const bool ts = dialect != FunctionDialect::kPython;
  auto dtype = [&](DType d) { return ts ? std::to_string(ScalarTypeCode(d)) : TorchDType(d); };
  auto call =
      [&](std::string_view torch_call) {  // TorchScript's native resolver: torch.<aten op> only
        constexpr std::string_view kFunctional = "torch.nn.functional.";
        if (dialect == FunctionDialect::kTorchScript &&
            torch_call.substr(0, kFunctional.size()) == kFunctional)
          return "torch." + std::string(torch_call.substr(kFunctional.size()));
        return std::string(torch_call);
      };
  std::ostringstream o;
  o << "def " << name << "(";
  for (size_t i = 0; i < p.inputs.size(); ++i) o << (i ? ", " : "") << p.inputs[i].name;
  o << "):\n";
  std::vector<size_t> open;  // the autocast regions whose `with` blocks are open, outermost first
  for (const auto& n : p.nodes) {
    const OpSpec& spec = GetOpSpec(n.op);
    // TorchScript has no torch.autocast (torch::jit::compile's resolver): its dialects leave the
    // regions out, and the torchscript path runs only programs where they change nothing.
    const std::vector<size_t> path = ts ? std::vector<size_t>{} : RegionPath(p, n.autocast);
    size_t keep = 0;
    while (keep < open.size() && keep < path.size() && open[keep] == path[keep]) ++keep;
    open.resize(keep);
    for (size_t i = keep; i < path.size(); ++i) {
      const AutocastRegion& r = p.autocast[path[i]];
      o << std::string(4 * (open.size() + 1), ' ') << "with torch.autocast("
        << PyStr(std::string(DeviceName(r.device))) << ", dtype=" << TorchDType(r.dtype)
        << (r.enabled ? "" : ", enabled=False") << "):\n";
      open.push_back(path[i]);
    }
    o << std::string(4 * (open.size() + 1), ' ') << n.name << " = ";
    if (n.op == OpKind::kCast) {
      bool method =
          n.method_spelling && CastMethodName(*n.dtype) && !(ts && *n.dtype == DType::kBFloat16);
      if (method)
        o << n.args[0] << "." << *CastMethodName(*n.dtype) << "()\n";
      else
        o << n.args[0] << ".to(" << dtype(*n.dtype) << ")\n";
      continue;
    }
    if (n.op == OpKind::kToDevice) {
      o << n.args[0] << ".to(" << PyStr(std::string(DeviceName(*n.device))) << ")\n";
      continue;
    }
    if (n.op == OpKind::kSlice) {  // x[:, :, start:end:step] or, for a negative dim, x[...,
                                   // start:end:step, :]
      o << n.args[0] << "[";
      int64_t dim = n.ints[0];
      if (dim >= 0) {
        for (int64_t i = 0; i < dim; ++i) o << ":, ";
      } else {
        o << "..., ";
      }
      o << n.ints[1] << ":" << n.ints[2] << ":" << n.ints[3];
      for (int64_t i = dim; i < -1; ++i) o << ", :";
      o << "]\n";
      continue;
    }
    if (n.op == OpKind::kSoftmax) {
      o << "torch.softmax(" << n.args[0] << ", dim=" << n.ints[0];
      if (n.dtype) o << ", dtype=" << dtype(*n.dtype);
      o << ")\n";
      continue;
    }
    if (n.op == OpKind::kFull) {  // its argument gives the device and the default dtype only
      o << call(spec.torch_call) << "([";
      for (size_t i = 0; i < n.ints.size(); ++i) o << (i ? ", " : "") << n.ints[i];
      o << "], " << PyFloat(n.alpha)
        << ", dtype=" << (n.dtype ? dtype(*n.dtype) : n.args[0] + ".dtype")
        << ", device=" << n.args[0] << ".device)\n";
      continue;
    }
    if (n.op == OpKind::kDropout) {
      o << call(spec.torch_call) << "(" << n.args[0] << ", " << PyFloat(n.dropout_p) << ", "
        << (n.train ? "True" : "False") << ")\n";
      continue;
    }
    if (n.op == OpKind::kSdpa) {
      o << call(spec.torch_call) << "(" << n.args[0] << ", " << n.args[1] << ", " << n.args[2];
      if (n.args.size() == 4) o << ", attn_mask=" << n.args[3];
      if (n.is_causal) o << ", is_causal=True";
      if (n.scale) o << ", scale=" << PyFloat(*n.scale);
      if (n.enable_gqa) o << ", enable_gqa=True";
      o << ")\n";
      continue;
    }
    if (IsView(n.op)) {
      o << n.args[0] << spec.torch_call << "(";
      if (n.op == OpKind::kTranspose || n.op == OpKind::kNarrow) {
        for (size_t i = 0; i < n.ints.size(); ++i) o << (i ? ", " : "") << n.ints[i];
      } else if (n.op != OpKind::kContiguous) {
        o << PyShape(n.ints);
      }
      o << ")\n";
      continue;
    }
    o << call(spec.torch_call) << "(";
    for (size_t a = 0; a < n.args.size(); ++a) o << (a ? ", " : "") << n.args[a];
    if (HasScalar(n.op)) o << ", " << PyFloat(n.alpha);
    if (n.op == OpKind::kTril) o << ", " << n.ints[0];
    if (n.op == OpKind::kGelu && n.gelu_tanh) o << ", approximate=\"tanh\"";
    if (n.op == OpKind::kClamp)  // integral bounds as Python ints: an integer x stays integer
      o << ", " << static_cast<int64_t>(n.alpha) << ", " << static_cast<int64_t>(n.beta);
    if (spec.has_alpha_beta) o << ", beta=" << PyFloat(n.beta) << ", alpha=" << PyFloat(n.alpha);
    o << ")\n";
  }
  o << "    return (";
  for (size_t i = 0; i < p.outputs.size(); ++i) o << (i ? ", " : "") << p.outputs[i];
  o << (p.outputs.size() == 1 ? ",)\n" : ")\n");
  return o.str();
}

std::string EmitModule(const Program& p) {
  if (!HasWeights(p)) return "";
  std::vector<std::string> weights, forward, call;
  std::string indices[3];  // the weights, the forward's inputs, the parameters
  auto add = [](std::string& list, size_t i) {
    list += (list.empty() ? "" : ", ") + std::to_string(i);
  };
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const InputSpec& in = p.inputs[i];
    (IsWeight(in) ? weights : forward).push_back(in.name);
    call.push_back(IsWeight(in) ? "self." + in.name : in.name);
    add(indices[IsWeight(in) ? 0 : 1], i);
    if (in.role == InputRole::kParameter) add(indices[2], i);
  }
  auto joined = [](const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += ", " + n;
    return out;
  };
  std::ostringstream o;
  o << "class Model(torch.nn.Module):\n"
       "    \"\"\"f as a model: the module holds its weights (its parameters and buffers), and "
       "forward\n"
       "    takes the other inputs.\"\"\"\n\n"
       "    def __init__(self"
    << joined(weights) << "):\n        super().__init__()\n";
  for (const auto& in : p.inputs) {
    if (in.role == InputRole::kParameter)
      o << "        self." << in.name << " = " << in.name << "  # a torch.nn.Parameter\n";
    else if (in.role == InputRole::kBuffer)
      o << "        self.register_buffer(" << PyStr(in.name) << ", " << in.name << ")\n";
  }
  o << "\n    def forward(self" << joined(forward) << "):\n        return f(";
  for (size_t i = 0; i < call.size(); ++i) o << (i ? ", " : "") << call[i];
  o << ")\n\n\n"
    << "WEIGHTS = [" << indices[0] << "]  # the inputs Model holds, by position\n"
    << "PARAMETERS = [" << indices[2] << "]  # those of them it holds as torch.nn.Parameters\n"
    << "FORWARD = [" << indices[1] << "]  # the inputs its forward takes\n";
  return o.str();
}

namespace {

// {'kind': ..., 'seed': ..., ...}: a recipe as the Python twin of RecipeValues reads it, with the
// recipe of the weights, where it has one, as 'weights'.
std::string PyRecipe(const InputRecipe& r) {
  std::ostringstream o;
  o << "{'kind': " << PyStr(r.kind) << ", 'seed': " << r.seed << ", 'lo': " << PyFloat(r.lo)
    << ", 'hi': " << PyFloat(r.hi) << ", 'mean': " << PyFloat(r.mean)
    << ", 'std': " << PyFloat(r.std) << ", 'special': " << PyFloat(r.special) << ", 'zeroed': [";
  for (size_t i = 0; i < r.zeroed.size(); ++i) o << (i ? ", " : "") << r.zeroed[i];
  o << "]";
  if (!r.weights.empty()) o << ", 'weights': " << PyRecipe(r.weights.front());
  o << "}";
  return o.str();
}

// One line per input of `p` building it from `recipe` (a Python expression) and its shape (each
// input's own, or shapes[i] where `shapes` names a list).
std::string InputLines(const Program& p, const std::string& recipe, const std::string& shapes) {
  std::ostringstream o;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const auto& in = p.inputs[i];
    // A weight's values come from the recipe's weights (module_call makes a parameter one).
    o << "        _mmdiff_input("
      << (IsWeight(in) ? "_mmdiff_weights_recipe(" + recipe + ")" : recipe) << ", " << i << ", "
      << (shapes.empty() ? PyShape(in.shape) : shapes + "[" + std::to_string(i) + "]") << ", "
      << TorchDType(in.dtype) << ", " << PyStr(std::string(DeviceName(in.device))) << ", "
      << (in.layout == Layout::kTransposed ? "True" : "False")
      << (in.requires_grad ? ", requires_grad=True" : "") << "),  # " << in.name
      << (IsWeight(in) ? " (" + std::string(InputRoleName(in.role)) + ")" : "") << "\n";
  }
  return o.str();
}

}  // namespace

std::string EmitInputBuilder(const Program& p, const InputRecipe& r) {
  std::ostringstream o;
  o << "RECIPE = " << PyRecipe(r) << "\n\n\n"
    << embedded::kReproInputsPy
    << "\n\n"
       "def make_inputs():\n"
       "    return [\n"
    << InputLines(p, "RECIPE", "") << "    ]\n\n\n"
    << "# Training: the inputs whose gradients every run returns after the outputs.\n"
    << "GRAD_INPUTS = [";
  std::vector<size_t> grads = GradientInputs(p);
  for (size_t i = 0; i < grads.size(); ++i) o << (i ? ", " : "") << grads[i];
  o << "]\n";
  return o.str();
}

std::string EmitCallsBefore(const Program& p, const std::vector<PriorCall>& before) {
  if (before.empty()) return "";
  std::ostringstream o;
  o << "# The calls before the finding's: in mmdiff's run the compiled function was called on "
       "these\n"
       "# inputs first (its first compile, then new sizes), and the finding shows only after "
       "them.\n"
       "# (recipe, each input's shape), in call order.\n"
       "CALLS_BEFORE = [\n";
  for (const auto& c : before) {
    o << "    (" << PyRecipe(c.recipe) << ", [";
    for (size_t i = 0; i < c.shapes.size(); ++i) o << (i ? ", " : "") << PyShape(c.shapes[i]);
    o << "]),\n";
  }
  o << "]\n\n\n"
       "def make_inputs_before(recipe, shapes):\n"
       "    return [\n"
    << InputLines(p, "recipe", "shapes") << "    ]\n\n\n"
    << embedded::kReproCallsBeforePy;
  return o.str();
}

namespace {

// ('torch.float32', (2, 3), 'cpu'): a result type as outcome() prints it.
std::string PyResultType(const ReproOptions::ResultType& t) {
  return "(" + PyStr(TorchDType(t.dtype)) + ", " + PyShape(t.shape) + ", " +
         PyStr(std::string(DeviceName(t.device))) + ")";
}

// Asserts that `outs` (a list of tensors) holds the reference value at the finding's element.
// With `eager_outs`, eager's value there is checked first: where eager is beyond the bound too,
// the finding (the compiled path off where eager is not) does not show, and the attempt returns
// (seen on a float16 program near overflow: eager in the worker gave 0, eager in Python NaN).
std::string WorstCheck(const Program& p, const ReproOptions::Worst& w, const std::string& outs,
                       const std::string& who, const std::string& eager_outs = "") {
  std::ostringstream o;
  // A program output by its index, a gradient by its name ("grad(x)").
  std::string label = IsGradientResult(p, static_cast<size_t>(w.output))
                          ? ResultName(p, static_cast<size_t>(w.output))
                          : "output " + std::to_string(w.output);
  auto at = [&](const std::string& of) {
    return of + "[" + std::to_string(w.output) + "].reshape(-1)[" + std::to_string(w.element) +
           "].double().item()";
  };
  o << "expected, allowed = " << PyNumber(w.expected) << ", " << PyNumber(w.allowed) << "\n"
    << "def within(got):\n"
       "    return (math.isnan(got) and math.isnan(expected)) or got == expected or abs(got - "
       "expected) <= allowed\n";
  if (!eager_outs.empty())
    o << "eager_got = " << at(eager_outs) << "\n"
      << "if not within(eager_got):\n"
      << "    print(\"eager " << label << " element " << w.element
      << ": got\", eager_got, \"reference\", expected, \"allowed error\", allowed, \"- eager is "
         "beyond the bound there too, so the finding, "
      << who << " off where eager is not, does not show\")\n"
      << "    return\n";
  o << "got = " << at(outs) << "\n"
    << "print(\"" << who << " " << label << " element " << w.element
    << ": got\", got, \"reference\", expected, \"allowed error\", allowed)\n"
    << "assert within(got), \"" << who << " is beyond the rounding bound at that element\"\n";
  return o.str();
}

}  // namespace

std::string EmitRepro(const Program& p, const InputRecipe& r, const ReproOptions& opt) {
  using Check = ReproOptions::Check;
  std::ostringstream o;
  o << "#!/usr/bin/env python3\n\"\"\""
    << DocText(opt.title.empty() ? "mmdiff reproducer" : opt.title) << "\n\n";
  for (const auto& n : opt.notes) o << DocText(n) << "\n";
  o << "Program: " << DocText(p.Summary()) << "\n";
  const ReproCompiled compiled = ReproCompiledFor(p, opt.backend);
  switch (opt.check) {
    case Check::kCompiledVsEager:
      o << "Runs with plain `python` and a stock torch; exits non-zero while eager and "
        << compiled.description << " disagree.\n";
      break;
    case Check::kMetaVsCpu:
      o << "Runs with plain `python` and a stock torch; exits non-zero while f on meta tensors "
           "raises or returns "
           "otherwise than on cpu.\n";
      break;
    case Check::kEagerVsContract:
      o << "Runs with plain `python` and a stock torch; exits non-zero while eager "
        << (opt.contract_rejects ? "does not raise " + opt.contract_error_class
                                 : std::string("does not return the documented result"))
        << ".\n";
      break;
    case Check::kEagerValue:
      o << "Runs with plain `python` and a stock torch; exits non-zero while eager's value is "
           "beyond the rounding "
           "bound.\n";
      break;
    case Check::kIgnoredInput:
      o << "Runs with plain `python` and a stock torch; exits non-zero while "
        << (opt.backend.empty() ? std::string("eager") : compiled.description)
        << " returns another result when the inputs its op must ignore are replaced by zeros.\n";
      break;
  }
  // Exit 3 tells "the script could not run what it compares here" apart from 0 (the finding is
  // gone) and 1 (it is there): a script that cannot rebuild mmdiff's run must not read as either.
  const bool builds = opt.check == Check::kCompiledVsEager && !compiled.build.empty();
  o << "Exit status " << kReproFailedExitCode
    << " (REPRODUCER FAILED): the script itself failed and compared nothing: its inputs cannot be "
       "built here";
  if (builds && !opt.compile_error_is_finding.value_or(true))
    o << ", or " << compiled.name << " could not compile f, which mmdiff's path compiled";
  if (builds && !opt.compile_error_is_finding)
    o << ", or " << compiled.name << " could not compile f where eager raised";
  o << ".\n";
  if (builds && opt.compile_error_is_finding.value_or(false))
    o << compiled.name
      << " failing to compile f is the finding: that error is the outcome compared with eager's.\n";
  o << "\"\"\"\nimport math\nimport platform\nimport sys\n\nimport torch\n\n";
  // The settings in force: the caller's, then those of the compared knob variant (which win).
  std::map<std::string, std::string> knobs = opt.knobs;
  const bool compares_compiled = opt.check == Check::kCompiledVsEager ||
                                 (opt.check == Check::kIgnoredInput && !opt.backend.empty());
  if (compares_compiled)
    for (const KnobSetting& k : compiled.knobs) knobs[k.name] = k.value;
  if (!knobs.empty()) {
    o << "import torch._inductor.config\n";
    for (const auto& [k, v] : knobs) o << "torch._inductor.config." << k << " = " << v << "\n";
    o << "\n";
  }
  o << "print(f\"torch {torch.__version__}, python {platform.python_version()}\")\n\n\n";
  // The finding needs the calls before it where the compared path keeps state (torch.compile's
  // backends and TorchScript: their compiled function is called first on those inputs).
  const bool stateful_backend =
      !opt.backend.empty() && ReproKindOf(opt.backend) != ReproKind::kAoti;
  const bool calls = !opt.before.empty() && stateful_backend &&
                     (opt.check == Check::kCompiledVsEager || opt.check == Check::kIgnoredInput);
  o << EmitInputBuilder(p, r) << "\n\n" << EmitFunction(p, "f") << "\n\n";
  // A program with weights runs as a model, eager too: Model holds them (module_call).
  if (HasWeights(p)) o << EmitModule(p) << "\n\n" << embedded::kReproModulePy << "\n\n";
  o << "REPRODUCER_FAILED = " << kReproFailedExitCode << "\n\n\n"
    << embedded::kRootCausePy << "\n\n"
    << embedded::kReproOutcomePy << "\n\n";
  if (calls) o << EmitCallsBefore(p, opt.before) << "\n\n";
  // What compiling f needs (TorchScript's source of f, the AOTInductor helper), defined once.
  if (opt.check == Check::kCompiledVsEager ||
      (opt.check == Check::kIgnoredInput && !opt.backend.empty()))
    o << compiled.setup;
  if (opt.check == Check::kMetaVsCpu) o << embedded::kReproMetaPy << "\n\n";
  if (opt.check == Check::kIgnoredInput) {
    std::string zeroed;
    for (int i : opt.zeroed) zeroed += (zeroed.empty() ? "" : ", ") + std::to_string(i);
    o << "ZEROED = [" << zeroed
      << "]  # the inputs (by position) the op must ignore: beta = 0\n\n\n"
      << embedded::kReproIgnoredInputPy << "\n\n";
  }
  // The check, run up to ATTEMPTS times (conclude() in repro_outcome.py).
  std::ostringstream b;
  b << "eager = outcome(" << (HasWeights(p) ? "module_call()" : "f") << ")\n"
    << "show(\"eager:   \", eager)\n";
  // The compiled function, made once per attempt, called on the calls before first.
  auto compiled_callable = [&](const std::string& name) {
    b << "torch._dynamo.reset()\n";
    b << name << " = " << (compiled.build.empty() ? compiled.callable : compiled.build) << "\n";
    if (calls) b << "calls_before(" << name << ")\n";
  };
  switch (opt.check) {
    case Check::kCompiledVsEager:
      if (builds) {
        b << "torch._dynamo.reset()\n";
        // Compiled apart from the run: a compile error must not pass for f's outcome (issue 16),
        // unless it is what the finding is about.
        b << "try:\n"
             "    compiled_f = "
          << compiled.build
          << "\n"
             "except Exception as e:\n"
             "    compiled_f, compile_error = None, error_of(e)\n";
        if (!opt.compile_error_is_finding.has_value()) {
          b << "    if eager[0] == \"error\":  # the two errors' classes may match, but say "
               "nothing about f\n"
               "        reproducer_failed(\""
            << compiled.name
            << " could not compile f, and eager raised\", compile_error)\n"
               "    print(\""
            << compiled.name << " could not compile f\")\n";
        } else if (*opt.compile_error_is_finding) {
          b << "    print(\"" << compiled.name
            << " could not compile f, as in mmdiff's run (the finding)\")\n";
        } else {
          b << "    reproducer_failed(\"" << compiled.name
            << " could not compile f here, which mmdiff's path compiled\",\n"
               "                      compile_error)\n";
        }
        if (ReproKindOf(opt.backend) == ReproKind::kTorchScript && Trains(p))
          // As mmdiff runs a training program: after the graph executor's profiling runs, on the
          // optimized graph (TorchScript's autodiff), made on the first call's inputs.
          b << "for _ in range(torch._C._jit_get_num_profiled_runs() if compiled_f else 0):\n"
               "    try:\n"
               "        compiled_f(*inputs("
            << (calls ? "lambda: make_inputs_before(*CALLS_BEFORE[0])" : "")
            << "))  # a profiling run\n"
               "    except Exception:\n"
               "        pass  # the run below raises it again\n";
        if (calls) b << "if compiled_f is not None:\n    calls_before(compiled_f)\n";
        b << "compiled = compile_error if compiled_f is None else outcome(compiled_f)\n";
      } else {
        compiled_callable("compiled_f");
        b << "compiled = outcome(compiled_f)\n";
      }
      b << "show(\"compiled:\", compiled)\n"
        << "assert same_outcome(eager, compiled), \"eager and " << compiled.name
        << " disagree (see above)\"\n";
      if (opt.worst.output >= 0) {
        b << WorstCheck(p, opt.worst, "compiled[2]", compiled.name, "eager[2]");
      } else if (opt.value_atol >= 0) {
        b << "for e_out, c_out in zip(eager[2], compiled[2]):\n"
             "    diff = (e_out.double() - c_out.double()).abs().max().item() if e_out.numel() "
             "else 0.0\n"
             "    print(\"max |eager - compiled| =\", diff)\n"
             "    assert diff <= "
          << PyFloat(opt.value_atol) << ", \"values differ beyond the error bound\"\n";
      }
      b << "print(\"eager and compiled agree\")\n";
      break;
    case Check::kMetaVsCpu:
      b << "meta = outcome(f, on_meta=True)\n"
           "show(\"on meta: \", meta)\n"
           "assert predicted(eager) == predicted(meta), \"eager on meta tensors predicts another "
           "outcome than eager on "
           "cpu (see above)\"\n"
           "print(\"meta predicts cpu\")\n";
      break;
    case Check::kEagerVsContract:
      if (opt.contract_rejects) {
        b << "assert eager[:2] == (\"error\", " << PyStr(opt.contract_error_class)
          << "), \"eager does not raise what the contract says it must (see the docstring)\"\n";
      } else {
        b << "expected = [";
        for (size_t i = 0; i < opt.contract_types.size(); ++i)
          b << (i ? ", " : "") << PyResultType(opt.contract_types[i]);
        b << "]\nprint(\"expected:\", expected)\n"
             "assert eager[0] == \"ok\" and eager[1] == expected, \"eager does not return the "
             "documented result "
             "(see the docstring)\"\n";
      }
      b << "print(\"eager follows the contract\")\n";
      break;
    case Check::kIgnoredInput: {
      std::string who = opt.backend.empty() ? "eager" : compiled.name;
      if (opt.backend.empty())
        b << "g = f\n";
      else
        compiled_callable("g");
      b << "as_given, with_zeros = outcome(g), outcome_with_zeros(g)\n"
           "show(\""
        << who
        << ", inputs as given:   \", as_given)\n"
           "show(\""
        << who
        << ", ignored inputs 0: \", with_zeros)\n"
           "same = same_outcome(as_given, with_zeros)\n"
           "if same and as_given[0] == \"ok\":\n"
           "    for i, (x, y) in enumerate(zip(as_given[2], with_zeros[2])):\n"
           "        x, y = x.double().cpu().reshape(-1), y.double().cpu().reshape(-1)\n"
           "        equal = (x == y) | (x.isnan() & y.isnan())  # NaN meets NaN; +0 meets -0\n"
           "        if not bool(equal.all()):\n"
           "            e = int((~equal).nonzero()[0])\n"
           "            print(f\"output {i} element {e}: {x[e].item()} as given, {y[e].item()} "
           "with zeros\")\n"
           "            if eager[0] == \"ok\":\n"
           "                print(f\"eager, inputs as given: "
           "{eager[2][i].double().cpu().reshape(-1)[e].item()}\")\n"
           "            same = False\n"
           "assert same, \""
        << who
        << " reads inputs its op must ignore (beta = 0): the result changes with them\"\n"
           "print(\""
        << who << " ignores them\")\n";
      break;
    }
    case Check::kEagerValue:
      b << "assert eager[0] == \"ok\", \"eager raised\"\n";
      if (opt.worst.output >= 0) b << WorstCheck(p, opt.worst, "eager[2]", "eager");
      b << "print(\"eager is within the rounding bound\")\n";
      break;
  }
  o << "ATTEMPTS = " << std::max(opt.attempts, 1)
    << "  # runs of the check before the script concludes the finding is gone\n\n\n"
       "def attempt():\n";
  std::istringstream lines(b.str());
  for (std::string line; std::getline(lines, line);)
    o << (line.empty() ? "" : "    ") << line << "\n";
  o << "\n\nconclude(attempt, ATTEMPTS)\n";
  return o.str();
}

}  // namespace mmdiff
