// Reproduced before reported: a campaign's new finding is run again on its own before it is listed
// as a new root cause. Its repro.py runs in a fresh Python of the campaign's venv; unless that
// shows the finding at once, its case, with its calls before, runs again in a fresh worker (a new
// process, then a fresh start in it). A finding that none of the reruns shows, or whose repro.py
// does not show it, is listed apart ("not
// reproduced standalone"), never among the new root causes; one that shows only some of the time
// says so, with the rate (seen on torch 2.15.0: eager's bfloat16 baddbmm with alpha = 0 reads
// uninitialised memory, and its repro.py exited 0 once and 1 the next time).
#pragma once

#include <string>
#include <vector>

#include "src/exec/supervisor.h"
#include "src/report/report.h"
#include "src/report/rerun_records_json.h"

namespace mmdiff {

struct StandaloneOptions {
  // The interpreter repro.py runs with (the campaign's venv); "": repro.py is not run.
  std::string python;
  int worker_runs = 2;     // reruns of the case where repro.py does not settle it: the first in a
                           // fresh worker process
  double timeout_s = 600;  // per repro.py run
  std::vector<std::string> env;  // set for repro.py (e.g. the campaign's Inductor cache)
};

// Runs repro.py of `c` (a judged case, about its finding c.finding; MakeRepro(c, ctx)) once in a
// fresh Python, in a private folder: exit 1 is a hit (at the attempt its output names), 0 a miss
// after every attempt, anything else (3: it could not run its comparison here; a crash; a
// time-out; exit 1 from an uncaught error, without the line that a hit prints) a miss. A hit at
// the first attempt settles it: reproduced, and the reruns below are not made. Otherwise (a miss,
// a hit at a later attempt, a test-only path repro.py cannot build, no Python) the case runs again
// on the paths of `paths` its finding needs (FindingPaths, with the lower stages where they can
// lower it), options.worker_runs times, the first after sup.Renew(); each run counts when it shows
// the finding's root cause with its classification (KeptFinding).
StandaloneRecord CheckStandalone(Supervisor& sup, const CaseRun& c,
                                 const std::vector<std::string>& paths, const RunContext& ctx,
                                 const StandaloneOptions& options);

// The attempt at which a repro.py run that exited `exit_code` showed the finding, from its output
// ("attempt K of N: the finding shows"), and how many it made: {attempts, hits}. `attempts` is the
// script's ATTEMPTS. A script of several attempts prints that line before it exits 1 on the
// finding, so exit 1 without it is an error of the script (Python's exit status for an uncaught
// exception): {0, 0}. A script of one attempt says nothing: exit 1 is a hit at the first.
std::pair<int, int> ReproAttempts(const std::string& output, int exit_code, int attempts);

// The last non-blank line of `output`, its first 200 bytes, fit for a terminal (TerminalLine).
std::string LastLine(const std::string& output);

}  // namespace mmdiff
