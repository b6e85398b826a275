// How the program fuzzer (fuzz/program_fuzzer.cc) reads its input bytes, shared with `mmdiff
// replay` so that an artifact replays as exactly the case the fuzzer ran: a case as JSON
// ({"program", "inputs"}, what `mmdiff gen --case` prints; a report or regression entry also has
// both), else generator choice bytes. Every byte string stands for some case.
#pragma once

#include <string>
#include <string_view>

#include "src/gen/generator.h"
#include "src/gen/policy.h"

namespace mmdiff {

// The paths the program fuzzer runs when MMDIFF_FUZZ_PATHS is not set.
inline constexpr const char* kFuzzDefaultPaths = "reference,eager,inductor";

enum class FuzzInputKind {
  kEmpty,    // no bytes: a plain legal float32 mm (libFuzzer's first input), so that seeds lead
  kCase,     // a JSON object whose "program" parses and verifies and whose "inputs" (if any) parse
  kChoices,  // anything else: the generator driven by the bytes (then a seeded fallback)
};
// "empty input", "case JSON", "generator bytes".
std::string_view FuzzInputKindName(FuzzInputKind k);

struct FuzzInput {
  GeneratedCase gc;
  FuzzInputKind kind = FuzzInputKind::kEmpty;
  // For kChoices: why the bytes were not read as a case ("not JSON", "no \"program\"", the
  // program's or recipe's error, the verifier's).
  std::string not_a_case;
};

// Pure: the same bytes and policy always give the same case.
FuzzInput DecodeFuzzInput(std::string_view bytes, const GenPolicy& policy);

// The case as the JSON text DecodeFuzzInput reads back as kCase.
std::string EncodeFuzzCase(const Program& p, const InputRecipe& r);

}  // namespace mmdiff
