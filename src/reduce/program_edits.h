// Structural program edits for reduction: dead-code removal, rerouting the uses of a value,
// removing sets of nodes with substitutes of the same static type, and keeping one output.
// Every edit returns a tidied program (re-legalised, dead nodes and unused inputs dropped); whether
// it verifies is for the caller to check.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "src/ir/program.h"
#include "src/ir/static_types.h"

namespace mmdiff {

using StaticTypes = std::map<std::string, StaticType>;

// Same known shape and same dtype: one value may stand in for the other without changing types
// downstream.
bool SameStaticType(const StaticTypes& types, const std::string& a, const std::string& b);

// Legalize, then drop the nodes no output depends on, then the inputs nothing reads.
Program Tidy(Program p);

// Every use of `from` (node arguments and outputs) reads `to` instead.
void ReplaceUses(Program& p, const std::string& from, const std::string& to);

// The values that could replace node `name` when it is removed, best first: its arguments of the
// same static type, then earlier values (inputs, nodes before it) of the same static type, then its
// other arguments. Empty when the node does not exist.
std::vector<std::string> Substitutes(const Program& p, const StaticTypes& types,
                                     const std::string& name);

// Node `name` removed, its uses reading `replacement` (which must be defined before the node).
Program Bypass(const Program& p, const std::string& name, const std::string& replacement);

// The nodes in `names` removed together. Each use of a removed node reads the first of its
// arguments of the same static type that survives (looking through removed arguments); uses with no
// such substitute are dropped along with everything that depends on them.
Program RemoveNodes(const Program& p, const StaticTypes& types, const std::set<std::string>& names);

// Only `name` is an output; everything it does not depend on is dropped.
Program KeepOnlyOutput(const Program& p, const std::string& name);

// The names of the nodes whose static shape is known (eager accepts their shapes).
std::set<std::string> ShapeValidNodes(const Program& p);

}  // namespace mmdiff
