// cuda_bf16.h of the CPU model of CUDA: cuda_model.h (force-included)
// declares __nv_bfloat16 and its conversions.
#include "../cuda_model.h"
