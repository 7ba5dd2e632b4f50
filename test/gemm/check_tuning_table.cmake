# cmake -DMODULE=<cmake/fly_tuning.cmake> -DWORK=<dir> -P check_tuning_table.cmake
# The tuning-table parser: a good table becomes the expected C++ rows (comments holding ';', '[',
# ']' and '\' do not shift line numbers); each malformed table fails with "<file>:<line>: <reason>".
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})

set(OP gemm)
include(${CMAKE_CURRENT_LIST_DIR}/../common/tuning_table_check.cmake)

# ---- a good table
expect_parsed(good sm90a.tsv "# header; with [brackets] and a \\ backslash\n\ne4m3fn bf16 16 8192 8192 gemm_a_s1  # 19.8 us; [x]\n\tf32  f32\t1 2 3 g  \n   \n# end\ne4m3fn f16 16 8192 8192 gemm_b_s1\n")
expect_rows(3
    "{Target::sm90a, FLY_DTYPE_E4M3FN, FLY_DTYPE_BF16, 16, 8192, 8192, \"gemm_a_s1\"},  // sm90a.tsv:3\n"
    "{Target::sm90a, FLY_DTYPE_F32, FLY_DTYPE_F32, 1, 2, 3, \"g\"},  // sm90a.tsv:4\n"
    "{Target::sm90a, FLY_DTYPE_E4M3FN, FLY_DTYPE_F16, 16, 8192, 8192, \"gemm_b_s1\"},  // sm90a.tsv:7\n"
    "#include \"gemm/gemm_tuning.hpp\""
    "std::span<const GemmTuning> gemm_tuning() { return table")  # no ";": ARGN would split there

# ---- a table of comments only: an empty list
expect_empty_table(gfx942.tsv "# nothing measured\n" gemm_tuning)

# ---- malformed tables: each fails, naming the file and line
set(head "# c; [x] \\ y\ne4m3fn bf16 16 8192 8192 ok\n")  # the bad line below is line 3
expect_rejected(fields sm90a.tsv "${head}e4m3fn bf16 16 8192 gemm_x\n"
                "sm90a.tsv:3: expected 6 fields 'ab d m n k variant', found 5")
expect_rejected(extra sm90a.tsv "${head}e4m3fn bf16 16 8192 8192 gemm_x gemm_y\n" "sm90a.tsv:3: expected 6 fields .*found 7")
expect_rejected(ab sm90a.tsv "${head}e4m3 bf16 16 8192 8192 gemm_x\n"
                "sm90a.tsv:3: ab 'e4m3' is not a sm90a A/B dtype .e4m3fn, f32.")
expect_rejected(fnuz_on_sm90a sm90a.tsv "${head}e4m3fnuz bf16 16 8192 8192 gemm_x\n"
                "sm90a.tsv:3: ab 'e4m3fnuz' is not a sm90a A/B dtype")
expect_rejected(fn_on_gfx942 gfx942.tsv "${head}" "gfx942.tsv:2: ab 'e4m3fn' is not a gfx942 A/B dtype .e4m3fnuz, f32.")
expect_rejected(d sm90a.tsv "${head}f32 f64 16 8192 8192 gemm_x\n" "sm90a.tsv:3: d 'f64' is not a D dtype")
expect_rejected(zero sm90a.tsv "${head}f32 f32 0 8192 8192 gemm_x\n" "sm90a.tsv:3: m '0' is not an integer >= 1")
expect_rejected(negative sm90a.tsv "${head}f32 f32 16 -8 8192 gemm_x\n" "sm90a.tsv:3: n '-8' is not an integer >= 1")
expect_rejected(float sm90a.tsv "${head}f32 f32 16 8192 8e3 gemm_x\n" "sm90a.tsv:3: k '8e3' is not an integer >= 1")
expect_rejected(huge sm90a.tsv "${head}f32 f32 1234567890123456789 8192 8192 gemm_x\n"
                "sm90a.tsv:3: m '1234567890123456789' is not an integer")
expect_rejected(name sm90a.tsv "${head}f32 f32 16 8192 8192 gemm-x\n" "sm90a.tsv:3: variant 'gemm-x' is not a variant name")
expect_rejected(semicolon sm90a.tsv "${head}f32 f32 16 8192 8192 a;b\n" "sm90a.tsv:3: variant 'a.b' is not a variant name")
expect_rejected(duplicate sm90a.tsv "${head}e4m3fn bf16 16 8192 8192 other # again\n"
                "sm90a.tsv:3: a second entry for e4m3fn bf16 16 8192 8192 .first at line 2.")
expect_rejected(target host.tsv "# nothing\n" "host.tsv: a gemm tuning table is named <target>.tsv")
expect_rejected(pa_decode_name pa_decode_sm90a.tsv "# nothing\n" "a gemm tuning table is named <target>.tsv.*not .pa_decode_sm90a.")
