# Warnings for host C++ code; kept out of the public interface so consumers are unaffected.
function(fly_host_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
endfunction()
