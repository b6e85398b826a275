// SVG plots for the triage page.
#include "src/triage/triage_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "src/ir/dtype.h"
#include "src/ir/op.h"
#include "src/triage/triage_text.h"

namespace mmdiff::triage {

namespace {

// A coordinate with one decimal.
std::string C(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", x);
  return buf;
}

std::string Opacity(double x) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%.2f", x);
  return buf;
}

int OpOrder(const std::string& op) {
  auto k = ParseOpKind(op);
  return k ? static_cast<int>(*k) : 1000;
}

int DTypeOrder(const std::string& dtype) {
  auto d = ParseDType(dtype);
  return d ? static_cast<int>(*d) : 1000;
}

std::string Figure(const std::string& id, const std::string& title, const std::string& caption,
                   const std::string& body) {
  return "<figure id=\"" + id + "\" class=\"plot\">\n<figcaption><strong>" + HtmlEscape(title) +
         "</strong> " + HtmlEscape(caption) + "</figcaption>\n" + body + "</figure>\n";
}

std::string NoData(const std::string& why) {
  return "<p class=\"no-data\">No data: " + HtmlEscape(why) + "</p>\n";
}

std::string Legend(double x, double y) {
  std::ostringstream s;
  for (BucketClass c :
       {BucketClass::kFilable, BucketClass::kUnclassified, BucketClass::kPrecisionOnly}) {
    s << "<circle cx=\"" << C(x) << "\" cy=\"" << C(y - 4) << "\" r=\"4\" fill=\"" << ClassColour(c)
      << "\"/>"
      << "<text x=\"" << C(x + 8) << "\" y=\"" << C(y) << "\" class=\"legend\">"
      << BucketClassName(c) << "</text>\n";
    x += 110;
  }
  return s.str();
}

// A log axis: [lo, hi] in powers of `base`, widened to at least one step.
struct LogAxis {
  double base, lo_exp, hi_exp;
  LogAxis(double b, double min_v, double max_v) : base(b) {
    lo_exp = std::floor(std::log(min_v) / std::log(b));
    hi_exp = std::ceil(std::log(max_v) / std::log(b));
    if (hi_exp <= lo_exp) hi_exp = lo_exp + 1;
  }
  double Fraction(double v) const {
    return (std::log(v) / std::log(base) - lo_exp) / (hi_exp - lo_exp);
  }
};

// Plot frame geometry shared by the two x-y plots.
constexpr double kW = 660, kH = 340, kLeft = 72, kRight = 20, kTop = 30, kBottom = 48;
double PlotX(double f) { return kLeft + f * (kW - kLeft - kRight); }
double PlotY(double f) { return kH - kBottom - f * (kH - kTop - kBottom); }

std::string Frame(const std::string& x_label, const std::string& y_label) {
  std::ostringstream s;
  s << "<rect class=\"frame\" x=\"" << C(kLeft) << "\" y=\"" << C(kTop) << "\" width=\""
    << C(kW - kLeft - kRight) << "\" height=\"" << C(kH - kTop - kBottom) << "\"/>\n";
  s << "<text class=\"axis-label\" x=\"" << C(PlotX(0.5)) << "\" y=\"" << C(kH - 8)
    << "\" text-anchor=\"middle\">" << HtmlEscape(x_label) << "</text>\n";
  s << "<text class=\"axis-label\" transform=\"translate(14," << C(PlotY(0.5)) << ") rotate(-90)\" "
    << "text-anchor=\"middle\">" << HtmlEscape(y_label) << "</text>\n";
  return s.str();
}

std::string XTick(double f, const std::string& label) {
  return "<line class=\"grid\" x1=\"" + C(PlotX(f)) + "\" x2=\"" + C(PlotX(f)) + "\" y1=\"" +
         C(PlotY(0)) + "\" y2=\"" + C(PlotY(1)) + "\"/><text class=\"tick\" x=\"" + C(PlotX(f)) +
         "\" y=\"" + C(PlotY(0) + 16) + "\" text-anchor=\"middle\">" + HtmlEscape(label) +
         "</text>\n";
}

std::string YTick(double f, const std::string& label) {
  return "<line class=\"grid\" x1=\"" + C(PlotX(0)) + "\" x2=\"" + C(PlotX(1)) + "\" y1=\"" +
         C(PlotY(f)) + "\" y2=\"" + C(PlotY(f)) + "\"/><text class=\"tick\" x=\"" +
         C(PlotX(0) - 6) + "\" y=\"" + C(PlotY(f) + 4) + "\" text-anchor=\"end\">" +
         HtmlEscape(label) + "</text>\n";
}

std::string Svg(double w, double h, const std::string& label, const std::string& body) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + C(w) + "\" height=\"" + C(h) +
         "\" viewBox=\"0 0 " + C(w) + " " + C(h) + "\" role=\"img\" aria-label=\"" +
         HtmlEscape(label) + "\">\n" + body + "</svg>\n";
}

}  // namespace

std::string ClassColour(BucketClass c) {
  switch (c) {
    case BucketClass::kFilable:
      return "#c0392b";
    case BucketClass::kUnclassified:
      return "#e67e22";
    case BucketClass::kPrecisionOnly:
      return "#2e86c1";
  }
  return "#777777";
}

std::vector<OpDtypeCell> OpDtypeCounts(const TriageData& d) {
  std::map<std::pair<std::string, std::string>, OpDtypeCell> cells;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> buckets;
  for (const auto& [hash, b] : d.buckets)
    for (const auto& s : b.sightings) {
      const ProgramFacts* f = b.FactsFor(s);
      if (!f) continue;
      std::vector<std::string> ops =
          f->ops.empty() ? std::vector<std::string>{"(no product)"} : f->ops;
      for (const auto& op : ops)
        for (const auto& dtype : f->dtypes) {
          OpDtypeCell& c = cells[{op, dtype}];
          c.op = op;
          c.dtype = dtype;
          c.cases += s.count;
          buckets[{op, dtype}].insert(hash);
        }
    }
  std::vector<OpDtypeCell> out;
  for (auto& [key, c] : cells) {
    c.buckets = static_cast<int64_t>(buckets[key].size());
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const OpDtypeCell& a, const OpDtypeCell& b) {
    return std::make_tuple(OpOrder(a.op), a.op, DTypeOrder(a.dtype), a.dtype) <
           std::make_tuple(OpOrder(b.op), b.op, DTypeOrder(b.dtype), b.dtype);
  });
  return out;
}

std::string OpDtypePlot(const TriageData& d) {
  const std::string id = "plot-op-dtype", title = "Divergences by op and dtype.";
  const std::string caption =
      "Diverging cases per matmul-family op (rows) and input dtype (columns); a case counts in "
      "every cell of its "
      "program's ops and input dtypes.";
  auto cells = OpDtypeCounts(d);
  if (cells.empty()) return Figure(id, title, caption, NoData("no report with a readable program"));
  std::vector<std::string> ops, dtypes;
  int64_t max_cases = 1;
  for (const auto& c : cells) {
    if (std::find(ops.begin(), ops.end(), c.op) == ops.end()) ops.push_back(c.op);
    max_cases = std::max(max_cases, c.cases);
  }
  for (const auto& c : cells)
    if (std::find(dtypes.begin(), dtypes.end(), c.dtype) == dtypes.end()) dtypes.push_back(c.dtype);
  std::sort(dtypes.begin(), dtypes.end(), [](const std::string& a, const std::string& b) {
    return std::make_pair(DTypeOrder(a), a) < std::make_pair(DTypeOrder(b), b);
  });
  size_t longest = 4;
  for (const auto& op : ops) longest = std::max(longest, op.size());
  const double cell_w = 76, cell_h = 28, top = 34, left = 12 + 7.0 * static_cast<double>(longest);
  std::ostringstream s;
  for (size_t j = 0; j < dtypes.size(); ++j)
    s << "<text class=\"tick\" x=\"" << C(left + (j + 0.5) * cell_w) << "\" y=\"" << C(top - 10)
      << "\" text-anchor=\"middle\">" << HtmlEscape(dtypes[j]) << "</text>\n";
  for (size_t i = 0; i < ops.size(); ++i) {
    double y = top + i * cell_h;
    s << "<text class=\"tick\" x=\"" << C(left - 6) << "\" y=\"" << C(y + cell_h / 2 + 4)
      << "\" text-anchor=\"end\">" << HtmlEscape(ops[i]) << "</text>\n";
    for (size_t j = 0; j < dtypes.size(); ++j)
      s << "<rect class=\"empty\" x=\"" << C(left + j * cell_w) << "\" y=\"" << C(y)
        << "\" width=\"" << C(cell_w - 2) << "\" height=\"" << C(cell_h - 2) << "\"/>\n";
  }
  for (const auto& c : cells) {
    size_t i = std::find(ops.begin(), ops.end(), c.op) - ops.begin();
    size_t j = std::find(dtypes.begin(), dtypes.end(), c.dtype) - dtypes.begin();
    double x = left + j * cell_w, y = top + i * cell_h;
    double shade = 0.15 + 0.85 * std::log1p(static_cast<double>(c.cases)) /
                              std::log1p(static_cast<double>(max_cases));
    std::string tip = c.op + " x " + c.dtype + ": " + std::to_string(c.cases) + " cases in " +
                      std::to_string(c.buckets) + " buckets";
    s << "<rect class=\"mark cell\" x=\"" << C(x) << "\" y=\"" << C(y) << "\" width=\""
      << C(cell_w - 2) << "\" height=\"" << C(cell_h - 2) << "\" fill=\"#c0392b\" fill-opacity=\""
      << Opacity(shade) << "\" data-cases=\"" << c.cases << "\"><title>" << HtmlEscape(tip)
      << "</title></rect>\n";
    s << "<text class=\"cell-label\" x=\"" << C(x + cell_w / 2 - 1) << "\" y=\""
      << C(y + cell_h / 2 + 3) << "\" text-anchor=\"middle\">" << c.cases << "</text>\n";
  }
  double w = left + dtypes.size() * cell_w + 10, h = top + ops.size() * cell_h + 10;
  return Figure(id, title, caption, Svg(w, h, "diverging cases by op and dtype", s.str()));
}

std::string ErrorKPlot(const TriageData& d) {
  const std::string id = "plot-error-k", title = "Error magnitude against K.";
  std::string caption =
      "|got - expected| of the worst element of each value divergence against the reduction "
      "dimension K of the "
      "products behind it (log scales); the dash marks the allowed error.";
  if (d.unplotted_errors > 0)
    caption += " " + std::to_string(d.unplotted_errors) +
               " value divergences are not drawn (NaN/inf or no known K).";
  if (d.errors.empty())
    return Figure(id, title, caption,
                  NoData("no value divergence with a finite error and a known K"));
  double kmin = INFINITY, kmax = 0, emin = INFINITY, emax = 0;
  for (const auto& e : d.errors) {
    kmin = std::min(kmin, static_cast<double>(e.k));
    kmax = std::max(kmax, static_cast<double>(e.k));
    for (double v : {e.error, e.allowed})
      if (v > 0) emin = std::min(emin, v), emax = std::max(emax, v);
  }
  LogAxis xa(2, kmin, kmax), ya(10, emin, emax);
  std::ostringstream s;
  s << Frame("K (reduction dimension)", "|got - expected|");
  int xstep = static_cast<int>(std::ceil((xa.hi_exp - xa.lo_exp) / 10));
  for (double e = xa.lo_exp; e <= xa.hi_exp; e += xstep)
    s << XTick((e - xa.lo_exp) / (xa.hi_exp - xa.lo_exp), ShortNumber(std::pow(2, e)));
  int ystep = static_cast<int>(std::ceil((ya.hi_exp - ya.lo_exp) / 8));
  for (double e = ya.lo_exp; e <= ya.hi_exp; e += ystep)
    s << YTick((e - ya.lo_exp) / (ya.hi_exp - ya.lo_exp),
               "1e" + std::to_string(static_cast<int>(e)));
  for (const auto& e : d.errors) {
    double x = PlotX(xa.Fraction(static_cast<double>(e.k))), y = PlotY(ya.Fraction(e.error));
    if (e.allowed > 0) {
      double ay = PlotY(ya.Fraction(e.allowed));
      s << "<line class=\"bound\" x1=\"" << C(x - 6) << "\" x2=\"" << C(x + 6) << "\" y1=\""
        << C(ay) << "\" y2=\"" << C(ay) << "\"/>\n";
    }
    std::string tip = e.bucket_hash + " [" + (e.blamed.empty() ? "?" : e.blamed) + ", " +
                      std::string(BucketClassName(e.cls)) + "]: K " + std::to_string(e.k) +
                      ", error " + ShortNumber(e.error) + ", allowed " + ShortNumber(e.allowed);
    s << "<circle class=\"mark point\" cx=\"" << C(x) << "\" cy=\"" << C(y)
      << "\" r=\"4.5\" fill=\"" << ClassColour(e.cls) << "\"><title>" << HtmlEscape(tip)
      << "</title></circle>\n";
  }
  s << Legend(kLeft + 10, 18);
  return Figure(id, title, caption, Svg(kW, kH, "error magnitude against K", s.str()));
}

std::string BucketsOverTimePlot(const TriageData& d) {
  const std::string id = "plot-buckets-time", title = "Buckets over time.";
  std::string caption =
      "Cumulative number of buckets against the time each was first found (seconds into its "
      "campaign, the earliest "
      "over the campaigns and shards that saw it).";
  std::vector<const TriageBucket*> timed;
  for (const auto& [hash, b] : d.buckets)
    if (b.first_found_s) timed.push_back(&b);
  size_t untimed = d.buckets.size() - timed.size();
  if (untimed > 0)
    caption += " " + std::to_string(untimed) +
               " buckets come from reports without a summary and have no time.";
  if (timed.empty())
    return Figure(id, title, caption,
                  NoData("no bucket with a first-found time (no campaign summary)"));
  std::sort(timed.begin(), timed.end(), [](const TriageBucket* a, const TriageBucket* b) {
    return std::make_pair(*a->first_found_s, a->hash) < std::make_pair(*b->first_found_s, b->hash);
  });
  double tmax = std::max(*timed.back()->first_found_s, 1e-3) * 1.05;
  double n = static_cast<double>(timed.size());
  std::ostringstream s;
  s << Frame("seconds into the campaign", "buckets found");
  for (int i = 0; i <= 5; ++i)
    s << XTick(i / 5.0, ShortNumber(std::round(tmax * i / 5 * 100) / 100));
  int ystep = std::max(1, static_cast<int>(std::ceil(n / 6)));
  for (int i = 0; i <= static_cast<int>(n); i += ystep) s << YTick(i / n, std::to_string(i));
  std::string path = "M" + C(PlotX(0)) + "," + C(PlotY(0));
  for (size_t i = 0; i < timed.size(); ++i) {
    double x = PlotX(*timed[i]->first_found_s / tmax);
    path += " H" + C(x) + " V" + C(PlotY((i + 1) / n));
  }
  path += " H" + C(PlotX(1));
  s << "<path class=\"step\" d=\"" << path << "\"/>\n";
  for (size_t i = 0; i < timed.size(); ++i) {
    const TriageBucket& b = *timed[i];
    std::string tip = b.hash + " (" + b.kind + ", " + std::string(BucketClassName(b.cls)) +
                      ") first found at " + Seconds(b.first_found_s) + " in " + b.first_campaign;
    s << "<circle class=\"mark bucket\" cx=\"" << C(PlotX(*b.first_found_s / tmax)) << "\" cy=\""
      << C(PlotY((i + 1) / n)) << "\" r=\"4\" fill=\"" << ClassColour(b.cls) << "\"><title>"
      << HtmlEscape(tip) << "</title></circle>\n";
  }
  s << Legend(kLeft + 10, 18);
  return Figure(id, title, caption, Svg(kW, kH, "buckets over time", s.str()));
}

}  // namespace mmdiff::triage
