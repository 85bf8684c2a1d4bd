#pragma once
// Host launchers: device pointers in, default stream.
void scale(const float* x, float* y, float factor, int n);
void shift(const float* x, float* y, float offset, int n);
