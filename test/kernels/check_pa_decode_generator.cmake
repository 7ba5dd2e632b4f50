# cmake -DGEN=<fly_pa_decode_generator> -DTABLE=<table> -DOUT=<dir> -P check_pa_decode_generator.cmake
# The paged-decode generator accepts the valid cells of its kernels (block steps, per-warp
# pipelines cp.async- or TMA-fed, persistent or not, of 16 or 8 rows, shared rings; gfx942 tokens:waves:bufBits cells), rejects each invalid one
# with the reason, and writes one file per accepted cell.
include(${CMAKE_CURRENT_LIST_DIR}/generator_checks.cmake)
fly_run_generator(out --targets sm90a,gfx942 --registry sm90a)
set(expect
  "file sm90a [^\n]*/pa_decode_sm90a_d128_bf16_vtok_t64w4s2.cu"
  "file sm90a [^\n]*/pa_decode_sm90a_d128_fp8_vdim_t16w4s4pw.cu"
  "reject pa_decode_sm90a_d128_bf16_vtok_t48w4s2: a step of 48 tokens does not split into 4 warp slices of whole m16n8k16 k-steps"
  "reject pa_decode_sm90a_d128_bf16_vtok_t64w4s1: a pipeline needs 2 stages at least"
  "reject pa_decode_sm90a_d128_bf16_vtok_t64w4s8: 8 stages need [0-9]+ bytes of shared memory"
  "reject pa_decode_sm90a_d96_bf16_vtok_t64w4s2: head_dim 96 is not a multiple of 64"
  "reject pa_decode_sm90a_d128_bf16_vdim_t96w2s2: a dim-major V row of 12 chunks has no bank swizzle"
  "reject pa_decode_sm90a_d128_bf16_vtok_t32w4s3pw: a per-warp pipeline's stage is one 16-token group, not 32 tokens"
  "reject pa_decode_sm90a_d128_bf16_vtok_t16w8s4pw: 8 warps of 4 stages need [0-9]+ bytes of shared memory"
  "reject pa_decode_sm90a_d128_fp8_vtok_t16w4s1pw: a pipeline needs 2 stages at least"
  "file sm90a [^\n]*/pa_decode_sm90a_d128_bf16_vtok_t16w4s3tma.cu"
  "reject pa_decode_sm90a_d128_bf16_vdim_t16w4s3tma: TMA boxes feed token-major tiles"
  "reject pa_decode_sm90a_d64_fp8_vtok_t16w4s3tma: a 64-byte row is not whole 128-byte TMA swizzle spans"
  "reject pa_decode_sm90a_d128_bf16_vtok_t64w4s2tma: TMA feeds per-warp pipelines only"
  "file gfx942 [^\n]*/pa_decode_gfx942_d128_fp8_vtok_t64w4_buf128.hip"
  "file gfx942 [^\n]*/pa_decode_gfx942_d128_fp8_vdim_t64w4_buf32.hip"
  "reject pa_decode_gfx942_d128_bf16_vtok_t64w4_buf0: a gfx942 tile is tokens:waves:bufBits"
  "reject pa_decode_gfx942_d128_fp8_vtok_t64w4_buf16: BufferCopy16b: gfx942's buffer-load atoms for K / V rows are BufferCopy32b, 64b and 128b"
  "reject pa_decode_gfx942_d128_fp8_vtok_t48w4_buf128: a step of 48 tokens is not 16 tokens \\(one MFMA M\\) for each of 4 wavefronts"
  "reject pa_decode_gfx942_d96_bf16_vtok_t64w4_buf128: head_dim 96 is not a multiple of 64"
  "reject pa_decode_gfx942_d256_bf16_vtok_t256w16_buf128: 16 wavefronts need 131072 bytes of LDS \\(V stage 131072"
  "reject pa_decode_gfx942_d128_bf16_vtok_t1088w17_buf128: 17 wavefronts do not form a workgroup"
  "reject pa_decode_sm90a_d128_bf16_vtok_t64w4s1_buf128: bufBits tiles are gfx942 buffer loads"
  "file sm90a [^\n]*/pa_decode_sm90a_d128_bf16_vtok_t16w6s12ring.cu"
  "reject pa_decode_sm90a_d128_bf16_vdim_t16w6s12ring: TMA boxes feed token-major tiles"
  "reject pa_decode_sm90a_d128_fp8_vtok_t16w6s8ring: 8 stages leave some of 6 consumers no group in flight"
  "reject pa_decode_sm90a_d128_bf16_vtok_t16w6s28ring: 28 stages need [0-9]+ bytes of shared memory"
  "reject pa_decode_sm90a_d128_bf16_vtok_t64w4s8ring: a ring's stage is one 16-token group, not 64 tokens"
  "file sm90a [^\n]*/pa_decode_sm90a_d128_bf16_vtok_t16w4s3ps.cu"
  "file sm90a [^\n]*/pa_decode_sm90a_d128_fp8_vtok_t16w4s3pstma.cu"
  "reject pa_decode_sm90a_d128_bf16_vtok_t16w8s4ps: 8 warps of 4 stages need [0-9]+ bytes of shared memory"
  "reject pa_decode_sm90a_d128_bf16_vdim_t16w4s3pstma: TMA boxes feed token-major tiles"
  "file sm90a [^\n]*/pa_decode_sm90a_d128_bf16_vtok_t16w4s3pwn8.cu"
  "file sm90a [^\n]*/pa_decode_sm90a_d128_fp8_vtok_t16w4s4tman8.cu"
  "reject pa_decode_sm90a_d128_bf16_vdim_t16w4s3pwn8: the 8-row \\(n8\\) products read V\\^T from token-major tiles"
  "reject pa_decode_sm90a_d128_bf16_vtok_t64w4s2n8: the 8-row \\(n8\\) products run in per-warp pipelines only"
  "file sm90a [^\n]*/pa_decode_sm90a_d128_bf16_vtok_t16w4s3psn8.cu"
  "registry [^\n]* 9\n")
fly_check_generator_output("${out}" ${expect})
