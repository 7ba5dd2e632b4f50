# cmake -DNVCC=<nvcc> -DFLAGS="<flag|flag|...>" -DSRC=<file.cu> -DCUBIN=<out> -DLOG=<out> -P nvcc_cubin.cmake
# Compiles SRC's device code to a cubin and keeps ptxas's -v report (written to stderr) in LOG:
# fly_regreport reads registers, shared memory and stack from the cubin and spills from the log.
string(REPLACE "|" ";" FLAGS "${FLAGS}")
execute_process(COMMAND ${NVCC} -cubin ${FLAGS} -Xptxas -v -o ${CUBIN} ${SRC}
                RESULT_VARIABLE rc ERROR_FILE ${LOG})
if(NOT rc EQUAL 0)
  file(READ ${LOG} log)
  message(FATAL_ERROR "nvcc failed (${rc}):\n${log}")
endif()
