// The contract: what eager must do for a program — the result type of every value, or the first
// op it must reject and with which error class. The reference path follows it, so when eager and a
// compiled path disagree, it says which one broke the rules.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "src/ir/program.h"

namespace mmdiff {

struct ValueType {
  Shape shape;
  DType dtype = DType::kFloat32;
  Device device = Device::kCpu;
  bool operator==(const ValueType&) const = default;
};

struct ContractViolation {
  std::string node;         // the first node eager must reject
  std::string rule;         // rule id, e.g. "same_dtype"
  std::string error_class;  // Python class of eager's error: "RuntimeError", "NotImplementedError"
  std::string message;      // what is wrong, in mmdiff's words
  std::string source;       // where the rule comes from (ATen source or docs)
  // A training program whose forward runs but whose backward eager must reject (at `node`, the op
  // whose backward raises).
  bool backward = false;
  // Where eager on this device is known to break the rule here (it accepts what the rule rejects:
  // docs/judging.md, "Where eager breaks the rule"), the id of that row of ContractRules(), e.g.
  // "empty_bmm_dtype"; "" elsewhere. The contract follows the rule, so eager accepting is eager's
  // finding, and the id names it whatever the op it is met in.
  std::string eager_deviation;
};

struct Expectation {
  bool rejects = false;
  ContractViolation violation;             // when rejects
  std::map<std::string, ValueType> types;  // every value defined before the violation
  // when !rejects: the program's outputs, then (training programs) the gradients of its
  // requires_grad inputs, each with its input's type; named as ResultName names them.
  std::vector<ValueType> outputs;
  std::vector<std::string> result_names;
  size_t first_gradient = 0;  // results from here on are gradients (= the program's output count)
};

// The type the contract gives `value`; nullptr past its violation or for an unknown name.
inline const ValueType* TypeOf(const Expectation& c, const std::string& value) {
  auto it = c.types.find(value);
  return it == c.types.end() ? nullptr : &it->second;
}

// True when result number `result` of a path is a gradient, not a program output.
inline bool IsGradient(const Expectation& c, int result) {
  return result >= 0 && static_cast<size_t>(result) >= c.first_gradient &&
         static_cast<size_t>(result) < c.result_names.size();
}

// The values that require grad in a training program: its requires_grad inputs, then every
// floating value computed from one. `types` holds the type of every value it names.
std::set<std::string> GradTrackedValues(const Program& p,
                                        const std::map<std::string, ValueType>& types);

// A torch release (major, minor): the rules that changed between releases follow it.
struct TorchRelease {
  int major = 2, minor = 15;
  auto operator<=>(const TorchRelease&) const = default;
};
// "2.11.0+cu130" -> {2, 11}; the newest release the contract knows ({2, 15}) when the text is not
// a version (a build without torch).
TorchRelease ParseTorchRelease(std::string_view version);
// The release this build's worker runs (build_info::kTorchVersion).
TorchRelease BuildTorchRelease();

// What eager on `torch` must do with the program; the first overload asks BuildTorchRelease().
Expectation Expect(const Program& p);
Expectation Expect(const Program& p, TorchRelease torch);

// One row of the rule table, for documentation and `mmdiff contract`. A row where eager breaks a
// rule that the contract keeps (a violation's eager_deviation) says in `where` how a headline names
// the case, e.g. "with an empty operand".
struct ContractRule {
  std::string id, applies_to, requirement, error_class, source, where;
};
const std::vector<ContractRule>& ContractRules();
// The row with that id; nullptr for none.
const ContractRule* FindContractRule(std::string_view id);

}  // namespace mmdiff
