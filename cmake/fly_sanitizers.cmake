# FLY_SANITIZE=ON builds every host target with ASan + UBSan; any UB report aborts the test.
if(FLY_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-sanitize-recover=all>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
endif()
