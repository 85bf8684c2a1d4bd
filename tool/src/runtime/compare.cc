#include "runtime/compare.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

namespace kernelblaster {

float half_to_float(std::uint16_t h) {
  std::uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);                 // zero and subnormals
  else if (exp == 31) v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(static_cast<float>(man | 0x400u), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

float bfloat16_to_float(std::uint16_t b) {
  std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double element_value(ElementType t, const unsigned char* p) {
  switch (t) {
    case ElementType::f32: { float v; std::memcpy(&v, p, 4); return v; }
    case ElementType::f64: { double v; std::memcpy(&v, p, 8); return v; }
    case ElementType::f16: { std::uint16_t v; std::memcpy(&v, p, 2); return half_to_float(v); }
    case ElementType::bf16: { std::uint16_t v; std::memcpy(&v, p, 2); return bfloat16_to_float(v); }
    case ElementType::i8: return static_cast<double>(static_cast<std::int8_t>(*p));
    case ElementType::u8: return static_cast<double>(*p);
    case ElementType::i16: { std::int16_t v; std::memcpy(&v, p, 2); return v; }
    case ElementType::i32: { std::int32_t v; std::memcpy(&v, p, 4); return v; }
    case ElementType::u32: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
    case ElementType::i64: { std::int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
  }
  return 0;
}

namespace {

// Work is split into chunks of fixed size, so sums come out the same
// whatever the number of threads; chunks are decoded a block at a time so
// the inner loops see plain doubles.
constexpr std::int64_t kChunk = std::int64_t{1} << 20;
constexpr std::int64_t kBlock = 2048;

const std::vector<float>& half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) t[h] = half_to_float(static_cast<std::uint16_t>(h));
    return t;
  }();
  return table;
}

// Elements [begin, begin + n) of `v` as doubles.
void decode(const OutputView& v, std::int64_t begin, std::int64_t n, double* out) {
  const std::size_t w = dtype_size(v.type);
  const unsigned char* p = v.data + begin * static_cast<std::int64_t>(w);
  switch (v.type) {
    case ElementType::f16: {
      const std::vector<float>& t = half_table();
      for (std::int64_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        out[i] = t[h];
      }
      return;
    }
    case ElementType::f32:
      for (std::int64_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        out[i] = f;
      }
      return;
    default:
      for (std::int64_t i = 0; i < n; ++i) out[i] = element_value(v.type, p + static_cast<std::size_t>(i) * w);
  }
}

template <class Word>
void poisoned_words(const unsigned char* p, std::int64_t n, std::uint8_t b, bool* out) {
  Word pattern;
  std::memset(&pattern, b, sizeof pattern);
  for (std::int64_t i = 0; i < n; ++i) {
    Word element;
    std::memcpy(&element, p + static_cast<std::size_t>(i) * sizeof(Word), sizeof(Word));
    out[i] = element == pattern;
  }
}

// Whether each element of [begin, begin + n) has every byte equal to `b`.
void poisoned(const OutputView& v, std::int64_t begin, std::int64_t n, std::uint8_t b, bool* out) {
  const std::size_t w = dtype_size(v.type);
  const unsigned char* p = v.data + begin * static_cast<std::int64_t>(w);
  switch (w) {
    case 1: return poisoned_words<std::uint8_t>(p, n, b, out);
    case 2: return poisoned_words<std::uint16_t>(p, n, b, out);
    case 4: return poisoned_words<std::uint32_t>(p, n, b, out);
    default: return poisoned_words<std::uint64_t>(p, n, b, out);
  }
}

template <class Body>
void for_each_chunk(std::int64_t n, Body body) {
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  unsigned threads = std::min<std::int64_t>(chunks, std::max(1u, std::min(8u, std::thread::hardware_concurrency())));
  if (threads <= 1) {
    for (std::int64_t c = 0; c < chunks; ++c) body(c, c * kChunk, std::min(kChunk, n - c * kChunk));
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::int64_t c; (c = next++) < chunks;) body(c, c * kChunk, std::min(kChunk, n - c * kChunk));
    });
  for (std::thread& t : pool) t.join();
}

bool same_view(const OutputView& a, const OutputView& b) { return a.data == b.data && a.type == b.type; }

// How far over its allowance a difference is (d / allowed; inf for a
// difference where nothing is allowed).
double excess_of(double d, double allowed) {
  return allowed > 0 ? d / allowed : (d > 0 ? std::numeric_limits<double>::infinity() : 0.0);
}

// Whether a[i] and b[i] are all finite, i < n (no branch per element).
bool block_finite(const double* a, const double* b, std::int64_t n) {
  bool ok = true;
  for (std::int64_t i = 0; i < n; ++i) ok &= std::isfinite(a[i]) & std::isfinite(b[i]);
  return ok;
}

struct ScalePart {
  double sq = 0;
  std::int64_t finite = 0;
};

}  // namespace

namespace {

// The reference's RMS over its finite elements (1 where it is 0), the
// scale of the absolute tolerance; its sum of squares in *ref_sq.
double reference_scale(const OutputView& ref, std::int64_t n, double* ref_sq) {
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<ScalePart> scale_parts(static_cast<std::size_t>(chunks));
  for_each_chunk(n, [&](std::int64_t c, std::int64_t begin, std::int64_t len) {
    std::vector<double> r(kBlock);
    ScalePart part;
    for (std::int64_t b = 0; b < len; b += kBlock) {
      std::int64_t m = std::min(kBlock, len - b);
      decode(ref, begin + b, m, r.data());
      // Four running sums, kept in registers and added in a fixed order
      // (one sum waits on the adder's latency for every element).
      double sq[4] = {0, 0, 0, 0};
      std::int64_t fin = 0;
      for (std::int64_t i = 0; i < m; ++i) {
        const bool f = std::isfinite(r[i]);
        const double v = f ? r[i] : 0.0;
        sq[i & 3] += v * v;
        fin += f;
      }
      part.sq += (sq[0] + sq[1]) + (sq[2] + sq[3]);
      part.finite += fin;
    }
    scale_parts[static_cast<std::size_t>(c)] = part;
  });
  std::int64_t finite = 0;
  *ref_sq = 0;
  for (const ScalePart& p : scale_parts) {
    *ref_sq += p.sq;
    finite += p.finite;
  }
  double scale = finite ? std::sqrt(*ref_sq / static_cast<double>(finite)) : 0.0;
  return scale == 0 ? 1.0 : scale;
}

// Whether a candidate element with the poison's bytes is never finite
// (0xFF in a float type: a NaN); then a finite element is written.
bool poison_never_finite(ElementType type, std::uint8_t poison_byte) {
  if (!dtype_is_float(type)) return false;
  unsigned char pattern[8];
  std::memset(pattern, poison_byte, sizeof pattern);
  return !std::isfinite(element_value(type, pattern));
}

// What every block of one comparison shares.
struct Allowance {
  double atol_scaled = 0, atol = 0, scale = 1, rtol = 0, factor = 0;
  // Element i's allowance in a block whose values are all finite.
  double finite(const double* rr, const double* s1, const double* s2, std::int64_t i) const {
    double allowed = atol_scaled + rtol * std::fabs(rr[i]);
    if (s1) allowed += factor * std::fabs(s1[i] - s2[i]);
    return allowed;
  }
};

// Elements [0, m) of a block whose values are all finite.
void fast_block(const Allowance& al, const double* rr, const double* xx, const double* s1, const double* s2,
                std::int64_t m, std::int64_t at, OutputError& pe, double& diff_sq) {
  double sq4[4] = {0, 0, 0, 0}, max_abs = pe.max_abs;
  std::int64_t off = 0;
  double worst = pe.worst_excess;
  for (std::int64_t i = 0; i < m; ++i) {
    const double d = std::fabs(xx[i] - rr[i]);
    const double allowed = al.finite(rr, s1, s2, i);
    sq4[i & 3] += d * d;
    max_abs = d > max_abs ? d : max_abs;
    off += d > allowed;
    if (d > worst * allowed) [[unlikely]] worst = std::max(worst, excess_of(d, allowed));
  }
  if (off > 0 && pe.first_bad < 0)
    for (std::int64_t i = 0; i < m; ++i) {
      if (std::fabs(xx[i] - rr[i]) > al.finite(rr, s1, s2, i)) {
        pe.first_bad = at + i;
        break;
      }
    }
  diff_sq += (sq4[0] + sq4[1]) + (sq4[2] + sq4[3]);
  pe.max_abs = max_abs;
  pe.mismatched += off;
  pe.worst_excess = worst;
}

// Elements [0, m) of a block with poisoned or non-finite values, one at a time.
void careful_block(const Allowance& al, const bool* rpois, const bool* cpois, const double* r, const double* x,
                   const double* sap, const double* sbp, bool slack_usable, std::int64_t m, std::int64_t at,
                   OutputError& pe, double& diff_sq) {
  for (std::int64_t i = 0; i < m; ++i) {
    bool bad = false;
    if (cpois[i] && !rpois[i]) {
      ++pe.unwritten;
      bad = true;
    } else if (!std::isfinite(r[i]) || !std::isfinite(x[i])) {
      bool same = (std::isnan(r[i]) && std::isnan(x[i])) || r[i] == x[i];
      if (!same) {
        ++pe.nonfinite_mismatch;
        bad = true;
      }
    } else {
      double d = std::fabs(x[i] - r[i]);
      diff_sq += d * d;
      if (d > pe.max_abs) pe.max_abs = d;
      double allowed = al.atol * al.scale + al.rtol * std::fabs(r[i]);
      if (slack_usable && std::isfinite(sap[i]) && std::isfinite(sbp[i]))
        allowed += al.factor * std::fabs(sap[i] - sbp[i]);
      if (d > allowed) {
        ++pe.mismatched;
        bad = true;
      }
      // The worst d / allowed, divided only when it may be a new worst.
      if (d > pe.worst_excess * allowed) pe.worst_excess = std::max(pe.worst_excess, excess_of(d, allowed));
    }
    if (bad && pe.first_bad < 0) pe.first_bad = at + i;
  }
}

// The chunks' findings into one (first_bad: the earliest chunk's).
void merge_parts(const std::vector<OutputError>& parts, const std::vector<double>& diff_parts, OutputError& e,
                 double* diff_sq) {
  *diff_sq = 0;
  for (std::size_t c = 0; c < parts.size(); ++c) {
    const OutputError& pe = parts[c];
    *diff_sq += diff_parts[c];
    e.unwritten += pe.unwritten;
    e.nonfinite_mismatch += pe.nonfinite_mismatch;
    e.mismatched += pe.mismatched;
    e.max_abs = std::max(e.max_abs, pe.max_abs);
    e.worst_excess = std::max(e.worst_excess, pe.worst_excess);
    if (e.first_bad < 0) e.first_bad = pe.first_bad;
  }
}

}  // namespace

OutputError compare_output(const std::string& name, const OutputView& ref, const OutputView& cand,
                           const ToleranceSpec& tol, std::uint8_t poison_byte, const ElementSlack* slack) {
  OutputError e;
  e.output = name;
  const std::int64_t n = std::min(ref.count, cand.count);
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  double ref_sq = 0;
  const double scale = reference_scale(ref, n, &ref_sq);
  const bool slack_usable = slack && slack->factor > 0 && slack->a.count >= n && slack->b.count >= n;
  const bool poison_not_finite = poison_never_finite(cand.type, poison_byte);
  const Allowance al{tol.atol * scale, tol.atol, scale, tol.rtol, slack_usable ? slack->factor : 0.0};

  std::vector<OutputError> parts(static_cast<std::size_t>(chunks));
  std::vector<double> diff_parts(static_cast<std::size_t>(chunks), 0.0);
  for_each_chunk(n, [&](std::int64_t c, std::int64_t begin, std::int64_t len) {
    // Accumulated in locals and stored once: the parts of neighbouring
    // chunks share cache lines, and a store per element from several
    // threads would make them fight over those lines.
    OutputError pe;
    double diff_sq = 0;
    std::vector<double> r(kBlock), x(kBlock), sa(slack_usable ? kBlock : 0), sb(slack_usable ? kBlock : 0);
    std::unique_ptr<bool[]> rpois(new bool[kBlock]), cpois(new bool[kBlock]);
    for (std::int64_t b = 0; b < len; b += kBlock) {
      const std::int64_t m = std::min(kBlock, len - b), at = begin + b;
      decode(ref, at, m, r.data());
      decode(cand, at, m, x.data());
      // A slack side that is the reference itself (it is, for both of a
      // KernelBench candidate's comparisons) is decoded once.
      const double* sap = sa.data();
      const double* sbp = sb.data();
      if (slack_usable) {
        if (same_view(slack->a, ref)) sap = r.data();
        else decode(slack->a, at, m, sa.data());
        if (same_view(slack->b, ref)) sbp = r.data();
        else decode(slack->b, at, m, sb.data());
      }
      if (poison_not_finite && block_finite(r.data(), x.data(), m) &&
          (!slack_usable || block_finite(sap, sbp, m))) {
        // The common block: every value finite, so none poisoned (the
        // poison is a NaN pattern) and no special case; the same sums as
        // careful_block, without its branches.
        fast_block(al, r.data(), x.data(), slack_usable ? sap : nullptr, slack_usable ? sbp : nullptr, m, at, pe,
                   diff_sq);
        continue;
      }
      poisoned(ref, at, m, poison_byte, rpois.get());
      poisoned(cand, at, m, poison_byte, cpois.get());
      careful_block(al, rpois.get(), cpois.get(), r.data(), x.data(), sap, sbp, slack_usable, m, at, pe, diff_sq);
    }
    parts[static_cast<std::size_t>(c)] = pe;
    diff_parts[static_cast<std::size_t>(c)] = diff_sq;
  });
  double diff_sq = 0;
  merge_parts(parts, diff_parts, e, &diff_sq);
  if (ref.count != cand.count) {
    // A count mismatch is a wrong result whatever the values: every missing
    // or extra element counts as a mismatch.
    e.mismatched += std::max(ref.count, cand.count) - n;
    if (e.first_bad < 0) e.first_bad = n;
  }
  e.rel_l2 = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  return e;
}

std::int64_t allclose_failures(const OutputView& reference, const OutputView& candidate, double rtol, double atol,
                               bool equal_nan) {
  const std::size_t rw = dtype_size(reference.type), cw = dtype_size(candidate.type);
  std::int64_t failures = 0;
  const std::int64_t n = std::min(reference.count, candidate.count);
  for (std::int64_t i = 0; i < n; ++i) {
    const double r = element_value(reference.type, reference.data + static_cast<std::size_t>(i) * rw);
    const double c = element_value(candidate.type, candidate.data + static_cast<std::size_t>(i) * cw);
    bool close;
    if (std::isnan(r) || std::isnan(c)) close = equal_nan && std::isnan(r) && std::isnan(c);
    else if (std::isinf(r) || std::isinf(c)) close = r == c;
    else close = std::fabs(c - r) <= atol + rtol * std::fabs(r);
    if (!close) ++failures;
  }
  return failures + std::abs(reference.count - candidate.count);
}

std::int64_t scrub_pattern_elements(const OutputView& v) {
  const std::size_t w = dtype_size(v.type);
  if (w != 2 && w != 4 && w != 8) return 0;
  unsigned char pattern[8];
  for (std::size_t b = 0; b < 8; ++b) pattern[b] = static_cast<unsigned char>(kScrubWord >> (8 * (b % 4)));
  std::int64_t found = 0;
  for (std::int64_t i = 0; i < v.count; ++i)
    if (std::memcmp(v.data + static_cast<std::size_t>(i) * w, pattern, w) == 0) ++found;
  return found;
}

bool within_tolerance(const OutputError& e, const ToleranceSpec& tol) {
  return e.unwritten == 0 && e.nonfinite_mismatch == 0 && e.mismatched == 0 && e.rel_l2 <= tol.rel_l2;
}

bool merely_inaccurate(const OutputError& e, const ToleranceSpec& tol) {
  if (e.unwritten || e.nonfinite_mismatch || within_tolerance(e, tol)) return false;
  // Every element near its allowance and the whole output right to about two
  // digits; a single wild element is a wrong result, not an inaccurate one,
  // and so is an output 10% off, however wide the tolerance.
  return e.rel_l2 <= std::min(0.1, std::max(1e-2, 10 * tol.rel_l2)) && e.worst_excess <= 1000;
}

}  // namespace kernelblaster
