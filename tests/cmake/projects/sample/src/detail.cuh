#pragma once
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
