# cmake -DMODULE=<cmake/fly_tuning.cmake> -DWORK=<dir> -P check_tuning_table.cmake
# The paged-decode tuning-table parser (the pa_decode columns of cmake/fly_tuning.cmake): a good
# table becomes the expected C++ rows; each malformed table fails with "<file>:<line>: <reason>".
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})

set(OP pa_decode)
include(${CMAKE_CURRENT_LIST_DIR}/../common/tuning_table_check.cmake)

# ---- a good table: every dtype, layout and head_dim spelled once; comments with ';' and '['
set(ring pa_decode_sm90a_d128_fp8_vtok_t16w6s24ring)
expect_parsed(good pa_decode_sm90a.tsv "# kv q d block layout seqs rows hkv ctx variant; [x]\n\ne4m3fn bf16 128 16 nhd 64 4 8 4096 ${ring}  # 0.76; [y]\n\te4m3fnuz  f16\t64 32 hnd 1 1 1 1 v_a  \n# \\ end\nbf16 bf16 256 64 vllm 256 16 2 1024 v_b\nf16 f16 128 16 nhd 8 5 8 8192 v_c\n")
expect_rows(4
    "{Target::sm90a, FLY_DTYPE_E4M3FN, FLY_DTYPE_BF16, 128, 16, FLY_KV_LAYOUT_NHD, 64, 4, 8, 4096, \"${ring}\"},  // pa_decode_sm90a.tsv:3\n"
    "{Target::sm90a, FLY_DTYPE_E4M3FNUZ, FLY_DTYPE_F16, 64, 32, FLY_KV_LAYOUT_HND, 1, 1, 1, 1, \"v_a\"},  // pa_decode_sm90a.tsv:4\n"
    "{Target::sm90a, FLY_DTYPE_BF16, FLY_DTYPE_BF16, 256, 64, FLY_KV_LAYOUT_VLLM, 256, 16, 2, 1024, \"v_b\"},  // pa_decode_sm90a.tsv:6\n"
    "{Target::sm90a, FLY_DTYPE_F16, FLY_DTYPE_F16, 128, 16, FLY_KV_LAYOUT_NHD, 8, 5, 8, 8192, \"v_c\"},  // pa_decode_sm90a.tsv:7\n"
    "#include \"pa_decode/pa_decode_tuning.hpp\""
    "std::span<const PaDecodeTuning> pa_decode_tuning() { return table")

# ---- gfx942 takes the same columns; a table of comments only is an empty list
expect_parsed(gfx942 pa_decode_gfx942.tsv "e4m3fnuz bf16 128 16 nhd 64 4 8 4096 v_g\n")
expect_rows(1 "{Target::gfx942, FLY_DTYPE_E4M3FNUZ, FLY_DTYPE_BF16, 128, 16, FLY_KV_LAYOUT_NHD, 64, 4, 8, 4096, \"v_g\"}")
expect_empty_table(pa_decode_sm90a.tsv "# nothing measured\n" pa_decode_tuning)

# ---- malformed tables: each fails, naming the file and line
set(t pa_decode_sm90a.tsv)
set(head "# c; [x] \\ y\ne4m3fn bf16 128 16 nhd 64 4 8 4096 ok\n")  # the bad line below is line 3
expect_rejected(fields ${t} "${head}e4m3fn bf16 128 16 nhd 64 4 8 v\n"
                "${t}:3: expected 10 fields 'kv q d block layout seqs rows hkv ctx variant', found 9")
expect_rejected(gemm_line ${t} "${head}e4m3fn bf16 16 8192 8192 gemm_x\n" "${t}:3: expected 10 fields .*found 6")
expect_rejected(extra ${t} "${head}e4m3fn bf16 128 16 nhd 64 4 8 4096 v w\n" "${t}:3: expected 10 fields .*found 11")
expect_rejected(kv ${t} "${head}fp8 bf16 128 16 nhd 64 4 8 4096 v\n"
                "${t}:3: kv 'fp8' is not a KV cache dtype .bf16, f16, e4m3fn, e4m3fnuz.")
expect_rejected(q ${t} "${head}e4m3fn e4m3fn 128 16 nhd 64 4 8 4096 v\n" "${t}:3: q 'e4m3fn' is not a query dtype .bf16, f16.")
expect_rejected(mixed ${t} "${head}bf16 f16 128 16 nhd 64 4 8 4096 v\n"
                "${t}:3: q 'f16' with kv 'bf16': a 16-bit cache takes queries of its own dtype")
expect_rejected(head_dim ${t} "${head}e4m3fn bf16 96 16 nhd 64 4 8 4096 v\n" "${t}:3: d '96' is not a head_dim .64, 128, 256.")
expect_rejected(block ${t} "${head}e4m3fn bf16 128 8 nhd 64 4 8 4096 v\n" "${t}:3: block '8' is not a block_size .16, 32, 64.")
expect_rejected(layout ${t} "${head}e4m3fn bf16 128 16 NHD 64 4 8 4096 v\n" "${t}:3: layout 'NHD' is not a KV layout .nhd, hnd, vllm.")
expect_rejected(seqs ${t} "${head}e4m3fn bf16 128 16 nhd 0 4 8 4096 v\n" "${t}:3: seqs '0' is not an integer >= 1")
expect_rejected(rows ${t} "${head}e4m3fn bf16 128 16 nhd 64 4.5 8 4096 v\n" "${t}:3: rows '4.5' is not an integer >= 1")
expect_rejected(hkv ${t} "${head}e4m3fn bf16 128 16 nhd 64 4 -8 4096 v\n" "${t}:3: hkv '-8' is not an integer >= 1")
expect_rejected(ctx ${t} "${head}e4m3fn bf16 128 16 nhd 64 4 8 4k v\n" "${t}:3: ctx '4k' is not an integer >= 1")
expect_rejected(name ${t} "${head}e4m3fn bf16 128 16 nhd 64 4 8 4096 pa-x\n" "${t}:3: variant 'pa-x' is not a variant name")
expect_rejected(duplicate ${t} "${head}e4m3fn bf16 128 16 nhd 64 4 8 4096 other # again\n"
                "${t}:3: a second entry for e4m3fn bf16 128 16 nhd 64 4 8 4096 .first at line 2.")
expect_rejected(target pa_decode_host.tsv "# nothing\n"
                "pa_decode_host.tsv: a pa_decode tuning table is named pa_decode_<target>.tsv")
expect_rejected(unprefixed sm90a.tsv "# nothing\n" "sm90a.tsv: a pa_decode tuning table is named pa_decode_<target>.tsv")
