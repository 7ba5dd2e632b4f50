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
  "registry [^\n]* 7\n")
fly_check_generator_output("${out}" ${expect})
