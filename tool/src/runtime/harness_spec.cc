#include <set>
#include <stdexcept>

#include "runtime/spec.h"

namespace kernelblaster {

const char* role_name(BufferRole role) {
  switch (role) {
    case BufferRole::input: return "input";
    case BufferRole::output: return "output";
    case BufferRole::inout: return "inout";
    case BufferRole::workspace: return "workspace";
  }
  return "?";
}

std::int64_t element_count(const BufferSpec& buffer, const SizeSpec& size) {
  std::int64_t n = 1;
  for (const Dim& d : buffer.shape) {
    std::int64_t extent = d.value();
    if (d.is_named()) {
      auto it = size.dims.find(d.name());
      if (it == size.dims.end())
        throw std::invalid_argument("buffer '" + buffer.name + "' uses dimension '" + d.name() +
                                    "', which size '" + size.label + "' does not define");
      extent = it->second;
    }
    if (extent <= 0)
      throw std::invalid_argument("buffer '" + buffer.name + "' has extent " + std::to_string(extent) +
                                  " at size '" + size.label + "'");
    n *= extent;
  }
  return n;
}

Tolerance resolve_tolerance(DType dtype, const Tolerance& declared) {
  // Defaults sized to admit a different summation order or rounding of the
  // same math, and to reject a lower-precision computation of it. For f16:
  // two correct roundings differ by at most one ulp (2^-10 relative), about
  // 2e-4 RMS; 1e-3 RMS admits that five times over and rejects a bf16
  // computation (about 1.6e-3 RMS).
  Tolerance d;
  switch (dtype) {
    case DType::f64: d = {1e-12, 1e-12, 1e-10}; break;
    case DType::f32: d = {1e-5, 1e-5, 1e-4}; break;
    case DType::f16: d = {1e-3, 1e-3, 1e-2}; break;
    case DType::bf16: d = {1e-2, 8e-3, 4e-2}; break;
    default: d = Tolerance::exact(); break;
  }
  if (declared.rel_l2 >= 0) d.rel_l2 = declared.rel_l2;
  if (declared.atol >= 0) d.atol = declared.atol;
  if (declared.rtol >= 0) d.rtol = declared.rtol;
  return d;
}

void validate_spec(const Harness::Spec& spec) {
  if (spec.sizes.empty()) throw std::invalid_argument("harness '" + spec.name + "' declares no size");
  bool timed = false;
  for (const SizeSpec& s : spec.sizes) timed = timed || !s.validation_only;
  if (!timed) throw std::invalid_argument("harness '" + spec.name + "' declares only validation sizes");
  if (!spec.launch) throw std::invalid_argument("harness '" + spec.name + "' has no launch()");
  std::set<std::string> names;
  bool compared = false;
  for (const BufferSpec& b : spec.buffers) {
    if (b.name.empty()) throw std::invalid_argument("a buffer has an empty name");
    if (!names.insert(b.name).second) throw std::invalid_argument("buffer '" + b.name + "' is declared twice");
    compared = compared || b.compared();
    if (b.generated() && b.dist.kind == Distribution::Kind::uniform && !(b.dist.a < b.dist.b))
      throw std::invalid_argument("buffer '" + b.name + "': uniform needs low < high");
    if (b.generated() && b.dist.kind == Distribution::Kind::normal && !(b.dist.b > 0))
      throw std::invalid_argument("buffer '" + b.name + "': normal needs stddev > 0");
    for (const SizeSpec& s : spec.sizes) element_count(b, s);
  }
  if (!compared) throw std::invalid_argument("harness '" + spec.name + "' declares no output or inout buffer");
}

}  // namespace kernelblaster
