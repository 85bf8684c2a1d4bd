#include <gtest/gtest.h>

#include "runtime/spec.h"

namespace kernelblaster {
namespace {

TEST(Tolerance, DefaultsTightenWithPrecision) {
  Tolerance f32 = resolve_tolerance(DType::f32, {}), f16 = resolve_tolerance(DType::f16, {}),
            bf16 = resolve_tolerance(DType::bf16, {});
  EXPECT_LT(f32.rel_l2, f16.rel_l2);
  EXPECT_LT(f16.rel_l2, bf16.rel_l2);
  // fp16 arithmetic (eps 9.8e-4) must fail the fp32 default; one fp16 ulp must pass fp16's.
  EXPECT_LT(f32.rtol, 9.8e-4);
  EXPECT_GE(f16.rtol, 9.8e-4);
  EXPECT_GE(bf16.rtol, 7.8e-3);
}

TEST(Tolerance, IntegersAreExact) {
  for (DType t : {DType::i8, DType::u8, DType::i16, DType::i32, DType::u32, DType::i64}) {
    Tolerance tol = resolve_tolerance(t, {});
    EXPECT_EQ(tol.rel_l2, 0);
    EXPECT_EQ(tol.atol, 0);
    EXPECT_EQ(tol.rtol, 0);
  }
}

TEST(Tolerance, DeclaredFieldsOverrideOnlyThemselves) {
  Tolerance tol = resolve_tolerance(DType::f32, {1e-3, -1, -1});
  EXPECT_EQ(tol.rel_l2, 1e-3);
  EXPECT_EQ(tol.rtol, resolve_tolerance(DType::f32, {}).rtol);
}

TEST(Spec, ElementCountResolvesNamedDimensions) {
  BufferSpec b{"x", DType::f32, {"rows", 4, "cols"}, BufferRole::input, {}, {}};
  SizeSpec s{"s", {{"rows", 3}, {"cols", 5}}, false};
  EXPECT_EQ(element_count(b, s), 60);
  SizeSpec missing{"m", {{"rows", 3}}, false};
  EXPECT_THROW(element_count(b, missing), std::invalid_argument);
}

TEST(Spec, ValidationRejectsMistakes) {
  Harness::Spec spec;
  spec.name = "t";
  EXPECT_THROW(validate_spec(spec), std::invalid_argument);  // no size
  spec.sizes.push_back({"s", {{"n", 4}}, false});
  spec.buffers.push_back({"x", DType::f32, {"n"}, BufferRole::input, Distribution::normal(), {}});
  spec.launch = [](Call&) {};
  EXPECT_THROW(validate_spec(spec), std::invalid_argument);  // no output
  spec.buffers.push_back({"y", DType::f32, {"n"}, BufferRole::output, {}, {}});
  EXPECT_NO_THROW(validate_spec(spec));
  spec.buffers.push_back({"y", DType::f32, {"n"}, BufferRole::output, {}, {}});
  EXPECT_THROW(validate_spec(spec), std::invalid_argument);  // duplicate name
  spec.buffers.pop_back();
  spec.buffers.push_back({"u", DType::f32, {"n"}, BufferRole::input, Distribution::uniform(1, 1), {}});
  EXPECT_THROW(validate_spec(spec), std::invalid_argument);  // empty range
}

}  // namespace
}  // namespace kernelblaster
