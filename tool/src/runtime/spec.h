// What a harness declares, as the runtime sees it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kernelblaster/harness.h"

namespace kernelblaster {

enum class BufferRole { input, output, inout, workspace };

struct BufferSpec {
  std::string name;
  DType dtype = DType::f32;
  Shape shape;
  BufferRole role = BufferRole::input;
  Distribution dist;
  Tolerance tol;

  bool generated() const { return role == BufferRole::input || role == BufferRole::inout; }
  bool compared() const { return role == BufferRole::output || role == BufferRole::inout; }
};

struct SizeSpec {
  std::string label;
  Dims dims;
  bool validation_only = false;
};

struct Harness::Spec {
  std::string name;
  std::vector<SizeSpec> sizes;
  std::vector<BufferSpec> buffers;
  LaunchFn launch;
  std::function<double(const Dims&)> flops;
  std::function<double(const Dims&)> bytes;
};

const char* role_name(BufferRole role);
// Element count of a buffer at a size; throws std::invalid_argument for an
// unknown dimension name or a non-positive extent.
std::int64_t element_count(const BufferSpec& buffer, const SizeSpec& size);
// The dtype's default tolerance merged with what the harness declared.
Tolerance resolve_tolerance(DType dtype, const Tolerance& declared);
// Checks a declaration before anything touches the GPU; throws
// std::invalid_argument with a one-line reason.
void validate_spec(const Harness::Spec& spec);

}  // namespace kernelblaster
