// The element types of a harness's buffers: one enum for the harness runtime
// (harness.h calls it DType) and the tool that compares their dumps
// (runtime/compare.h, ElementType). Names at the edges: "f32", "bf16", ...
#pragma once

namespace kernelblaster {

enum class DType { f32, f64, f16, bf16, i8, u8, i16, i32, u32, i64 };

}  // namespace kernelblaster
