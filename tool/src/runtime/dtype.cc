// The element types' sizes and names, for the harness runtime and for the
// tool, which reads the runtime's dumps (both compile this file).
#include "kernelblaster/dtype.h"

#include "common/enum_names.h"

namespace kernelblaster {
namespace {
constexpr EnumName<DType> kNames[] = {
    {DType::f32, "f32"}, {DType::f64, "f64"}, {DType::f16, "f16"}, {DType::bf16, "bf16"}, {DType::i8, "i8"},
    {DType::u8, "u8"},   {DType::i16, "i16"}, {DType::i32, "i32"}, {DType::u32, "u32"},   {DType::i64, "i64"},
};
}  // namespace

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f64: case DType::i64: return 8;
    case DType::f32: case DType::i32: case DType::u32: return 4;
    case DType::f16: case DType::bf16: case DType::i16: return 2;
    case DType::i8: case DType::u8: return 1;
  }
  return 0;
}

const char* dtype_name(DType t) { return name_in(kNames, t, "?"); }

bool dtype_from_name(const std::string& name, DType* out) {
  std::optional<DType> t = value_in(kNames, name);
  if (t) *out = *t;
  return t.has_value();
}

bool dtype_is_float(DType t) { return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16; }

}  // namespace kernelblaster
