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

# fly_cuda_cubin(<cubin-var> <log-var> SOURCE <file.cu> [INCLUDES dirs...]): the device code of
# SOURCE as an sm_90a cubin plus ptxas's resource report, for fly_regreport.
function(fly_cuda_cubin cubin_var log_var)
  cmake_parse_arguments(arg "" "SOURCE" "INCLUDES" ${ARGN})
  get_filename_component(name ${arg_SOURCE} NAME_WE)
  get_filename_component(src ${arg_SOURCE} ABSOLUTE)
  set(cubin ${CMAKE_CURRENT_BINARY_DIR}/${name}.cubin)
  set(log ${CMAKE_CURRENT_BINARY_DIR}/${name}.ptxas.log)
  set(flags -std=c++20 ${FLY_CUDA_GENCODE} -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_BINARY_DIR}/include)
  foreach(i IN LISTS arg_INCLUDES)
    list(APPEND flags -I${i})
  endforeach()
  string(REPLACE ";" "|" flags_arg "${flags}")  # nvcc_cubin.cmake splits on "|"
  add_custom_command(OUTPUT ${cubin} ${log}
    COMMAND ${CMAKE_COMMAND} -DNVCC=${CMAKE_CUDA_COMPILER} "-DFLAGS=${flags_arg}" -DSRC=${src}
            -DCUBIN=${cubin} -DLOG=${log} -P ${CMAKE_SOURCE_DIR}/cmake/nvcc_cubin.cmake
    DEPENDS ${src} ${CMAKE_SOURCE_DIR}/cmake/nvcc_cubin.cmake
    IMPLICIT_DEPENDS CXX ${src}
    COMMENT "CUDA sm_90a cubin ${name} + ptxas report"
    VERBATIM)
  set(${cubin_var} ${cubin} PARENT_SCOPE)
  set(${log_var} ${log} PARENT_SCOPE)
endfunction()
