# Helpers of the tuning-table parser checks (test/gemm/check_tuning_table.cmake,
# test/pa_decode/check_tuning_table.cmake): run cmake/fly_tuning.cmake (MODULE) in script mode on a
# table written under WORK, for the op in OP.

# Writes `text` to <WORK>/<case>/<file> and runs the parser on it: sets rc, err and out (the C++).
function(run_parser case file text)
  set(table ${WORK}/${case}/${file})
  file(WRITE ${table} "${text}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DOP=${OP} -DOUTPUT=${WORK}/${case}/out.cpp -DTABLES=${table} -P ${MODULE}
                  RESULT_VARIABLE code ERROR_VARIABLE stderr)
  set(out "")
  if(EXISTS ${WORK}/${case}/out.cpp)
    file(READ ${WORK}/${case}/out.cpp out)
  endif()
  set(rc "${code}" PARENT_SCOPE)
  set(err "${stderr}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
endfunction()

# run_parser, and the table must parse.
function(expect_parsed case file text)
  run_parser(${case} ${file} "${text}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ${case} table failed (${rc}):\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# A table of comments only parses into `function` returning an empty list.
function(expect_empty_table file text function)
  run_parser(empty ${file} "${text}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${function}\\(\\) { return {}; }")
    message(FATAL_ERROR "the empty table: rc ${rc}\n${err}\n${out}")
  endif()
endfunction()

# The generated C++ holds every one of ARGN, and `count` rows in all.
function(expect_rows count)
  foreach(row IN LISTS ARGN)
    string(FIND "${out}" "${row}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the generated C++ lacks: ${row}\n--- generated:\n${out}")
    endif()
  endforeach()
  string(REGEX MATCHALL "Target::" rows "${out}")
  list(LENGTH rows found)
  if(NOT found EQUAL count)
    message(FATAL_ERROR "expected ${count} rows, found ${found}:\n${out}")
  endif()
endfunction()

# A malformed table fails, naming the file and line. expect: a regex over the message.
function(expect_rejected case file text expect)
  run_parser(${case} ${file} "${text}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "case ${case}: the parser accepted\n${text}")
  endif()
  string(REGEX REPLACE "[ \n]+" " " flat "${err}")  # CMake wraps long messages
  if(NOT flat MATCHES "${expect}")
    message(FATAL_ERROR "case ${case}: expected /${expect}/, got:\n${err}")
  endif()
  message(STATUS "case ${case}: rejected as expected")
endfunction()
