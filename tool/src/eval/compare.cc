#include "eval/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kernelblaster {

bool element_type_from_name(const std::string& n, ElementType* out) {
  static const struct { const char* name; ElementType type; } kTypes[] = {
      {"f32", ElementType::f32}, {"f64", ElementType::f64}, {"f16", ElementType::f16},
      {"bf16", ElementType::bf16}, {"i8", ElementType::i8}, {"u8", ElementType::u8},
      {"i16", ElementType::i16}, {"i32", ElementType::i32}, {"u32", ElementType::u32},
      {"i64", ElementType::i64}};
  for (const auto& t : kTypes)
    if (n == t.name) {
      *out = t.type;
      return true;
    }
  return false;
}

std::size_t element_bytes(ElementType t) {
  switch (t) {
    case ElementType::f64: case ElementType::i64: return 8;
    case ElementType::f32: case ElementType::i32: case ElementType::u32: return 4;
    case ElementType::f16: case ElementType::bf16: case ElementType::i16: return 2;
    case ElementType::i8: case ElementType::u8: return 1;
  }
  return 0;
}

bool is_floating(ElementType t) {
  return t == ElementType::f32 || t == ElementType::f64 || t == ElementType::f16 || t == ElementType::bf16;
}

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
bool all_bytes(const unsigned char* p, std::size_t n, std::uint8_t b) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != b) return false;
  return true;
}
}  // namespace

OutputError compare_output(const std::string& name, const OutputView& ref, const OutputView& cand,
                           const ToleranceSpec& tol, std::uint8_t poison_byte) {
  OutputError e;
  e.output = name;
  const std::size_t w = element_bytes(ref.type);
  // First pass: the reference's RMS, the scale of the absolute tolerance.
  double ref_sq = 0;
  std::int64_t finite = 0;
  for (std::int64_t i = 0; i < ref.count; ++i) {
    double r = element_value(ref.type, ref.data + i * w);
    if (std::isfinite(r)) {
      ref_sq += r * r;
      ++finite;
    }
  }
  double scale = finite ? std::sqrt(ref_sq / static_cast<double>(finite)) : 0.0;
  if (scale == 0) scale = 1.0;
  double diff_sq = 0;
  for (std::int64_t i = 0; i < ref.count; ++i) {
    const unsigned char* rp = ref.data + i * w;
    const unsigned char* cp = cand.data + i * w;
    bool bad = false;
    if (all_bytes(cp, w, poison_byte) && !all_bytes(rp, w, poison_byte)) {
      ++e.unwritten;
      bad = true;
    } else {
      double r = element_value(ref.type, rp), c = element_value(cand.type, cp);
      if (!std::isfinite(r) || !std::isfinite(c)) {
        bool same = (std::isnan(r) && std::isnan(c)) || r == c;
        if (!same) {
          ++e.nonfinite_mismatch;
          bad = true;
        }
      } else {
        double d = std::fabs(c - r);
        diff_sq += d * d;
        if (d > e.max_abs) e.max_abs = d;
        double allowed = tol.atol * scale + tol.rtol * std::fabs(r);
        if (d > allowed) {
          ++e.mismatched;
          bad = true;
        }
        double excess = allowed > 0 ? d / allowed : (d > 0 ? std::numeric_limits<double>::infinity() : 0.0);
        if (excess > e.worst_excess) e.worst_excess = excess;
      }
    }
    if (bad && e.first_bad < 0) e.first_bad = i;
  }
  e.rel_l2 = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  return e;
}

bool within_tolerance(const OutputError& e, const ToleranceSpec& tol) {
  return e.unwritten == 0 && e.nonfinite_mismatch == 0 && e.mismatched == 0 && e.rel_l2 <= tol.rel_l2;
}

bool merely_inaccurate(const OutputError& e, const ToleranceSpec& tol) {
  if (e.unwritten || e.nonfinite_mismatch || within_tolerance(e, tol)) return false;
  // Every element near its allowance and the whole output right to about two
  // digits; a single wild element is a wrong result, not an inaccurate one.
  return e.rel_l2 <= std::max(1e-2, 10 * tol.rel_l2) && e.worst_excess <= 1000;
}

}  // namespace kernelblaster
