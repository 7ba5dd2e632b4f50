// Portability macros: every function of the layout algebra is callable from host code, CUDA
// device code (nvcc) and HIP device code (clang), and is constexpr.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP__)
#  define FLY_HOST_DEVICE __host__ __device__
#  define FLY_DEVICE_COMPILER 1
#else
#  define FLY_HOST_DEVICE
#endif

#define FLY_HD FLY_HOST_DEVICE inline constexpr

// Unroll the next loop in device code (register arrays indexed by its counter stay in registers).
#if defined(FLY_DEVICE_COMPILER)
#  define FLY_UNROLL _Pragma("unroll")
#else
#  define FLY_UNROLL
#endif

// A constant object (such as the slicing marker `_`) usable by name in device code: nvcc rejects
// references to host-only namespace-scope objects inside __device__ functions.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#  define FLY_INLINE_CONSTANT static const __device__
#else
#  define FLY_INLINE_CONSTANT static constexpr
#endif
