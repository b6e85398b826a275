// Inline SVG plots for triage.html: divergences by op x dtype, error magnitude against K, and
// buckets over time. Each plot is one <figure id="plot-..."> holding an <svg> whose data marks
// carry the class "mark", or, when there is nothing to draw, a <p class="no-data"> note instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

// Diverging cases by (op, input dtype): a case counts once in each cell of its program's
// matmul-family ops (and attention) x its distinct input dtypes. Ops in IR order, dtypes from
// float64 down to bool. Cases whose program could not be read are left out.
struct OpDtypeCell {
  std::string op, dtype;
  int64_t cases = 0;
  int64_t buckets = 0;
};
std::vector<OpDtypeCell> OpDtypeCounts(const TriageData& d);

// id "plot-op-dtype": a heatmap, one <rect class="mark cell"> per non-empty cell.
std::string OpDtypePlot(const TriageData& d);
// id "plot-error-k": |got - expected| of each value divergence's worst element against K, both
// axes log scale; one <circle class="mark point"> per sample, a tick at the allowed error.
std::string ErrorKPlot(const TriageData& d);
// id "plot-buckets-time": the cumulative number of buckets against first_found_s (the earliest over
// the campaigns that saw each); one <circle class="mark bucket"> per bucket with a time.
std::string BucketsOverTimePlot(const TriageData& d);

// The fill colour of a class in the plots and the table.
std::string ClassColour(BucketClass c);

}  // namespace mmdiff::triage
