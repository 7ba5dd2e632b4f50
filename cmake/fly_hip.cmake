# HIP backend (gfx942) through Debian's clang-19 and HIP 5.2 headers. FLY_ENABLE_HIP: ON, OFF or AUTO.
#
# clang is driven through custom commands instead of CMake's HIP language: Debian's HIP 5.2 ships no
# hip-lang config, and we want the device ISA (.s) of every translation unit beside its object, since
# without an AMD GPU the ISA is how registers and instructions are checked.
#
# Debian's rocm-device-libs 5.2 has no oclc_isa_version_942.bc. It is the gfx940 file with the ISA
# version constant 9400 changed to 9402; the build writes it with llvm-dis/llvm-as into a bitcode folder
# of its own, beside links to Debian's other bitcode files.
set(FLY_HIP_ENABLED OFF)
set(FLY_HIP_ARCH "gfx942" CACHE STRING "AMD offload architecture")
find_program(FLY_HIP_CLANG NAMES clang++-19)
find_program(FLY_LLVM_DIS NAMES llvm-dis-19)
find_program(FLY_LLVM_AS NAMES llvm-as-19)
find_path(FLY_HIP_INCLUDE_DIR hip/hip_runtime.h PATHS /usr/include /opt/rocm/include)
find_library(FLY_HIP_RUNTIME NAMES amdhip64 PATHS /opt/rocm/lib)
find_path(FLY_ROCPRIM_INCLUDE_DIR rocprim/rocprim.hpp PATHS /usr/include /opt/rocm/include)
find_path(FLY_ROCM_BITCODE_DIR oclc_isa_version_940.bc
  PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/amdgcn/bitcode /opt/rocm/amdgcn/bitcode)

string(TOUPPER "${FLY_ENABLE_HIP}" _fly_hip)
if(_fly_hip STREQUAL "ON" OR _fly_hip STREQUAL "AUTO")
  if(FLY_HIP_CLANG AND FLY_LLVM_DIS AND FLY_LLVM_AS AND FLY_HIP_INCLUDE_DIR AND FLY_ROCPRIM_INCLUDE_DIR AND FLY_ROCM_BITCODE_DIR
     AND FLY_HIP_RUNTIME)
    set(FLY_HIP_ENABLED ON)
  elseif(_fly_hip STREQUAL "ON")
    message(FATAL_ERROR "FLY_ENABLE_HIP=ON but the gfx942 toolchain is incomplete "
      "(clang++-19='${FLY_HIP_CLANG}', llvm-dis-19='${FLY_LLVM_DIS}', llvm-as-19='${FLY_LLVM_AS}', "
      "hip headers='${FLY_HIP_INCLUDE_DIR}', rocprim='${FLY_ROCPRIM_INCLUDE_DIR}', bitcode='${FLY_ROCM_BITCODE_DIR}', "
      "libamdhip64='${FLY_HIP_RUNTIME}'). "
      "Run tools/install-rocm-toolchain.sh.")
  endif()
endif()

if(FLY_HIP_ENABLED)
  set(FLY_HIP_BITCODE_DIR "${CMAKE_BINARY_DIR}/rocm-bitcode")
  set(_isa942 "${FLY_HIP_BITCODE_DIR}/oclc_isa_version_942.bc")
  add_custom_command(OUTPUT ${_isa942}
    COMMAND ${CMAKE_COMMAND} -DSRC_DIR=${FLY_ROCM_BITCODE_DIR} -DDST_DIR=${FLY_HIP_BITCODE_DIR}
            -DLLVM_DIS=${FLY_LLVM_DIS} -DLLVM_AS=${FLY_LLVM_AS}
            -P ${CMAKE_CURRENT_LIST_DIR}/make_gfx942_bitcode.cmake
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/make_gfx942_bitcode.cmake
    COMMENT "Writing oclc_isa_version_942.bc from the gfx940 bitcode")
  add_custom_target(fly_hip_bitcode DEPENDS ${_isa942})
  set(FLY_HIP_FLAGS -x hip --offload-arch=${FLY_HIP_ARCH} -O3 -std=c++20
      --rocm-device-lib-path=${FLY_HIP_BITCODE_DIR} -Wall -Wextra -Wno-unused-command-line-argument)
  # Debian's HIP headers live in /usr/include, already searched; naming it again with -isystem
  # would reorder it before libstdc++'s wrappers and break their #include_next <math.h>.
  set(FLY_HIP_SYSTEM_INCLUDES "")
  if(NOT FLY_HIP_INCLUDE_DIR STREQUAL "/usr/include")
    set(FLY_HIP_SYSTEM_INCLUDES -isystem ${FLY_HIP_INCLUDE_DIR})
  endif()
  list(APPEND FLY_HIP_FLAGS ${FLY_HIP_SYSTEM_INCLUDES})
endif()

# fly_hip_compile(<out-var> SOURCE <file.hip> [ISA_ONLY] [INCLUDES dirs...] [DEFINES defs...])
# ISA_ONLY: compiles the device side of a HIP translation unit to its gfx942 ISA <name>.gfx942.s
# (<out-var>). Otherwise one compile gives the object (host code + the gfx942 code object in a HIP fat
# binary; <out-var>) and, kept from that compile (-save-temps=obj), the device ISA (<out-var>_ISA).
function(fly_hip_compile out_var)
  cmake_parse_arguments(arg "ISA_ONLY" "SOURCE" "INCLUDES;DEFINES" ${ARGN})
  get_filename_component(name ${arg_SOURCE} NAME_WE)
  get_filename_component(src ${arg_SOURCE} ABSOLUTE)
  file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/hip)
  set(flags ${FLY_HIP_FLAGS} -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_BINARY_DIR}/include)
  foreach(i IN LISTS arg_INCLUDES)
    list(APPEND flags -I${i})
  endforeach()
  foreach(d IN LISTS arg_DEFINES)
    list(APPEND flags -D${d})
  endforeach()
  set(isa ${dir}/${name}.${FLY_HIP_ARCH}.s)
  if(arg_ISA_ONLY)
    add_custom_command(OUTPUT ${isa}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
      COMMAND ${FLY_HIP_CLANG} ${flags} --offload-device-only -S -MD -MF ${isa}.d -o ${isa} ${src}
      DEPENDS ${src} fly_hip_bitcode ${FLY_HIP_BITCODE_DIR}/oclc_isa_version_942.bc
      DEPFILE ${isa}.d
      COMMENT "HIP ${FLY_HIP_ARCH} ISA ${rel}/${name}"
      VERBATIM)
    set(${out_var} ${isa} PARENT_SCOPE)
    return()
  endif()
  set(obj ${dir}/${name}.o)
  add_custom_command(OUTPUT ${obj} ${isa}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${FLY_HIP_CLANG} ${flags} -fPIC -c -save-temps=obj -MD -MF ${obj}.d -o ${obj} ${src}
    COMMAND ${CMAKE_COMMAND} -E copy ${dir}/${name}-hip-amdgcn-amd-amdhsa-${FLY_HIP_ARCH}.s ${isa}
    DEPENDS ${src} fly_hip_bitcode ${FLY_HIP_BITCODE_DIR}/oclc_isa_version_942.bc
    DEPFILE ${obj}.d
    COMMENT "HIP ${FLY_HIP_ARCH} object and ISA ${rel}/${name}"
    VERBATIM)
  set(${out_var} ${obj} PARENT_SCOPE)
  set(${out_var}_ISA ${isa} PARENT_SCOPE)
endfunction()
