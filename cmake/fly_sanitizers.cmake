# FLY_SANITIZE=ON builds every host target with ASan + UBSan; any UB report aborts the test.
if(FLY_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-sanitize-recover=all>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
endif()

# FLY_TSAN=ON builds every host target with ThreadSanitizer (the tsan preset): the handles' lazy
# state, the dispatch caches and the host backends' thread pools under the host tests.
option(FLY_TSAN "Build host code with ThreadSanitizer" OFF)
if(FLY_TSAN)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=thread> $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=thread)
endif()

# FLY_FUZZ=ON (the fuzz preset, clang) instruments every host target for libFuzzer, with ASan and
# UBSan, and builds the fuzz targets of test/fuzz.
option(FLY_FUZZ "Build the libFuzzer targets (clang)" OFF)
if(FLY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "FLY_FUZZ needs clang (libFuzzer): the fuzz preset uses clang++-19")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=fuzzer-no-link,address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-sanitize-recover=all>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
endif()
