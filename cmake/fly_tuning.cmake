# GEMM tuning tables -> C++. Each src/dispatch/tuning/<target>.tsv lists, per (ab, d, m, n, k), the
# variant measured fastest on that target (format: the comment at the top of sm90a.tsv).
# fly_tuning_table(<output.cpp> <table.tsv>...) parses the tables at configure time and writes one
# source defining fly::dispatch::gemm_tuning() (gemm_tuning.hpp). The output is rewritten only when
# its text changes. A malformed line stops configuration with "<file>:<line>: <reason>".
#
# Script mode (test/gemm/check_tuning_table.cmake):
#   cmake -DOUTPUT=<output.cpp> "-DTABLES=<a.tsv;b.tsv>" -P fly_tuning.cmake

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  cmake_minimum_required(VERSION 3.25)  # the project's policies, before the functions record them
endif()

# The fp8 format of each target, as gemm/gemm_validate.cpp accepts it; f32 runs everywhere.
set(_fly_tuning_ab_sm90a e4m3fn f32)
set(_fly_tuning_ab_gfx942 e4m3fnuz f32)
set(_fly_tuning_d bf16 f16 f32)

function(_fly_tuning_fail table line_no text reason)
  set(msg "${table}:${line_no}: ${reason}\n  ${text}")
  string(REPLACE "<bs>" "\\" msg "${msg}")  # unpark what _fly_tuning_parse parked
  string(REPLACE "<sc>" ";" msg "${msg}")
  string(REPLACE "<lb>" "[" msg "${msg}")
  string(REPLACE "<rb>" "]" msg "${msg}")
  message(FATAL_ERROR "${msg}")
endfunction()

# Appends one C++ initialiser per entry of `table` to the variable named `rows_var`.
function(_fly_tuning_parse table rows_var)
  get_filename_component(target "${table}" NAME_WE)
  get_filename_component(name "${table}" NAME)
  if(NOT DEFINED _fly_tuning_ab_${target})
    message(FATAL_ERROR "${table}: a tuning table is named <target>.tsv, target sm90a or gfx942 (not '${target}')")
  endif()
  set(ab_ok ${_fly_tuning_ab_${target}})
  file(READ "${table}" text)
  # One list element per line. ';', '[', ']' and '\' have meanings in CMake lists: park them, so
  # that a comment holding one cannot merge or split lines (line numbers stay exact).
  string(REPLACE "\r" "" text "${text}")
  string(REPLACE "\\" "<bs>" text "${text}")
  string(REPLACE ";" "<sc>" text "${text}")
  string(REPLACE "[" "<lb>" text "${text}")
  string(REPLACE "]" "<rb>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(rows "${${rows_var}}")
  set(keys "")
  set(key_lines "")
  set(line_no 0)
  foreach(line IN LISTS lines)
    math(EXPR line_no "${line_no} + 1")
    string(REGEX REPLACE "#.*$" "" data "${line}")
    string(STRIP "${data}" data)
    if(data STREQUAL "")
      continue()
    endif()
    string(REGEX REPLACE "[ \t]+" ";" fields "${data}")
    list(LENGTH fields count)
    if(NOT count EQUAL 6)
      _fly_tuning_fail("${table}" ${line_no} "${data}" "expected 6 fields 'ab d m n k variant', found ${count}")
    endif()
    list(GET fields 0 ab)
    list(GET fields 1 d)
    list(GET fields 2 m)
    list(GET fields 3 n)
    list(GET fields 4 k)
    list(GET fields 5 variant)
    if(NOT ab IN_LIST ab_ok)
      string(REPLACE ";" ", " expect "${ab_ok}")
      _fly_tuning_fail("${table}" ${line_no} "${data}" "ab '${ab}' is not a ${target} A/B dtype (${expect})")
    endif()
    if(NOT d IN_LIST _fly_tuning_d)
      _fly_tuning_fail("${table}" ${line_no} "${data}" "d '${d}' is not a D dtype (bf16, f16, f32)")
    endif()
    foreach(dim m n k)
      string(LENGTH "${${dim}}" digits)
      if(NOT "${${dim}}" MATCHES "^[1-9][0-9]*$" OR digits GREATER 18)  # 18 digits: always an int64_t
        _fly_tuning_fail("${table}" ${line_no} "${data}" "${dim} '${${dim}}' is not an integer >= 1")
      endif()
    endforeach()
    if(NOT variant MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      _fly_tuning_fail("${table}" ${line_no} "${data}" "variant '${variant}' is not a variant name")
    endif()
    # One entry per problem: two would leave the choice to the order of the lines.
    set(key "${ab}/${d}/${m}/${n}/${k}")
    list(FIND keys "${key}" seen)
    if(seen GREATER -1)
      list(GET key_lines ${seen} first)
      _fly_tuning_fail("${table}" ${line_no} "${data}" "a second entry for ${ab} ${d} ${m} ${n} ${k} (first at line ${first})")
    endif()
    list(APPEND keys "${key}")
    list(APPEND key_lines ${line_no})
    string(TOUPPER "${ab}" ab_enum)
    string(TOUPPER "${d}" d_enum)
    string(APPEND rows "    {Target::${target}, FLY_DTYPE_${ab_enum}, FLY_DTYPE_${d_enum}, ${m}, ${n}, ${k}, \"${variant}\"},  // ${name}:${line_no}\n")
  endforeach()
  set(${rows_var} "${rows}" PARENT_SCOPE)
endfunction()

function(fly_tuning_table output)
  set(rows "")
  set(sources "")
  foreach(table IN LISTS ARGN)
    _fly_tuning_parse("${table}" rows)
    get_filename_component(name "${table}" NAME)
    list(APPEND sources ${name})
  endforeach()
  string(REPLACE ";" ", " sources "${sources}")
  if(rows STREQUAL "")
    set(body "std::span<const GemmTuning> gemm_tuning() { return {}; }  // no entries\n")
  else()
    string(CONCAT body "namespace {\nconstexpr GemmTuning table[] = {\n${rows}};\n}  // namespace\n\n"
                       "std::span<const GemmTuning> gemm_tuning() { return table; }\n")
  endif()
  file(CONFIGURE OUTPUT "${output}" @ONLY CONTENT
"// Generated at configure time by cmake/fly_tuning.cmake from ${sources}. Do not edit: edit the
// tables (or regenerate them with fly_bench --tune) and re-run CMake.
#include \"gemm/gemm_tuning.hpp\"

namespace fly::dispatch {

${body}
}  // namespace fly::dispatch
")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT OUTPUT OR NOT TABLES)
    message(FATAL_ERROR "usage: cmake -DOUTPUT=<output.cpp> \"-DTABLES=<a.tsv;...>\" -P fly_tuning.cmake")
  endif()
  fly_tuning_table("${OUTPUT}" ${TABLES})
endif()
