// The pointwise epilogues: values and derivatives with their bounds.
#include "kernels/pointwise_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/ops_detail.h"

namespace mmref {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2OverPi = 0.7978845608028654;  // the tanh approximation's sqrt(2 / pi)
constexpr double kGeluCubic = 0.044715;
// How far torch's and Inductor's approximations of the transcendental functions may lie from the
// exact function: in units of the computing format's epsilon (float32 for the 16-bit formats too:
// both compute them in float32), relative to |f(x)| + |x| (gelu's 1 + erf cancels where x is very
// negative, leaving an error of about |x| eps). Sleef's float32 functions are within 1 to 3.5 ulps;
// a sum or product around them adds a few more.
constexpr double kApproxEps = 32;

bool Transcendental(Pointwise f) { return f != Pointwise::kRelu && f != Pointwise::kClamp; }
bool Monotone(Pointwise f) {
  return f != Pointwise::kGelu && f != Pointwise::kGeluTanh && f != Pointwise::kSilu;
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// A result of a's shape with room for its values and bounds.
RefTensor ShapedLike(const RefTensor& a) {
  RefTensor r;
  r.shape = a.shape;
  r.val.resize(a.val.size());
  r.err.resize(a.val.size());
  return r;
}

// The largest |f'| anywhere, and the largest |f''| (for the derivative's bound).
double MaxSlope(Pointwise f) {
  switch (f) {
    case Pointwise::kGelu:
    case Pointwise::kGeluTanh:
      return 1.13;
    case Pointwise::kSilu:
      return 1.1;
    case Pointwise::kSigmoid:
      return 0.25;
    default:
      return 1;
  }
}
double MaxCurvature(Pointwise f) {
  switch (f) {
    case Pointwise::kGelu:
    case Pointwise::kGeluTanh:
      return 0.8;
    case Pointwise::kSilu:
      return 0.5;
    case Pointwise::kSigmoid:
      return 0.1;
    case Pointwise::kTanh:
      return 0.77;
    default:
      return 0;
  }
}

// The epsilon of the format the functions are computed in.
double ComputeEps(Format out) { return out == Format::kF64 ? 0x1p-52 : 0x1p-23; }

}  // namespace

double PointwiseValue(Pointwise f, double x, double lo, double hi) {
  switch (f) {
    case Pointwise::kRelu:
      return std::isnan(x) ? x : std::max(x, 0.0);
    case Pointwise::kGelu:
      return 0.5 * x * (1 + std::erf(x / kSqrt2));
    case Pointwise::kGeluTanh:
      return 0.5 * x * (1 + std::tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
    case Pointwise::kSilu:
      return x * Sigmoid(x);
    case Pointwise::kSigmoid:
      return Sigmoid(x);
    case Pointwise::kTanh:
      return std::tanh(x);
    case Pointwise::kClamp:
      return std::isnan(x) ? x : std::min(std::max(x, lo), hi);
  }
  return x;
}

double PointwiseDerivative(Pointwise f, double x, double lo, double hi) {
  switch (f) {
    case Pointwise::kRelu:  // threshold_backward: 0 where the result is <= 0, so NaN passes
      return x <= 0 ? 0 : 1;
    case Pointwise::kGelu:
      return 0.5 * (1 + std::erf(x / kSqrt2)) + x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    case Pointwise::kGeluTanh: {
      double inner = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
      double t = std::tanh(inner);
      return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * kSqrt2OverPi * (1 + 3 * kGeluCubic * x * x);
    }
    case Pointwise::kSilu: {
      double s = Sigmoid(x);
      return s * (1 + x * (1 - s));
    }
    case Pointwise::kSigmoid: {
      double s = Sigmoid(x);
      return s * (1 - s);
    }
    case Pointwise::kTanh: {
      double t = std::tanh(x);
      return 1 - t * t;
    }
    case Pointwise::kClamp:  // autograd passes the gradient strictly inside (torch 2.15.0: 0 at
                             // the bounds, as at relu's 0)
      return x > lo && x < hi ? 1 : 0;
  }
  return 0;
}

RefTensor Unary(const RefTensor& a, Pointwise f, Format out, double lo, double hi) {
  RefTensor r = ShapedLike(a);
  for (size_t i = 0; i < a.val.size(); ++i) {
    const double x = a.val[i], e = a.err[i];
    const uint8_t special = a.Also(i);
    if (std::isinf(e)) {
      r.val[i] = 0;
      r.err[i] = kInf;
      continue;
    }
    if (IsInteger(out)) {  // relu and clamp of exact integers stay exact
      r.val[i] = PointwiseValue(f, x, lo, hi);
      r.err[i] = e;
      continue;
    }
    if (std::isnan(x)) {  // NaN in, NaN out; and the images of the infinities it may also be,
                          // where they are infinities (a finite image besides NaN: unjudged)
      uint8_t also = 0;
      bool finite_image = false;
      for (auto [bit, inf] : {std::pair{kAlsoPosInf, kInf}, std::pair{kAlsoNegInf, -kInf}}) {
        if (!(special & bit)) continue;
        const double image = PointwiseValue(f, inf, lo, hi);
        finite_image |= !Monotone(f) || std::isfinite(image);
        if (std::isinf(image)) also |= image > 0 ? kAlsoPosInf : kAlsoNegInf;
      }
      r.val[i] = finite_image ? 0 : x;
      r.err[i] = finite_image ? kInf : 0;
      r.SetAlso(i, finite_image ? 0 : also);
      continue;
    }
    // gelu and silu of an infinity, or of a value that may be special: torch promises nothing.
    if (!Monotone(f) && (std::isinf(x) || special)) {
      r.val[i] = 0;
      r.err[i] = kInf;
      continue;
    }
    uint8_t also = special & kAlsoNaN;
    double low, high;
    if (std::isinf(x)) {  // exact: its limit (relu's +inf stays +inf)
      low = high = PointwiseValue(f, x, lo, hi);
    } else if (Monotone(f)) {
      low = PointwiseValue(f, x - e, lo, hi);
      high = PointwiseValue(f, x + e, lo, hi);
    } else {
      const double y = PointwiseValue(f, x, lo, hi), d = MaxSlope(f) * e;
      low = y - d;
      high = y + d;
    }
    // An input that may also be an infinity: the result may also be that infinity's image.
    for (auto [bit, inf] : {std::pair{kAlsoPosInf, kInf}, std::pair{kAlsoNegInf, -kInf}}) {
      if (!(special & bit)) continue;
      const double image = PointwiseValue(f, inf, lo, hi);
      if (std::isinf(image))
        also |= image > 0 ? kAlsoPosInf : kAlsoNegInf;
      else
        low = std::min(low, image), high = std::max(high, image);
    }
    if (std::isinf(low) || std::isinf(high)) {  // relu(+inf): exactly +inf
      r.val[i] = high;
      r.err[i] = 0;
      r.SetAlso(i, also);
      continue;
    }
    double v = 0.5 * (low + high), bound = 0.5 * (high - low);
    if (Transcendental(f)) bound += kApproxEps * ComputeEps(out) * (std::fabs(v) + std::fabs(x));
    // relu and clamp of an exact value select it or a bound the format holds: nothing rounds.
    const bool exact = !Transcendental(f) && bound == 0 && RoundTo(out, v) == v;
    r.err[i] = exact ? 0 : detail::ElementwiseBound(v, bound, out, also);
    r.val[i] = v;
    r.SetAlso(i, also);
  }
  return r;
}

RefTensor UnaryDerivative(const RefTensor& a, Pointwise f, Format out, double lo, double hi) {
  RefTensor r = ShapedLike(a);
  for (size_t i = 0; i < a.val.size(); ++i) {
    const double x = a.val[i], e = a.err[i];
    const uint8_t special = a.Also(i);
    const bool step = f == Pointwise::kRelu || f == Pointwise::kClamp;
    // A special input: a step's comparisons still decide (relu passes NaN, clamp does not, as
    // autograd's comparisons do); a slope's is unjudged.
    // gelu's tanh form's derivative takes x^2 and x^3, which overflow the computing format far
    // below its largest value (to inf, then 0 * inf): unjudged beyond that.
    const double cube_root_max = out == Format::kF64 ? 1e100 : 1e12;
    const bool overflows = f == Pointwise::kGeluTanh && std::fabs(x) + e > cube_root_max;
    if (std::isinf(e) || overflows || (!step && (!std::isfinite(x) || special))) {
      r.val[i] = 0;
      r.err[i] = kInf;
      continue;
    }
    double v, bound;
    if (step) {  // 0 or 1: every value the input may be decides which
      std::vector<double> at = {PointwiseDerivative(f, x, lo, hi)};
      if (std::isfinite(x))
        for (double y : {x - e, x + e}) at.push_back(PointwiseDerivative(f, y, lo, hi));
      if (special & kAlsoPosInf) at.push_back(PointwiseDerivative(f, kInf, lo, hi));
      if (special & kAlsoNegInf) at.push_back(PointwiseDerivative(f, -kInf, lo, hi));
      if (special & kAlsoNaN)
        at.push_back(PointwiseDerivative(f, std::numeric_limits<double>::quiet_NaN(), lo, hi));
      const double smallest = *std::min_element(at.begin(), at.end());
      const double largest = *std::max_element(at.begin(), at.end());
      v = 0.5 * (smallest + largest);
      bound = 0.5 * (largest - smallest);
    } else {
      v = PointwiseDerivative(f, x, lo, hi);
      // torch computes sigmoid's and tanh's from the rounded result y: y's rounding moves it by
      // up to |f'| times that rounding; the functions themselves by their approximation.
      bound = MaxCurvature(f) * e + kApproxEps * ComputeEps(out) * (1 + std::fabs(x)) +
              2 * UnitRoundoff(out);
    }
    uint8_t also = 0;
    // A certain step (0 or 1) is exact; the slopes round once to the format.
    r.err[i] = bound == 0 && !Transcendental(f) ? 0 : detail::ElementwiseBound(v, bound, out, also);
    r.val[i] = v;
  }
  return r;
}

}  // namespace mmref
