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
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(FLY_CUDA_GENCODE "-gencode=arch=compute_90a,code=sm_90a" CACHE STRING "nvcc target for the CUDA backend")
endif()

# Compile options every CUDA target of the project uses.
function(fly_cuda_target target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:${FLY_CUDA_GENCODE} -Xptxas=-v --resource-usage -lineinfo>)
  target_link_options(${target} PRIVATE $<$<LINK_LANGUAGE:CUDA>:${FLY_CUDA_GENCODE}>)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()
