/* cooperative_groups.h -- the CPU stand-in's: its grid group lives in cuda_runtime.h beside it */
#pragma once
#include "cuda_runtime.h"
