// A small image library as first versions are written: byte images, a few
// launchers per source, one that returns its result.
#pragma once

// adjust.cu
void brighten(const unsigned char* in, unsigned char* out, int width, int height, float gain);
float mean_brightness(const unsigned char* in, int pixels);

// filters.cu
void box_blur(const unsigned char* in, unsigned char* out, int width, int height);
void threshold(const float* in, float* out, int n, float level);
void invert(const unsigned char* in, unsigned char* out, int n);
