#ifndef SORT_COMMON_H
#define SORT_COMMON_H
#define SHARED_SIZE_LIMIT 1024U
#define UMUL(a, b) ((a) * (b))
#endif
