// mmdiff's exit codes, shared by the CLI and the workflows it starts (documented in --help and the
// README).
#pragma once

namespace mmdiff {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDiverged = 1;     // `run`: the verdict is "diverge"
inline constexpr int kExitUsage = 2;        // bad arguments or unreadable/invalid input files
inline constexpr int kExitEnvironment = 3;  // worker cannot start, output folder not writable
inline constexpr int kExitFixed = 4;  // `replay`: an expected divergence is gone (fixed upstream?)
inline constexpr int kExitNewBehaviour =
    5;  // `replay`: a verdict changed in another way (takes precedence over 4)

}  // namespace mmdiff
