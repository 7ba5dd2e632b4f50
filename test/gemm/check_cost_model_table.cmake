# cmake -DMODULE=<cmake/fly_tuning.cmake> -DWORK=<dir> -P check_cost_model_table.cmake
# The cost-model table's parser (op gemm_model): a good table becomes the expected C++ rows; each
# malformed table fails with "<file>:<line>: <reason>".
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})

set(OP gemm_model)
include(${CMAKE_CURRENT_LIST_DIR}/../common/tuning_table_check.cmake)

# ---- a good table: integers, decimals and exponents
expect_parsed(good gemm_model_sm90a.tsv "# variant sms c0 .. c5; [x]\n\ngemm_a_s1 132 9.5 0.25 0 1.5e-05 0 7  # fitted\ngemm_b_s1\t114  12 0.5 0.125 3E2 1 0.5\n")
expect_rows(2
    "{Target::sm90a, \"gemm_a_s1\", 132, {9.5, 0.25, 0, 1.5e-05, 0, 7}},  // gemm_model_sm90a.tsv:3\n"
    "{Target::sm90a, \"gemm_b_s1\", 114, {12, 0.5, 0.125, 3E2, 1, 0.5}},  // gemm_model_sm90a.tsv:4\n"
    "#include \"gemm/gemm_cost_model.hpp\""
    "std::span<const GemmCostModel> gemm_cost_model() { return table")

# ---- comments only: an empty list
expect_empty_table(gemm_model_gfx942.tsv "# nothing fitted\n" gemm_cost_model)

# ---- malformed tables: each fails, naming the file and line
set(head "# c\ngemm_ok 132 1 2 3 4 5 6\n")  # the bad line below is line 3
expect_rejected(fields gemm_model_sm90a.tsv "${head}gemm_x 132 1 2 3 4 5\n"
                "gemm_model_sm90a.tsv:3: expected 8 fields 'variant sms c0 c1 c2 c3 c4 c5', found 7")
expect_rejected(name gemm_model_sm90a.tsv "${head}gemm-x 132 1 2 3 4 5 6\n" "gemm_model_sm90a.tsv:3: variant 'gemm-x' is not a variant name")
expect_rejected(sms gemm_model_sm90a.tsv "${head}gemm_x 0 1 2 3 4 5 6\n" "gemm_model_sm90a.tsv:3: sms '0' is not an integer >= 1")
expect_rejected(negative gemm_model_sm90a.tsv "${head}gemm_x 132 1 -2 3 4 5 6\n" "gemm_model_sm90a.tsv:3: c1 '-2' is not a decimal >= 0")
expect_rejected(octal gemm_model_sm90a.tsv "${head}gemm_x 132 1 010 3 4 5 6\n" "gemm_model_sm90a.tsv:3: c1 '010' is not a decimal >= 0")
expect_rejected(overflow gemm_model_sm90a.tsv "${head}gemm_x 132 1 2 3 1e999 5 6\n" "gemm_model_sm90a.tsv:3: c3 '1e999' is not a decimal >= 0")
expect_rejected(many_sms gemm_model_sm90a.tsv "${head}gemm_x 12345678901 1 2 3 4 5 6\n" "gemm_model_sm90a.tsv:3: sms '12345678901' is not an SM count")
expect_rejected(c5 gemm_model_sm90a.tsv "${head}gemm_x 132 1 2 3 4 5 -6\n" "gemm_model_sm90a.tsv:3: c5 '-6' is not a decimal >= 0")
expect_rejected(word gemm_model_sm90a.tsv "${head}gemm_x 132 1 2 nan 4 5 6\n" "gemm_model_sm90a.tsv:3: c2 'nan' is not a decimal >= 0")
expect_rejected(duplicate gemm_model_sm90a.tsv "${head}gemm_ok 132 6 5 4 3 2 1\n"
                "gemm_model_sm90a.tsv:3: a second entry for gemm_ok .first at line 2.")
expect_rejected(target gemm_model_host.tsv "# nothing\n" "a gemm_model tuning table is named gemm_model_<target>.tsv")
