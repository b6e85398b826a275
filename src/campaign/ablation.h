// Automatic ablation: a case whose divergence involves a path other than eager is rerun on the
// ladder of torch.compile's stages — Dynamo alone (backend="eager"), + AOTAutograd ("aot_eager"),
// + Inductor — and, when Inductor diverges, on Inductor's knob variants; the blamed path is added
// when it is not on the ladder (e.g. torchscript, aoti). The report records, like the table of a
// PyTorch issue, what each stage did and which stage diverges first.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/exec/supervisor.h"
#include "src/report/report.h"

namespace mmdiff {

struct AblationStage {
  std::string path;
  std::string backend;  // how a PyTorch user spells it
};

// The ladder (the path catalogue's ablation rungs, lowest first), then the knob variants of a path
// (of the top rung, Inductor), each named by its catalogue description.
const std::vector<AblationStage>& AblationLadder();
std::vector<AblationStage> VariantStages(const std::string& path);

// The stages' rows (oracles/case_run.h), the first eager itself, and the first stage that diverges.
// None when the finding's divergence involves no path other than eager, the reference and eager on
// meta. Stages unavailable in this worker are left out.
// `signatures`, where given, gets the root-cause signature of each stage's divergence (by path),
// for LowerToBaseVariant.
std::optional<Ablation> RunAblation(Supervisor& sup, const CaseRun& c,
                                    std::map<std::string, std::string>* signatures = nullptr);

// The root cause of a finding blamed on knob variant V (`root_cause`; `signature`, the case's as
// found), where the ablation showed a variant V builds on (VariantBuildsOn) diverging with the
// same signature but for its path: that variant's, the one with fewest knobs (freezing's
// AssertionError shown by inductor_freezing_dynamic too is inductor_freezing's). Else unchanged.
std::string LowerToBaseVariant(const std::string& root_cause, const std::string& signature,
                               const std::map<std::string, std::string>& signatures);

}  // namespace mmdiff
