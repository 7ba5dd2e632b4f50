# cmake -DISA=<file.s> -DKERNELS="k1;k2" -P check_isa.cmake
# Fails unless each kernel is in the gfx942 ISA with no call (s_swappc), no dynamic stack, no
# scratch (private segment) and no spills: the layout algebra must fold into plain arithmetic.
file(READ ${ISA} isa)
foreach(k IN LISTS KERNELS)
  string(FIND "${isa}" ".amdhsa_kernel ${k}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "kernel ${k} not found in ${ISA}")
  endif()
endforeach()
foreach(bad "s_swappc" "s_setpc")
  string(FIND "${isa}" "${bad}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${ISA} contains ${bad}: a call survived")
  endif()
endforeach()
foreach(pattern "\\.amdhsa_uses_dynamic_stack[ \t]+1" "\\.amdhsa_private_segment_fixed_size[ \t]+[1-9]"
                "\\.(sgpr|vgpr)_spill_count:[ \t]+[1-9]")
  if(isa MATCHES "${pattern}")
    message(FATAL_ERROR "${ISA} matches '${pattern}'")
  endif()
endforeach()
string(REGEX MATCHALL "\\.vgpr_count:[ \t]+[0-9]+" vgprs "${isa}")
message(STATUS "ISA ok: ${KERNELS} (${vgprs})")
