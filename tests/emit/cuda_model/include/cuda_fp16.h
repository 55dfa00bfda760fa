// cuda_fp16.h of the CPU model of CUDA: cuda_model.h (force-included)
// declares __half and its conversions.
#include "../cuda_model.h"
