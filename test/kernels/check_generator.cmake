# cmake -DGEN=<fly_gemm_generator> -DTABLE=<table> -DOUT=<dir> -P check_generator.cmake
# The generator accepts the valid cells, rejects each invalid one with the reason, names every
# variant uniquely, and writes a translation unit for every accepted cell.
include(${CMAKE_CURRENT_LIST_DIR}/generator_checks.cmake)
fly_run_generator(out --registry sm90a)
set(expect
  "reject gemm_sm90a_e4m3fn_bf16_48x16x128_w4x1_u32_s1: BM=48 is not a multiple of the MMA's M step 64"
  "reject gemm_sm90a_e4m3fn_bf16_64x16x80_w4x1_u32_s1: BK=80 is not a multiple of the MMA's K step 32"
  "reject gemm_sm90a_e4m3fn_bf16_64x24x128_w4x2_u32_s1: BN=24 is not a multiple of the MMA's N step 16"
  "reject gemm_sm90a_e4m3fn_bf16_64x16x128_w4x1_u128_s1: copy u128 .16 elements. is wider than the thread's contiguous runs .4."
  "reject gemm_gfx942_f32_f32_64x64x16_w2x2_buf64_s1: copy buf64 .2 elements. is wider"
  "reject gemm_gfx942_e4m3fnuz_f32_64x16x96_w4x1_buf128_s1: BK=96 is not a multiple of the MMA's K step 64"
  "reject gemm_sm90a_e4m3fn_bf16_16x64x128_w1x4_cpasync128_s1: a cp.async pipeline needs at least 2 stages"
  "reject gemm_sm90a_e4m3fn_bf16_16x64x1024_w1x4_cpasync128_s4: 4 stages need 332800 bytes of shared memory"
  "reject gemm_sm90a_e4m3fn_bf16_16x24x32_w1x1_cpasync128_s2: 32 threads cannot cover a 24x32 tile in whole rows of 2 vectors"
  "reject gemm_sm90a_e4m3fn_bf16_64x16x128_w4x1_u32_s2: the direct-load kernel has no pipeline"
  "reject gemm_sm90a_e4m3fn_bf16_16x64x128_w1x4x3_cpasync128_s4: the 4 k-steps of a tile do not split among 3 warp groups"
  "reject gemm_sm90a_e4m3fn_bf16_64x16x128_w4x1x2_u32_s1: the direct-load kernel does not split K among warps"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_16x64x256_w1x4x2_cpasync128_s3.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_64x64x256_w1x4x2_wgmma_s3.cu"
  "reject gemm_sm90a_e4m3fn_bf16_48x64x128_w1x4_wgmma_s4: BM=48 is not a wgmma N"
  "reject gemm_sm90a_e4m3fn_bf16_64x64x128_w2x2_wgmma_s4: a wgmma block is warpgroups .4 warps. along N"
  "reject gemm_sm90a_e4m3fn_bf16_64x32x128_w1x4_wgmma_s4: a wgmma warpgroup covers 64 rows of B .wgmma.s M.: BN=64 for warps 1x4"
  "reject gemm_sm90a_e4m3fn_bf16_64x64x128_w1x4_wgmma_s2: a wgmma pipeline keeps one tile in the MMA and one loading"
  "reject gemm_sm90a_e4m3fn_bf16_64x64x64_w1x4_wgmma_s4: BK=64 is not a whole number of 128-byte swizzle atoms"
  "reject gemm_sm90a_e4m3fn_bf16_16x64x512_w1x4_wgmma_s3: 128 threads cannot cover a 16x512 tile in whole rows of 32 vectors, 8-row multiples per pass"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_64x128x128_w1x8_wgmma_s3.cu"
  "reject gemm_sm90a_e4m3fn_bf16_64x96x128_w1x6_wgmma_s3: a wgmma block is warpgroups .4 warps. along N"
  "reject gemm_sm90a_e4m3fn_bf16_128x256x128_w1x16_wgmma_s3: the promoted accumulators .3 x BM/2 = 192 floats per thread. and 32 more exceed the 128 registers 512 threads leave"
  "reject gemm_gfx942_f32_f32_64x64x16_w2x2_cpasync128_s3: copy cpasync128 is an sm_90a instruction"
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_128x128x16_w16x16_simt128_s2_b2.cu"
  "reject gemm_sm90a_f32_f32_128x128x8_w16x16x2_simt128_s2: the SIMT block does not split a tile's k-steps among threads"
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_128x128x16_w16x16_simt128_s3_k2.cu"
  "reject gemm_sm90a_f32_f32_128x128x8_w16x16_simt128_s4: the SIMT block keeps two or three k-tiles between load and multiply: stages must be :s2 or :s3"
  "reject gemm_sm90a_f32_f32_64x64x8_w8x8_simt128_s2_k3: :k3: the SIMT block splits a tile's K over a cluster of 2 or 4 blocks"
  "reject gemm_sm90a_f32_f32_48x64x8_w16x8_simt128_s2: a thread's rows and columns come in runs of four: BM a multiple of 4 x 16"
  "reject gemm_sm90a_f32_f32_64x64x12_w8x8_simt128_s2: BK=12: the SIMT block's shared tile shifts whole groups of eight k .BK a multiple of 8."
  "reject gemm_sm90a_f32_f32_64x64x4_w8x8_simt128_s2: BK=4: the SIMT block's shared tile shifts whole groups of eight k .BK a multiple of 8."
  "reject gemm_sm90a_e4m3fn_bf16_64x64x128_w2x2_simt128_s2: copy simt128 is the fp32 SIMT block of sm_90a"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_16x64x128_w1x4_cpasync128_s4.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_64x16x128_w4x1_u32_s1.cu"
  "file gfx942 [^\n]*/gemm_gfx942_f32_f32_64x64x16_w2x2_buf32_s1.hip"
  "file gfx942 [^\n]*/gemm_gfx942_e4m3fnuz_f32_64x16x128_w4x1_buf128_s1.hip"
  "file gfx942 [^\n]*/gemm_gfx942_e4m3fnuz_f32_64x16x128_w4x1_buf32_s1.hip"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_16x64x512_w1x4_tma_s4.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_64x128x256_w1x8_tma_s4.cu"
  "reject gemm_sm90a_e4m3fn_bf16_64x64x256_w1x4x2_tma_s4: the TMA block does not split a tile's k-steps among warpgroups"
  "reject gemm_sm90a_e4m3fn_bf16_64x64x128_w1x4_tma_s1: a TMA ring needs 2 stages at least"
  "reject gemm_sm90a_e4m3fn_bf16_64x320x128_w1x20_tma_s2: a TMA box has at most 256 rows: BN=320"
  "reject gemm_sm90a_e4m3fn_bf16_128x256x256_w1x16_tma_s4: 4 stages need 394304 bytes of shared memory"
  "reject gemm_sm90a_e4m3fn_bf16_128x128x128_w1x8_tma_s3: the promoted accumulators .3 x BM/2 = 192 floats per thread. and 32 more exceed the 168 registers 384 threads leave"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_64x128x128_w4x1_tmaws_s4.cu"
  "reject gemm_sm90a_e4m3fn_bf16_128x128x128_w4x1_tmaws_s4: the warp-specialised block is one or two consumer warpgroups of 64 rows of A: tile 64xBNx128:4x1 or 128xBNx128:8x1"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_64x64x128_w4x1_tmaws_s12_c1x4.cu"
  "reject gemm_sm90a_e4m3fn_bf16_128x64x128_w8x1_tmaws_s8_c1x8: clusters of 1x8: the warp-specialised block groups 2 or 4 blocks along M .:c2x1, :c4x1. or along N .:c1x2, :c1x4., or none"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x192x128_w8x1_tmaws_s4.cu"
  "reject gemm_sm90a_e4m3fn_bf16_128x320x128_w8x1_tmaws_s2: BN=320: the warp-specialised block's N is one wgmma N .64, 128, 192. or two N=128 sub-tiles .256."
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4_st.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_64x64x128_w4x1_tmaws_s12_c1x2_st.cu"
  "reject gemm_sm90a_e4m3fn_bf16_128x192x128_w8x1_tmaws_s5_st: 5 stages need 238672 bytes of shared memory"
  "reject gemm_sm90a_e4m3fn_bf16_64x128x256_w1x8_tma_s4_st: the TMA-store epilogue .:st. is the persistent block's .tmaws."
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_stw.cu"
  "reject gemm_sm90a_e4m3fn_bf16_64x128x256_w1x8_tma_s4_stw: the TMA-store epilogue .:st. is the persistent block's .tmaws."
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_st_nb.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4_stw_nb.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_nb.cu"
  "reject gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_k2_nb: :nb: the next tile's first batch goes under a whole tile's epilogue; a split-K block stores a slice"
  "reject gemm_sm90a_e4m3fn_bf16_64x128x256_w1x8_tma_s4_nb: the next tile's batch under the epilogue .:nb. is the persistent block's .tmaws."
  "reject gemm_gfx942_e4m3fnuz_f32_16x128x128_w1x4_lds128_s2_st: the TMA-store epilogue .:st. is the persistent block's .tmaws."
  "reject gemm_gfx942_e4m3fnuz_f32_16x128x128_w1x4_lds128_s2_c2x1: clusters .:c2x1. are the persistent block's .tmaws."
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_64x64x32_w8x8x2_cpasync128_s3_b4.cu"
  "reject gemm_sm90a_f32_f32_64x64x32_w8x8x2_cpasync128_s4_b4: :b4: 4 blocks of 73728 bytes of shared memory .and 1 KB each reserved. exceed an SM's 233472"
  "reject gemm_sm90a_f32_f32_16x32x64_w1x32x8_cpasync128_s2_b8: :b8: a cap of 32 registers leaves no room beside 16 accumulators a thread"
  "reject gemm_sm90a_f32_f32_64x64x16_w16x16_cpasync128_s2_b9: :b9: 9 blocks of 256 threads exceed an SM's 2048"
  "reject gemm_sm90a_e4m3fn_bf16_64x64x128_w1x4_wgmma_s4_b2: the register cap .:b2. is for the cp.async and SIMT blocks .cpasync128, cpasync32, simt128, simt32."
  "reject gemm_sm90a_e4m3fn_bf16_128x128x256_w8x1_tmaws_s4: BK=256: a warp-specialised stage is one 128-byte swizzle atom of K"
  "reject gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s1: a TMA ring needs 2 stages at least"
  "reject gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s5: 5 stages need 246864 bytes of shared memory"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4_c2x1.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x64x128_w8x1_tmaws_s8_c1x2.cu"
  "reject gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4_c2x2: clusters of 2x2: the warp-specialised block groups 2 or 4 blocks along M .:c2x1, :c4x1. or along N .:c1x2, :c1x4., or none"
  "reject gemm_sm90a_e4m3fn_bf16_64x64x128_w1x4_wgmma_s4_c2x1: clusters .:c2x1. are the persistent block's .tmaws."
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_k2.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_64x256x128_w4x1_tmaws_s4_k4.cu"
  "reject gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s7_k2: 7 stages need 263312 bytes of shared memory"
  "reject gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s4_k3: :k3: the warp-specialised block splits a tile's K over a cluster of 2 or 4 blocks"
  "reject gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s4_c1x2_k2: :k2: a split-K cluster shares no loads and stores D directly"
  "reject gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s3_k2_st: :k2: a split-K cluster shares no loads and stores D directly"
  "reject gemm_sm90a_e4m3fn_bf16_64x64x128_w1x4_wgmma_s4_k2: split-K over a cluster .:k2. is the persistent and SIMT blocks' .tmaws, simt128, simt32."
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_128x128x16_w16x16_simt32_s3_k2.cu"
  "reject gemm_sm90a_f32_f32_32x32x32_w4x4_simt32_s2: 16 threads cannot cover a 32x32 tile in whole rows of 32 vectors"
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_16x32x64_w1x32x8_cpasync32_s4.cu"
  "file sm90a [^\n]*/gemm_sm90a_e4m3fn_bf16_16x64x128_w1x4_cpasync32_s4.cu"
  "reject gemm_sm90a_f32_f32_16x16x64_w1x16_cpasync32_s2: 16 threads cannot cover a 16x64 tile in whole rows of 64 vectors"
  # ---- gfx942 LDS pipeline
  "file gfx942 [^\n]*/gemm_gfx942_e4m3fnuz_f32_16x128x128_w1x4_lds128_s2.hip"
  "file gfx942 [^\n]*/gemm_gfx942_e4m3fnuz_f32_128x128x64_w2x2_m32_lds128_s2.hip"
  "reject gemm_gfx942_e4m3fnuz_f32_64x64x128_w2x2_lds128_s1: the LDS pipeline double-buffers: stages must be :s2"
  "reject gemm_gfx942_e4m3fnuz_f32_64x64x128_w2x2x2_lds128_s2: the LDS pipeline does not split a tile's k-steps among waves"
  "reject gemm_gfx942_e4m3fnuz_f32_256x128x128_w4x2_m32_lds128_s2: two LDS buffers of .BM . BN. x BK = .256 . 128. x 128 bytes need 98304 bytes, over gfx942's 64 KiB per workgroup"
  "reject gemm_gfx942_e4m3fnuz_f32_48x64x128_w2x2_lds128_s2: BM=48 is not a multiple of the MMA's M step 32 .atom M 16 x 2 warps."
  "reject gemm_gfx942_e4m3fnuz_f32_64x64x192_w2x2_lds128_s2: the swizzled LDS tile .64x192.:.192,1. needs rows of 2.n >= 32 bytes for its 16-byte-chunk XOR swizzle; BK=192 is 192 bytes"
  "reject gemm_gfx942_e4m3fnuz_f32_16x128x128_w1x4_m64_lds128_s2: no 64x64 MFMA for e4m3fnuz in the LDS pipeline"
  "reject gemm_gfx942_f32_f32_16x48x64_w1x3_lds128_s2: 192 threads cannot cover a 16x64 tile in whole rows of 16 vectors"
  "reject gemm_gfx942_f32_f32_64x64x32_w2x2_m32_lds128_s2: no 32x32 MFMA for f32 in the LDS pipeline"
  "reject gemm_gfx942_e4m3fnuz_f32_64x64x128_w2x2_m32_buf128_s1: the MFMA choice :m32 is for the LDS pipeline .lds128, lds64."
  "reject gemm_sm90a_e4m3fn_bf16_64x64x128_w2x2_lds128_s2: copy lds128 is a gfx942 pipeline .buffer loads into LDS."
  # ---- end gfx942 LDS pipeline
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_128x128x16_w16x16_simt128_s2_b2_l4x8.cu"
  "reject gemm_sm90a_f32_f32_128x128x16_w16x16_simt128_s2_l4x4: :l4x4: a warp's 32 threads as A x B .A B = 32. of the 16x16 threads"
  "reject gemm_sm90a_f32_f32_64x64x16_w8x8_simt128_s2_l16x2: :l16x2: a warp's 32 threads as A x B .A B = 32. of the 8x8 threads"
  "reject gemm_sm90a_f32_f32_64x64x32_w8x8x2_cpasync128_s4_l4x8: the warp's lane layout .:l4x8. is the SIMT block's"
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_128x128x16_w16x16_simt128_s2_b2_l4x8_pf.cu"
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_64x128x16_w16x16_simt128_s3_k2_l4x8_pf.cu"
  "file sm90a [^\n]*/gemm_sm90a_f32_f32_128x128x16_w16x16_simt32_s3_k2_pf.cu"
  "reject gemm_sm90a_f32_f32_64x64x32_w8x8x2_cpasync128_s4_pf: the fragment prefetch .:pf. is the SIMT block's loop"
  "registry [^\n]* 32\n")
fly_check_generator_output("${out}" ${expect})

# What a cell's spelling must change in its translation unit (a name alone would pass the checks
# above): `:st` instantiates the TMA-store block and hands the kernel D's map when the launcher made
# one, `:stw` and `:nb` its warp-store and next-batch forms; `:b4` caps the kernel's registers through __launch_bounds__ (so does `:b2` on the SIMT block, simt128, which its unit includes); `:k2` instantiates the split
# block and warms B from its share of K (the SIMT block's splits and stages are its last two arguments); a plain cell does none of these.
function(fly_expect_in_unit name)
  file(READ ${OUT}/${name}.cu text)
  foreach(e IN LISTS ARGN)
    string(FIND "${text}" "${e}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}.cu lacks: ${e}")
    endif()
  endforeach()
endfunction()
fly_expect_in_unit(gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4_st
  "GemmWgmmaWsBlock<128, 256, 4, 1, 1, fly::bfloat16, true>" "args.d_by_tma ? &args.d : nullptr")
fly_expect_in_unit(gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4 "GemmWgmmaWsBlock<128, 256, 4, 1, 1, fly::bfloat16>")
fly_expect_in_unit(gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_stw
  "GemmWgmmaWsBlock<128, 128, 6, 1, 1, fly::bfloat16, true, 1, true>")
fly_expect_in_unit(gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_st_nb
  "GemmWgmmaWsBlock<128, 128, 6, 1, 1, fly::bfloat16, true, 1, false, true>")
fly_expect_in_unit(gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_nb
  "GemmWgmmaWsBlock<128, 128, 6, 1, 1, fly::bfloat16, false, 1, false, true>")
fly_expect_in_unit(gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4_stw_nb
  "GemmWgmmaWsBlock<128, 256, 4, 1, 1, fly::bfloat16, true, 1, true, true>")
fly_expect_in_unit(gemm_sm90a_f32_f32_64x64x32_w8x8x2_cpasync128_s3_b4 "__launch_bounds__(Block::threads, 4)")
fly_expect_in_unit(gemm_sm90a_f32_f32_128x128x16_w16x16_simt128_s2_b2 "#include \"gemm_simt_kernel.hpp\""
  "GemmSimtBlock<fly::Layout<fly::Shape<fly::Int<16>, fly::Int<16>, fly::Int<1>>>, 128, 128, 16, float, 2, 1>"
  "__launch_bounds__(Block::threads, 2)"
  # the generator's model of the block's shared memory, checked by the compiler: 2 x 2 x (16 x 132
  # + 8) floats (the second group of eight k of each operand 8 floats further on)
  "static_assert(Block::smem_bytes == 33920, ")
fly_expect_in_unit(gemm_sm90a_f32_f32_128x128x16_w16x16_simt128_s3_k2
  "GemmSimtBlock<fly::Layout<fly::Shape<fly::Int<16>, fly::Int<16>, fly::Int<1>>>, 128, 128, 16, float, 3, 2>")
fly_expect_in_unit(gemm_sm90a_f32_f32_128x128x16_w16x16_simt32_s3_k2
  "GemmSimtBlock<fly::Layout<fly::Shape<fly::Int<16>, fly::Int<16>, fly::Int<1>>>, 128, 128, 16, float, 3, 2, 32>"
  # the body for the device pass alone (the host pass compiles the launch stub only)
  "{\n#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)\n" "#else\n  (void)p;\n#endif\n}")
# :l4x8: lanes 0-3 down M (stride 1), 8 of them across N (stride 4), the warps 32 apart: 4 down M, 2 across N
fly_expect_in_unit(gemm_sm90a_f32_f32_128x128x16_w16x16_simt128_s2_b2_l4x8
  "GemmSimtBlock<fly::Layout<fly::Shape<fly::Shape<fly::Int<4>, fly::Int<4>>, fly::Shape<fly::Int<8>, fly::Int<2>>, fly::Int<1>>, fly::Stride<fly::Stride<fly::Int<1>, fly::Int<32>>, fly::Stride<fly::Int<4>, fly::Int<128>>, fly::Int<0>>>, 128, 128, 16, float, 2, 1>")
# :pf: the load width, then the prefetch, after the stages and split
fly_expect_in_unit(gemm_sm90a_f32_f32_128x128x16_w16x16_simt32_s3_k2_pf
  "GemmSimtBlock<fly::Layout<fly::Shape<fly::Int<16>, fly::Int<16>, fly::Int<1>>>, 128, 128, 16, float, 3, 2, 32, true>")
fly_expect_in_unit(gemm_sm90a_f32_f32_64x128x16_w16x16_simt128_s3_k2_l4x8_pf ", 64, 128, 16, float, 3, 2, 128, true>")
fly_expect_in_unit(gemm_sm90a_f32_f32_16x32x64_w1x32x8_cpasync32_s4
  "GemmCpAsyncBlock<fly::SM90_FMA_F32, fly::Layout<fly::Shape<fly::Int<1>, fly::Int<32>, fly::Int<8>>>, 16, 32, 64, 4, float, 32>")
fly_expect_in_unit(gemm_sm90a_e4m3fn_bf16_128x128x128_w8x1_tmaws_s6_k2
  "GemmWgmmaWsBlock<128, 128, 6, 1, 1, fly::bfloat16, false, 2>" "Block::first_k0(args.p")

# The 4-byte copies' and loads' alignment in the registry: one float (any K and row pitch), four fp8 elements.
file(READ ${OUT}/gemm_registry_generated.cpp registry)
foreach(e IN ITEMS "\"gemm_sm90a_f32_f32_16x32x64_w1x32x8_cpasync32_s4\", Target::sm90a, FLY_DTYPE_F32, FLY_DTYPE_F32, 16, 32, 64, 1,"
                   "\"gemm_sm90a_f32_f32_128x128x16_w16x16_simt32_s3_k2\", Target::sm90a, FLY_DTYPE_F32, FLY_DTYPE_F32, 128, 128, 16, 1,"
                   "\"gemm_sm90a_e4m3fn_bf16_16x64x128_w1x4_cpasync32_s4\", Target::sm90a, FLY_DTYPE_E4M3FN, FLY_DTYPE_BF16, 16, 64, 128, 4,")
  string(FIND "${registry}" "${e}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "gemm_registry_generated.cpp lacks: ${e}")
  endif()
endforeach()
