# Shared by the generator checks (check_generator.cmake, check_pa_decode_generator.cmake).

# Runs ${GEN} over ${TABLE} into a fresh ${OUT} with the extra arguments; its listing goes to
# <out_var> (and is printed). A failing generator fails the check.
function(fly_run_generator out_var)
  file(REMOVE_RECURSE ${OUT})
  file(MAKE_DIRECTORY ${OUT})
  execute_process(COMMAND ${GEN} --table ${TABLE} --out ${OUT} ${ARGN}
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "generator failed (${rc}): ${err}")
  endif()
  message("${out}")
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The listing matches every expected regex, every accepted cell has its file, and no variant
# name repeats.
function(fly_check_generator_output out)
  foreach(e IN LISTS ARGN)
    if(NOT out MATCHES "${e}")
      message(FATAL_ERROR "generator output lacks: ${e}")
    endif()
  endforeach()
  string(REGEX MATCHALL "file [a-z0-9]+ [^\n]+" files "${out}")
  set(names "")
  foreach(f IN LISTS files)
    string(REGEX REPLACE "^file [a-z0-9]+ " "" path "${f}")
    if(NOT EXISTS ${path})
      message(FATAL_ERROR "missing generated file ${path}")
    endif()
    get_filename_component(n ${path} NAME_WE)
    list(APPEND names ${n})
  endforeach()
  list(LENGTH names before)
  list(REMOVE_DUPLICATES names)
  list(LENGTH names after)
  if(NOT before EQUAL after OR before EQUAL 0)
    message(FATAL_ERROR "variant names are not unique (${before} files, ${after} names)")
  endif()
endfunction()
