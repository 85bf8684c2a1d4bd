#pragma once
void scale(const float* x, float* y, float factor, int n);
