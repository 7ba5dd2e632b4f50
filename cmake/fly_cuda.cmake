# CUDA backend (sm_90a through nvcc). FLY_ENABLE_CUDA: ON, OFF or AUTO.
include(CheckLanguage)
set(FLY_CUDA_ENABLED OFF)
string(TOUPPER "${FLY_ENABLE_CUDA}" _fly_cuda)
if(_fly_cuda STREQUAL "ON" OR _fly_cuda STREQUAL "AUTO")
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(FLY_CUDA_ENABLED ON)
  elseif(_fly_cuda STREQUAL "ON")
    message(FATAL_ERROR "FLY_ENABLE_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER or put nvcc on PATH)")
  endif()
endif()

if(FLY_CUDA_ENABLED)
  # The architecture is spelled with -gencode below: sm_90a needs the 'a' target for wgmma/setmaxnreg,
  # and CMake's own architecture list would add a plain sm_90 pass that rejects them.
  set(CMAKE_CUDA_ARCHITECTURES OFF)
  enable_language(CUDA)
  # CMake 3.25 does not know that nvcc 13 takes C++20: teach it the flag, so that fly::fly's
  # cxx_std_20 requirement also holds for CUDA consumers.
  if(CMAKE_VERSION VERSION_LESS 3.26)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  endif()
  find_package(CUDAToolkit REQUIRED)
  set(FLY_CUDA_GENCODE "-gencode=arch=compute_90a,code=sm_90a" CACHE STRING "nvcc target for the CUDA backend")
endif()

# Compile options every CUDA target of the project uses.
function(fly_cuda_target target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:${FLY_CUDA_GENCODE} -Xptxas=-v -lineinfo>)
  target_link_options(${target} PRIVATE $<$<LINK_LANGUAGE:CUDA>:${FLY_CUDA_GENCODE}>)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()
