#pragma once
#define ACCUM_N 1024
