// The element types of a harness's buffers: one enum for the harness runtime
// (harness.h calls it DType) and the tool that compares their dumps
// (runtime/compare.h, ElementType). Names at the edges: "f32", "bf16", ...
#pragma once

#include <cstddef>
#include <string>

namespace kernelblaster {

enum class DType { f32, f64, f16, bf16, i8, u8, i16, i32, u32, i64 };

std::size_t dtype_size(DType t);
const char* dtype_name(DType t);
// The type `name` spells ("f32", "bf16", ...); false for anything else.
bool dtype_from_name(const std::string& name, DType* out);
bool dtype_is_float(DType t);

}  // namespace kernelblaster
