// The library's host functions.
#pragma once

void ops_transpose(const float* in, float* out, int rows, int cols);
void ops_bias(const float* in, float* out, int n, float bias);
