# cmake -DGEN=<fly_gemm_generator> -DTABLE=<variants.txt>,<variants_trial.txt> -DTRIAL=<variants_trial.txt> -DOUT=<dir> -P check_trial_table.cmake
# The cells on trial are built only for a device run (FLY_GEMM_TRIAL), so CI checks here what that
# build would meet: the generator accepts every trial cell, and with the main grid every variant
# name stays unique.
include(${CMAKE_CURRENT_LIST_DIR}/generator_checks.cmake)
set(both ${TABLE})
set(TABLE ${TRIAL})
fly_run_generator(trial --targets sm90a --registry sm90a)
if(trial MATCHES "reject ([^\n]*)")
  message(FATAL_ERROR "a cell on trial is rejected: ${CMAKE_MATCH_1}")
endif()
# An empty trial table (comments only: every cell tried has joined the grid or left) registers none.
file(STRINGS ${TRIAL} trial_cells REGEX "^[ \t]*[^# \t]")
if(trial_cells)
  fly_check_generator_output("${trial}" "registry [^\n]* [1-9][0-9]*\n")
elseif(NOT trial MATCHES "registry [^\n]* 0\n" OR trial MATCHES "file [a-z0-9]+ ")
  message(FATAL_ERROR "a trial table with no cells generated variants")
endif()
set(TABLE ${both})
fly_run_generator(all --targets sm90a --registry sm90a)
fly_check_generator_output("${all}")
