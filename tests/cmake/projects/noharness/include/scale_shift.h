#pragma once
#include <cstddef>
// y = a * x + b over n device elements, on the default stream.
void scale_shift(const float* x, float* y, float a, float b, std::size_t n);
