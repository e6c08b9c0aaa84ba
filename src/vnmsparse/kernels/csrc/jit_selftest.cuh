// Helpers for jit_selftest.cu. A separate header so the JIT tests prove that
// includes resolve inside csrc/ and that editing a header changes the cache key.
#pragma once
#include <cuda_fp16.h>

namespace vnm_selftest {

// fp16 arithmetic goes through float so the result matches a float reference.
__forceinline__ float to_float(float x) { return x; }
__forceinline__ float to_float(__half x) { return __half2float(x); }

template <typename T> __forceinline__ T from_float(float x) { return T(x); }
template <> __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }

}  // namespace vnm_selftest
