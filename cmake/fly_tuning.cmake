# Tuning tables -> C++, for every op that has them. Each table lists, per problem key, the variant
# measured fastest on one target (or, gemm_model, per variant the cost model's coefficients):
#   gemm       src/dispatch/tuning/<target>.tsv            ab d m n k variant       (docs/gemm.md)
#   pa_decode  src/dispatch/tuning/pa_decode_<target>.tsv  kv q d block layout seqs rows hkv ctx variant
#                                                                                   (docs/pa-decode.md)
#   gemm_model src/dispatch/tuning/gemm_model_<target>.tsv variant sms c0 .. c5     (docs/gemm.md)
# fly_tuning_table(<op> <output.cpp> <table.tsv>...) parses an op's tables at configure time and
# writes one source defining fly::dispatch::<op>_tuning() (src/dispatch/<op>/<op>_tuning.hpp). The
# output is rewritten only when its text changes. A malformed line stops configuration with
# "<file>:<line>: <reason>".
#
# One core for every op: reading, comments, fields, duplicates, file names and the output are here;
# an op adds its columns (_fly_tuning_<op>_row: check the fields, spell the C++ row and the key) and
# its names (_fly_tuning_<op>_type, _header, _prefix).
#
# Script mode (test/gemm/check_tuning_table.cmake, test/pa_decode/check_tuning_table.cmake):
#   cmake [-DOP=gemm|pa_decode|gemm_model] -DOUTPUT=<output.cpp> "-DTABLES=<a.tsv;b.tsv>" -P fly_tuning.cmake

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  cmake_minimum_required(VERSION 3.25)  # the project's policies, before the functions record them
endif()

set(_fly_tuning_targets sm90a gfx942)

# ---- the core ---------------------------------------------------------------------------------

function(_fly_tuning_fail table line_no text reason)
  set(msg "${table}:${line_no}: ${reason}\n  ${text}")
  string(REPLACE "<bs>" "\\" msg "${msg}")  # unpark what _fly_tuning_parse parked
  string(REPLACE "<sc>" ";" msg "${msg}")
  string(REPLACE "<lb>" "[" msg "${msg}")
  string(REPLACE "<rb>" "]" msg "${msg}")
  message(FATAL_ERROR "${msg}")
endfunction()

# Field checks for the ops' row functions: each fails the line with a reason naming the column.
# They read `table`, `line_no` and `data` from the caller's scope.
function(_fly_tuning_expect_one_of column value what)  # ARGN: the accepted values
  if(NOT value IN_LIST ARGN)
    string(REPLACE ";" ", " expect "${ARGN}")
    _fly_tuning_fail("${table}" ${line_no} "${data}" "${column} '${value}' is not ${what} (${expect})")
  endif()
endfunction()

function(_fly_tuning_expect_count column value)
  string(LENGTH "${value}" digits)
  if(NOT "${value}" MATCHES "^[1-9][0-9]*$" OR digits GREATER 18)  # 18 digits: always an int64_t
    _fly_tuning_fail("${table}" ${line_no} "${data}" "${column} '${value}' is not an integer >= 1")
  endif()
endfunction()

# >= 0 and a valid C++ double literal as written: 12, 0.5, 1.25e-05 (no leading zero, which C++
# would read as octal; an exponent of at most two digits)
function(_fly_tuning_expect_decimal column value)
  if(NOT "${value}" MATCHES "^(0|[1-9][0-9]*)(\\.[0-9]*)?([eE][-+]?[0-9][0-9]?)?$")
    _fly_tuning_fail("${table}" ${line_no} "${data}" "${column} '${value}' is not a decimal >= 0")
  endif()
endfunction()

function(_fly_tuning_expect_name value)
  if(NOT value MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _fly_tuning_fail("${table}" ${line_no} "${data}" "variant '${value}' is not a variant name")
  endif()
endfunction()

# Appends one C++ initialiser per entry of `table` (an `op` table) to the variable named `rows_var`.
function(_fly_tuning_parse op table rows_var)
  get_filename_component(name "${table}" NAME)
  get_filename_component(stem "${table}" NAME_WE)
  set(prefix "${_fly_tuning_${op}_prefix}")
  set(target "${stem}")
  if(NOT prefix STREQUAL "")
    string(REGEX REPLACE "^${prefix}" "" target "${stem}")
  endif()
  if((NOT prefix STREQUAL "" AND target STREQUAL stem) OR NOT target IN_LIST _fly_tuning_targets)
    message(FATAL_ERROR "${table}: a ${op} tuning table is named ${prefix}<target>.tsv, target sm90a or gfx942 (not '${stem}')")
  endif()
  set(columns "${_fly_tuning_${op}_columns}")
  list(LENGTH columns expected)
  string(REPLACE ";" " " spelled "${columns}")
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
    if(NOT count EQUAL expected)
      _fly_tuning_fail("${table}" ${line_no} "${data}" "expected ${expected} fields '${spelled}', found ${count}")
    endif()
    set(row "")
    set(key "")
    cmake_language(CALL _fly_tuning_${op}_row "${target}" "${fields}" row key)  # checks; fails the line
    # One entry per problem: two would leave the choice to the order of the lines.
    list(FIND keys "${key}" seen)
    if(seen GREATER -1)
      list(GET key_lines ${seen} first)
      string(REPLACE "/" " " spelled_key "${key}")
      _fly_tuning_fail("${table}" ${line_no} "${data}" "a second entry for ${spelled_key} (first at line ${first})")
    endif()
    list(APPEND keys "${key}")
    list(APPEND key_lines ${line_no})
    string(APPEND rows "    {Target::${target}, ${row}},  // ${name}:${line_no}\n")
  endforeach()
  set(${rows_var} "${rows}" PARENT_SCOPE)
endfunction()

function(fly_tuning_table op output)
  if(NOT DEFINED _fly_tuning_${op}_type)
    message(FATAL_ERROR "fly_tuning_table: no tuning tables for op '${op}' (gemm, pa_decode or gemm_model)")
  endif()
  set(type "${_fly_tuning_${op}_type}")
  set(function "${op}_tuning")  # the defined function and its header: <op>/<op>_tuning.hpp unless the op says
  set(header "${op}/${op}_tuning.hpp")
  if(DEFINED _fly_tuning_${op}_function)
    set(function "${_fly_tuning_${op}_function}")
    set(header "${_fly_tuning_${op}_header}")
  endif()
  set(rows "")
  set(sources "")
  foreach(table IN LISTS ARGN)
    _fly_tuning_parse(${op} "${table}" rows)
    get_filename_component(name "${table}" NAME)
    list(APPEND sources ${name})
  endforeach()
  string(REPLACE ";" ", " sources "${sources}")
  if(sources STREQUAL "")
    set(sources "no table")
  endif()
  if(rows STREQUAL "")
    set(body "std::span<const ${type}> ${function}() { return {}; }  // no entries\n")
  else()
    string(CONCAT body "namespace {\nconstexpr ${type} table[] = {\n${rows}};\n}  // namespace\n\n"
                       "std::span<const ${type}> ${function}() { return table; }\n")
  endif()
  file(CONFIGURE OUTPUT "${output}" @ONLY CONTENT
"// Generated at configure time by cmake/fly_tuning.cmake from ${sources}. Do not edit: edit the
// tables (or regenerate them with fly_bench) and re-run CMake.
#include \"${header}\"

namespace fly::dispatch {

${body}
}  // namespace fly::dispatch
")
endfunction()

# ---- gemm: ab d m n k variant (GemmTuning, gemm/gemm_tuning.hpp) --------------------------------

set(_fly_tuning_gemm_type GemmTuning)
set(_fly_tuning_gemm_prefix "")
set(_fly_tuning_gemm_columns ab d m n k variant)
# The fp8 format of each target, as gemm/gemm_validate.cpp accepts it; f32 runs everywhere.
set(_fly_tuning_gemm_ab_sm90a e4m3fn f32)
set(_fly_tuning_gemm_ab_gfx942 e4m3fnuz f32)

function(_fly_tuning_gemm_row target fields row_var key_var)
  list(GET fields 0 ab)
  list(GET fields 1 d)
  list(GET fields 2 m)
  list(GET fields 3 n)
  list(GET fields 4 k)
  list(GET fields 5 variant)
  _fly_tuning_expect_one_of(ab "${ab}" "a ${target} A/B dtype" ${_fly_tuning_gemm_ab_${target}})
  _fly_tuning_expect_one_of(d "${d}" "a D dtype" bf16 f16 f32)
  foreach(dim m n k)
    _fly_tuning_expect_count(${dim} "${${dim}}")
  endforeach()
  _fly_tuning_expect_name("${variant}")
  string(TOUPPER "${ab}" ab_enum)
  string(TOUPPER "${d}" d_enum)
  set(${row_var} "FLY_DTYPE_${ab_enum}, FLY_DTYPE_${d_enum}, ${m}, ${n}, ${k}, \"${variant}\"" PARENT_SCOPE)
  set(${key_var} "${ab}/${d}/${m}/${n}/${k}" PARENT_SCOPE)
endfunction()

# ---- pa_decode: kv q d block layout seqs rows hkv ctx variant (PaDecodeTuning, ---------------
# pa_decode/pa_decode_tuning.hpp). rows: query rows per kv head (q_len x group); ctx: max_seq_len.

set(_fly_tuning_pa_decode_type PaDecodeTuning)
set(_fly_tuning_pa_decode_prefix "pa_decode_")
set(_fly_tuning_pa_decode_columns kv q d block layout seqs rows hkv ctx variant)

function(_fly_tuning_pa_decode_row target fields row_var key_var)
  list(GET fields 0 kv)
  list(GET fields 1 q)
  list(GET fields 2 d)
  list(GET fields 3 block)
  list(GET fields 4 layout)
  list(GET fields 5 seqs)
  list(GET fields 6 rows)
  list(GET fields 7 hkv)
  list(GET fields 8 ctx)
  list(GET fields 9 variant)
  # what pa_decode/pa_decode_validate.cpp accepts
  _fly_tuning_expect_one_of(kv "${kv}" "a KV cache dtype" bf16 f16 e4m3fn e4m3fnuz)
  _fly_tuning_expect_one_of(q "${q}" "a query dtype" bf16 f16)
  if(kv MATCHES "^(bf16|f16)$" AND NOT kv STREQUAL q)
    _fly_tuning_fail("${table}" ${line_no} "${data}" "q '${q}' with kv '${kv}': a 16-bit cache takes queries of its own dtype")
  endif()
  _fly_tuning_expect_one_of(d "${d}" "a head_dim" 64 128 256)
  _fly_tuning_expect_one_of(block "${block}" "a block_size" 16 32 64)
  _fly_tuning_expect_one_of(layout "${layout}" "a KV layout" nhd hnd vllm)
  foreach(dim seqs rows hkv ctx)
    _fly_tuning_expect_count(${dim} "${${dim}}")
  endforeach()
  _fly_tuning_expect_name("${variant}")
  string(TOUPPER "${kv}" kv_enum)
  string(TOUPPER "${q}" q_enum)
  string(TOUPPER "${layout}" layout_enum)
  set(${row_var} "FLY_DTYPE_${kv_enum}, FLY_DTYPE_${q_enum}, ${d}, ${block}, FLY_KV_LAYOUT_${layout_enum}, ${seqs}, ${rows}, ${hkv}, ${ctx}, \"${variant}\"" PARENT_SCOPE)
  set(${key_var} "${kv}/${q}/${d}/${block}/${layout}/${seqs}/${rows}/${hkv}/${ctx}" PARENT_SCOPE)
endfunction()

# ---- gemm_model: variant sms c0 .. c5 (GemmCostModel, gemm/gemm_cost_model.hpp) ----------------
# Per variant the cost model's coefficients (us), fitted to a tune listing by
# tools/gemm_cost_model.py on a machine of `sms` SMs.

set(_fly_tuning_gemm_model_type GemmCostModel)
set(_fly_tuning_gemm_model_prefix "gemm_model_")
set(_fly_tuning_gemm_model_function gemm_cost_model)
set(_fly_tuning_gemm_model_header gemm/gemm_cost_model.hpp)
set(_fly_tuning_gemm_model_columns variant sms c0 c1 c2 c3 c4 c5)

function(_fly_tuning_gemm_model_row target fields row_var key_var)
  list(GET fields 0 variant)
  list(GET fields 1 sms)
  _fly_tuning_expect_name("${variant}")
  _fly_tuning_expect_count(sms "${sms}")
  string(LENGTH "${sms}" digits)
  if(digits GREATER 6)  # an int in C++
    _fly_tuning_fail("${table}" ${line_no} "${data}" "sms '${sms}' is not an SM count (at most 6 digits)")
  endif()
  set(coefficients "")
  foreach(i 2 3 4 5 6 7)
    list(GET fields ${i} c)
    math(EXPR column "${i} - 2")
    _fly_tuning_expect_decimal(c${column} "${c}")
    string(APPEND coefficients ", ${c}")
  endforeach()
  string(SUBSTRING "${coefficients}" 2 -1 coefficients)
  set(${row_var} "\"${variant}\", ${sms}, {${coefficients}}" PARENT_SCOPE)
  set(${key_var} "${variant}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT OP)
    set(OP gemm)
  endif()
  if(NOT OUTPUT OR NOT TABLES)
    message(FATAL_ERROR "usage: cmake [-DOP=gemm|pa_decode|gemm_model] -DOUTPUT=<output.cpp> \"-DTABLES=<a.tsv;...>\" -P fly_tuning.cmake")
  endif()
  fly_tuning_table(${OP} "${OUTPUT}" ${TABLES})
endif()
