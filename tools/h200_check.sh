#!/usr/bin/env bash
# The one script for the GPU machine: builds the cuda preset there, runs every test (GPU tests
# included), runs fly_bench, and writes a short table plus the full logs under $OUT.
#   device run: bash tools/h200_check.sh
# TUNE=1 (FLY_TUNE_ALL=1: every variant's time per shape in tune.txt) runs, instead of the full bench, `fly_bench --tune=src/dispatch/tuning/sm90a.tsv` (every variant on every tuning
# shape, about 3 minutes), copies the new table to $OUT/sm90a.tsv (commit it as
# src/dispatch/tuning/sm90a.tsv, docs/gemm.md "Tuning tables"), rebuilds with it and runs the GEMM
# rows of fly_bench again (bench_tuned.txt); with FLY_TUNE_ALL=1 it also refits the cost model from
# tune.txt ($OUT/gemm_model_sm90a.tsv: commit it as src/dispatch/tuning/gemm_model_sm90a.tsv, and
# the listing to docs/data). TUNE_DEADLINE (seconds from the start, default 540)
# stops a tune that has not finished by then (tune.txt keeps the shapes done).
# TUNE_ENVS="FLY_GEMM_EDGE_BOX=0 ..." (with TUNE=1 FLY_TUNE_ALL=1): after the tune, the same listing
# again under each setting (commas join several variables), into tune_<setting>.txt, the table it
# writes thrown away; also bounded by TUNE_DEADLINE. Compare: `python3 tools/tune_compare.py
# tune.txt --against tune_<setting>.txt`.
# TUNE_PA=1 likewise runs `fly_bench --tune-pa=src/dispatch/tuning/pa_decode_sm90a.tsv` (every
# eligible paged-decode variant on every bench shape in each cache layout, each checked against the
# host backend; a minute or two by estimate, not yet run), copies the new table to
# $OUT/pa_decode_sm90a.tsv (commit it as src/dispatch/tuning/pa_decode_sm90a.tsv, docs/pa-decode.md
# "Tuning table"), rebuilds with it and runs the paged-decode rows of fly_bench again
# (bench_tuned_pa.txt). TUNE=1 TUNE_PA=1 does both.
# SANITIZE=1 builds the GPU test binaries only and runs every one of them under compute-sanitizer
# memcheck, synccheck and racecheck (SANITIZE_TOOLS narrows the tools; SANITIZE_DEADLINE, seconds
# from the start, default 560, keeps it inside one device call), the per-variant sweeps on
# their small cases (FLY_TEST_SANITIZER_SWEEP=1); each must report no error (sanitize.txt;
# docs/reliability.md).
# FLY_REQUIRE_GPU=1 (exported) makes fly_bench (and any test that honours it) fail when no GPU is
# seen, instead of leaving the GPU rows out. After fly_bench, bench/peers.py times the peers on the
# same shapes (torch._scaled_mm, torch.mm, and cuDNN SDPA through bench/pa_decode_sdpa.py): peers.txt;
# bench/report.py then writes the report (performance.md and its plots) into report.tar.gz.
# TESTS (a ctest regex, or "skip") narrows the tests for a development run; GEMM_TEST_TIMEOUT
# (seconds, default 300) is how long ctest lets a GEMM GPU test run before it kills it (a kernel
# that hangs: the library's own barrier waits do not trap). NCU="<fly_bench filter> ..."
# profiles the first call's paged-decode kernels of each filter's rows with Nsight Compute (ncu.txt);
# NCU_SOURCE=1 adds, per row, the decode kernel's stall samples per SASS instruction
# (logs/ncu_source_<row>.csv, ncu's source page; the report beside it). NCU_GEMM (below) profiles GEMM rows
# the same way, none past NCU_DEADLINE (seconds from the start, default 500). PA_COMPARE="<variant> ..." adds, after
# fly_bench, one pass of its paged-decode rows per named variant (FLY_PA_DECODE_VARIANT, rows of
# that variant's kv type): compare.txt. PA_LAYOUTS="vllm hnd" adds a pass of the paged-decode rows per
# cache layout (FLY_BENCH_PA_LAYOUT) to the same file; PA_ORDERS="sequential" a pass with the block
# tables in pool order (FLY_BENCH_PA_ORDER); PA_ENVS="FLY_PA_DECODE_PDL=0" a pass per environment setting
# (and, under each, the paged-decode GPU tests' per-variant and graph checks: logs/ctest_envs.log);
# GEMM_ENVS="FLY_GEMM_PDL=1" a pass of the GEMM rows per setting (compare.txt), and under each the
# GEMM variant tests' exact and late-writer checks (logs/ctest_envs.log). A setting of several
# variables joins them with commas: PA_ENVS/GEMM_ENVS="FLY_GEMM_PDL=1,FLY_GEMM_WARM=0".
# GEMM_COMPARE="<variant> ..." likewise runs the fly GEMM rows of each variant's types with that
# variant forced (FLY_GEMM_VARIANT; rows it cannot run report an error): compare.txt;
# GEMM_COMPARE_ROWS (a fly_bench filter, e.g. '^gemm/e4m3_bf16/(4096x4096x4096|8192x8192x8192)/fly/')
# narrows those rows (BENCH_FILTER does not); a variant of a type it does not name is skipped. An ncu
# profile of one forced variant: FLY_GEMM_VARIANT=<name> TESTS=skip NCU_GEMM=<row> for the whole call.
# PA_SWEEP="1x8192x32x8x1 1x32768x32x8x1 ..." (BxCTXxHQxHKVxQLEN) times fly (bf16 and fp8 caches)
# and cuDNN SDPA at each shape ("sweep" lines of compare.txt): a line through time against bytes
# gives each one's fixed cost per call (its intercept) and streaming rate (its slope).
# The device tool returns at most 8 files: the logs travel as one logs.tar.gz.
# SASS="<variant> ..." (default: the default paged-decode cells and the 128x256 GEMM cell; none: skip)
# writes each one's MMA-loop instruction mix (tools/sass_loops.py) to logs/sass.txt.
# TRIAL=1 adds the GEMM cells on trial (src/kernels/gemm/variants_trial.txt, -DFLY_GEMM_TRIAL=ON):
# every GPU test then runs them as well, and TUNE=1 FLY_TUNE_ALL=1 times them beside the grid; the
# table it writes may name them, so commit it only with the winners moved into variants.txt.
# CLOCK_ROWS="<fly_bench filter> ..." runs each filter's rows again with CLOCK_BATCH (default 400)
# calls a batch (FLY_BENCH_BATCH_CALLS, at most 500) while nvidia-smi
# records the SM clock, power and clock-event reasons every 20 ms (three batches and the one-call
# timings: about 1.5 s of load a row at 8192^3): the rows and
# tools/clock_trace.py's line per filter go to clocks.txt, the traces to logs/. Name fly and its
# peer as separate filters, e.g. '^gemm/e4m3_bf16/8192x8192x8192/fly/ ^gemm/e4m3_bf16/8192x8192x8192/cublaslt/'.
# (cuBLASLt's rows failed with 1000: the hold gave up; 400 fit.) CLOCK_VARIANTS=
# "<variant> ..." then runs CLOCK_ROWS' fly rows again with each variant forced (FLY_GEMM_VARIANT):
# which cell does the most GEMMs a joule under the power cap.
# FLY_COMMIT=<hash> names the commit in the report's title: the device's copy of the working tree
# may carry a stale .git (on 2026-12-04 it reported the previous session's HEAD), so pass it from
# the checkout, as the literal hash that `git rev-parse --short HEAD` prints here.
set -uo pipefail
script_start=$(date +%s)
# ncu locks the clocks to base (1.32 GHz SM on the H200, against ~1.98 boost) unless told not to,
# which makes instruction-bound kernels look memory-starved; NCU_CLOCKS=base restores its default.
ncu_clocks="--clock-control none"
[[ ${NCU_CLOCKS:-} == base ]] && ncu_clocks=""
export FLY_REQUIRE_GPU=1
out=${OUT:-/tmp/fly-h200}
tune=${TUNE:-0}
tune_pa=${TUNE_PA:-0}
logs="$out/logs"
mkdir -p "$logs"
jobs=$(nproc)
smi_reasons=clocks_event_reasons.active  # older drivers: clocks_throttle_reasons.active
nvidia-smi --query-gpu=$smi_reasons --format=csv >/dev/null 2>&1 || smi_reasons=clocks_throttle_reasons.active

# seconds_until <seconds from the script's start> [cap]: the time left before that deadline, at
# most cap: how SANITIZE_DEADLINE, TUNE_DEADLINE and NCU_DEADLINE keep a run inside one device call.
seconds_until() {
  local left=$(( script_start + $1 - $(date +%s) ))
  [[ -n ${2:-} ]] && ((left > $2)) && left=$2
  echo "$left"
}

# PA_ENVS / GEMM_ENVS: one pass per setting (commas join several variables, e.g.
# FLY_GEMM_PDL=1,FLY_GEMM_WARM=0): the op's fly_bench rows under it (compare.txt), and its GPU
# tests' checks under it, so the path the setting selects is tested too (logs/ctest_envs.log).
env_passes() {  # settings, bench filter, row regex, test binary, gtest filter
  local setting
  for setting in $1; do
    env ${setting//,/ } build/cuda/bench/fly_bench --benchmark_min_time=0.2 "--benchmark_filter=$2" \
      2>&1 | grep -E "$3" | sed "s|^|$setting |" | cut -c1-300 >>"$out/compare.txt"
    echo "== $setting" >>"$logs/ctest_envs.log"
    env ${setting//,/ } "$4" --gtest_filter="$5" >>"$logs/ctest_envs.log" 2>&1 || status=3
  done
}

# clock_pass <label> <fly_bench filter> [VAR=value ...]: the filter's rows with CLOCK_BATCH calls a
# batch (sustained load) under those settings while nvidia-smi traces the SM clock, power and
# clock-event reasons beside them; the rows and tools/clock_trace.py's line, each prefixed by the
# label, go to clocks.txt, the trace to logs/.
clock_pass() {
  local label=$1 row=$2
  shift 2
  local trace="$logs/clocks_${label// /_}${row//[^A-Za-z0-9_]/_}.csv"
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,$smi_reasons \
    --format=csv,noheader,nounits -lms 20 >"$trace" 2>&1 &
  local smi=$!
  env "$@" FLY_BENCH_BATCH_CALLS="${CLOCK_BATCH:-400}" build/cuda/bench/fly_bench --benchmark_min_time=0.01 \
    "--benchmark_filter=$row" 2>&1 | grep -E '^(gemm|pa_decode)/' | sed "s|^|$label|" | cut -c1-300 >>"$out/clocks.txt"
  kill "$smi" 2>/dev/null
  wait "$smi" 2>/dev/null
  python3 tools/clock_trace.py "$trace" | sed "s|^|$label|" >>"$out/clocks.txt"
}

# ncu_source <prefix> <fly_bench filter> <ncu kernel selection...>: the selected kernel's stall
# samples per SASS instruction (ncu's source page) as logs/<prefix>_<row>.csv.
ncu_source() {
  local prefix=$1 row=$2; shift 2
  local rep="$logs/${prefix}_$(echo "$row" | tr -c 'A-Za-z0-9' '_')"
  timeout 150 "$ncu" $ncu_clocks "$@" --section SourceCounters --section WarpStateStats --import-source no -f -o "$rep" \
    build/cuda/bench/fly_bench --benchmark_min_time=0.01 "--benchmark_filter=$row" >>"$logs/ncu_source.log" 2>&1
  "$ncu" -i "$rep.ncu-rep" --page source --print-source sass --csv >"$rep.csv" 2>>"$logs/ncu_source.log"
}

{
  echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader
  nvcc --version | tail -1; cmake --version | head -1
} 2>&1 | tee "$logs/machine.txt"

status=0
# GEMM_FILTER / PA_FILTER (regexes over variant names) narrow the grids for a quick development run;
# unset, the whole grid is built as in CI. Tests that call the dispatcher with shapes the narrowed
# grid lacks fail with NOT_SUPPORTED (e.g. PaDecodeCuda.OneHandleEightThreadsEightStreams has d64
# threads): judge a narrowed run by the variants it built.
# A sanitizer run builds the GPU test binaries only: the PORTABLE host suites stay out.
sanitize=${SANITIZE:-0}
portable=ON
[[ $sanitize == 1 ]] && portable=OFF
cmake --preset cuda -DCMAKE_CUDA_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER= "-DFLY_PORTABLE_TESTS=$portable" \
  "-DFLY_GEMM_FILTER=${GEMM_FILTER:-.*}" "-DFLY_PA_DECODE_FILTER=${PA_FILTER:-.*}" "-DFLY_GEMM_TRIAL=${TRIAL:-0}" \
  "-DFLY_GEMM_GPU_TEST_TIMEOUT=${GEMM_TEST_TIMEOUT:-300}" \
  >"$logs/configure.log" 2>&1 || status=1
if [[ $sanitize == 1 ]]; then
  gpu_tests=(test_gemm_capi_cuda test_gemm_variants_cuda test_gemm_fp8_accuracy_cuda test_pa_decode_cuda test_copy_cuda
             test_layout_cuda test_tma_cuda test_origin_cuda)
  ((status == 0)) && { cmake --build --preset cuda -j "$jobs" --target "${gpu_tests[@]}" >"$logs/build.log" 2>&1 || status=2; }
  san=/usr/local/cuda/bin/compute-sanitizer
  # Every GPU test binary, whole, with the sweeps' small cases (FLY_TEST_SANITIZER_SWEEP); the
  # tests whose point is size stay in the plain run (minutes of instrumented traffic).
  export FLY_TEST_SANITIZER_SWEEP=1
  big='-*OperandBeyondTwoGiB:*CacheBeyondFourGiB'
  if ((status == 0)); then
    # SANITIZE_DEADLINE (seconds from the script's start) keeps the whole run inside one device call:
    # a run that would start past it is listed as not run, and each run gets at most the time left.
    for tool in ${SANITIZE_TOOLS:-memcheck synccheck racecheck}; do
      for bin in "${gpu_tests[@]}"; do
        path=$(find build/cuda/test -name "$bin" -type f | head -1)
        echo "== $tool: $bin" >>"$out/sanitize.txt"
        t0=$(date +%s)
        limit=$(seconds_until "${SANITIZE_DEADLINE:-560}" "${SANITIZE_TIMEOUT:-240}")
        if ((limit < 10)); then echo "   not run: past SANITIZE_DEADLINE" >>"$out/sanitize.txt"; status=3; continue; fi
        timeout "$limit" "$san" --tool "$tool" --error-exitcode 7 "$path" "--gtest_filter=$big" \
          >"$logs/san_${tool}_$bin.log" 2>&1 || status=3
        # (not the accuracy test's "normwise error" lines: they filled the 8 and hid its summary)
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)|FAILED|rror" "$logs/san_${tool}_$bin.log" |
          grep -v "normwise error" | head -8 >>"$out/sanitize.txt"
        echo "   ($(( $(date +%s) - t0 )) s)" >>"$out/sanitize.txt"
      done
    done
  fi
  echo "== sanitize status $status" >>"$out/sanitize.txt"
  cat "$out/sanitize.txt"
  tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$logs"
  exit $status
fi
if ((status == 0)); then
  cmake --build --preset cuda -j "$jobs" >"$logs/build.log" 2>&1 || status=2
fi
if ((status == 0)); then
  if [[ ${TESTS:-.} != skip ]]; then
    ctest --preset cuda -j 8 --output-on-failure -R "${TESTS:-.}" >"$logs/ctest.log" 2>&1 || status=3
  fi
  if [[ $tune != 1 && $tune_pa != 1 ]]; then  # a tuning run benches once, with the new table (fits one 10-minute call)
    build/cuda/bench/fly_bench --benchmark_min_time=0.2 "--benchmark_filter=${BENCH_FILTER:-.}" --benchmark_out="$out/bench.json" \
      --benchmark_out_format=json >"$out/bench.txt" 2>&1 || status=4
    if [[ ${SDPA:-1} == 1 ]]; then  # SDPA=0 leaves the peer out of a development run
      python3 bench/peers.py >"$out/peers.txt" 2>&1  # never fails the check: it prints what it skipped
      mkdir -p "$out/report" && python3 bench/report.py --bench "$out/bench.json" --peers "$out/peers.txt" \
        --out "$out/report/performance.md" --plots "$out/report/performance" \
        --title "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F), commit ${FLY_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}" \
        >"$logs/report.log" 2>&1 && tar -C "$out" -czf "$out/report.tar.gz" report && rm -rf "$out/report"
    fi
    for v in ${PA_COMPARE:-}; do
      kv=bf16; [[ $v == *_fp8_* ]] && kv=e4m3fn; [[ $v == *_f16_* ]] && continue
      FLY_PA_DECODE_VARIANT=$v build/cuda/bench/fly_bench --benchmark_min_time=0.2 "--benchmark_filter=^pa_decode/$kv/" \
        2>&1 | grep -E "^pa_decode/" | sed "s|^|$v |" | cut -c1-300 >>"$out/compare.txt"
    done
    for v in ${GEMM_COMPARE:-}; do  # the fly rows of the variant's own types, that variant forced
      case $v in *_e4m3fn_bf16_*) type=e4m3_bf16 ;; *_f32_f32_*) type=f32_f32 ;; *) continue ;; esac
      rows="^gemm/$type/.*/fly/"
      if [[ -n ${GEMM_COMPARE_ROWS:-} ]]; then  # a narrower filter of fly rows (every row: ~70 s a variant)
        [[ $GEMM_COMPARE_ROWS == *"$type"* ]] || continue  # rows of another type than the variant's
        rows=$GEMM_COMPARE_ROWS
      fi
      FLY_GEMM_VARIANT=$v build/cuda/bench/fly_bench --benchmark_min_time=0.2 "--benchmark_filter=$rows" \
        2>&1 | grep -E "^gemm/" | sed "s|^|$v |" | cut -c1-300 >>"$out/compare.txt"
    done
    for row in ${CLOCK_ROWS:-}; do clock_pass "" "$row"; done
    for v in ${CLOCK_VARIANTS:-}; do  # the fly rows of CLOCK_ROWS again, this variant forced
      for row in ${CLOCK_ROWS:-}; do [[ $row == */fly/* ]] && clock_pass "$v " "$row" "FLY_GEMM_VARIANT=$v"; done
    done
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    for row in ${NCU:-}; do  # the first call's kernels of each row (NCU_COUNT of them)
      echo "== ncu $row" >>"$out/ncu.txt"
      timeout 120 "$ncu" $ncu_clocks -k regex:pa_decode_sm90a --launch-count "${NCU_COUNT:-2}" --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats \
        build/cuda/bench/fly_bench --benchmark_min_time=0.01 "--benchmark_filter=$row" >>"$out/ncu.txt" 2>&1
      if [[ ${NCU_SOURCE:-0} == 1 ]]; then  # stall samples per SASS line of the row's first decode kernel
        ncu_source ncu_source "$row" -k regex:'pa_decode_sm90a.*[^e]$' --launch-count 1
      fi
    done
    for layout in ${PA_LAYOUTS:-}; do
      FLY_BENCH_PA_LAYOUT=$layout build/cuda/bench/fly_bench --benchmark_min_time=0.2 "--benchmark_filter=^pa_decode/" \
        2>&1 | grep -E "^pa_decode/" | sed "s|^|$layout |" | cut -c1-300 >>"$out/compare.txt"
    done
    env_passes "${PA_ENVS:-}" '^pa_decode/' '^pa_decode/' build/cuda/test/pa_decode/test_pa_decode_cuda \
      'PaDecodeCuda.EveryVariantMatchesTheReference:PaDecodeCuda.GraphReplaySeesNewInputs'
    env_passes "${GEMM_ENVS:-}" '^gemm/' '^gemm/.*/fly' build/cuda/test/gemm/test_gemm_variants_cuda \
      'GemmVariantsCuda.EveryVariantMatchesTheHostReference:GemmVariantsCuda.InputsTheKernelBeforeWritesAreTheOnesRead'
    if [[ -n ${PA_SWEEP:-} ]]; then  # fixed cost per call against bytes: fly (bf16, fp8) and SDPA per shape
      for shape in $PA_SWEEP; do
        IFS=x read -r b ctx hq hkv ql <<<"$shape"
        for kv in bf16 fp8; do
          build/cuda/bench/fly_bench --op pa_decode --batch "$b" --ctx "$ctx" --hq "$hq" --hkv "$hkv" --q-len "$ql" \
            --kv "$kv" --benchmark_min_time=0.2 2>&1 | grep -E "^pa_decode/" | sed "s|^|sweep |" | cut -c1-300 >>"$out/compare.txt"
        done
      done
      FLY_SDPA_SHAPES="$PA_SWEEP" python3 bench/pa_decode_sdpa.py 2>&1 | sed "s|^|sweep |" >>"$out/compare.txt"
    fi
    for order in ${PA_ORDERS:-}; do
      FLY_BENCH_PA_ORDER=$order build/cuda/bench/fly_bench --benchmark_min_time=0.2 "--benchmark_filter=^pa_decode/" \
        2>&1 | grep -E "^pa_decode/" | sed "s|^|$order |" | cut -c1-300 >>"$out/compare.txt"
    done
  fi
fi
# A failed test does not stop the tuning (its summary still says so): one device call measures both.
if ((status == 0 || status == 3)) && [[ $tune == 1 ]]; then
  # TUNE_DEADLINE (seconds from the start, default 540): a variant that hangs (the library's barrier
  # waits do not trap) costs the tune, not the call's summary and logs; tune.txt keeps the shapes done.
  tune_left=$(seconds_until "${TUNE_DEADLINE:-540}")
  ((tune_left < 10)) && tune_left=10
  if timeout "$tune_left" build/cuda/bench/fly_bench --tune=src/dispatch/tuning/sm90a.tsv >"$out/tune.txt" 2>&1; then
    cp src/dispatch/tuning/sm90a.tsv "$out/sm90a.tsv"
    for setting in ${TUNE_ENVS:-}; do  # the same binary, before the rebuild below
      listing="$out/tune_${setting//[^A-Za-z0-9_]/_}.txt"
      again_left=$(seconds_until "${TUNE_DEADLINE:-540}")
      ((again_left < 10)) && { echo "not run: past TUNE_DEADLINE" >"$listing"; continue; }
      env ${setting//,/ } timeout "$again_left" build/cuda/bench/fly_bench --tune="$logs/tune_again.tsv" >"$listing" 2>&1
    done
    # FLY_TUNE_ALL's listing times every variant at every shape: the cost model is refitted from it
    # (the bench below runs with both; commit both, from a run of the whole grid only)
    sms=$(python3 -c 'import torch; print(torch.cuda.get_device_properties(0).multi_processor_count)' 2>/dev/null || echo 132)
    if [[ ${FLY_TUNE_ALL:-0} == 1 ]] &&
      python3 tools/gemm_cost_model.py "$out/tune.txt" --sms "$sms" >"$logs/gemm_model.tsv" 2>"$logs/gemm_model.err"; then
      cp "$logs/gemm_model.tsv" src/dispatch/tuning/gemm_model_sm90a.tsv && cp "$logs/gemm_model.tsv" "$out/gemm_model_sm90a.tsv"
    fi
    cmake --build --preset cuda -j "$jobs" >"$logs/rebuild.log" 2>&1 &&
      build/cuda/bench/fly_bench --benchmark_filter=gemm/ --benchmark_min_time=0.2 >"$out/bench_tuned.txt" 2>&1 ||
      status=5
  else
    status=5
  fi
fi
if ((status == 0)) && [[ $tune_pa == 1 ]]; then
  if build/cuda/bench/fly_bench --tune-pa=src/dispatch/tuning/pa_decode_sm90a.tsv >"$out/tune_pa.txt" 2>&1; then
    cp src/dispatch/tuning/pa_decode_sm90a.tsv "$out/pa_decode_sm90a.tsv"
    cmake --build --preset cuda -j "$jobs" >"$logs/rebuild_pa.log" 2>&1 &&
      build/cuda/bench/fly_bench --benchmark_filter=pa_decode/ --benchmark_min_time=0.2 >"$out/bench_tuned_pa.txt" 2>&1 ||
      status=6
  else
    status=6
  fi
fi
# NCU_GEMM="<fly_bench filter> ...": Nsight Compute on one call of each row's fly GEMM kernel (after
# any tuning, so the tuned variant): speed of light, stall reasons, memory and compute (ncu_gemm.txt).
# NCU_GEMM_SOURCE=1 adds, per row, that kernel's stall samples per SASS instruction
# (logs/ncu_gemm_source_<row>.csv, ncu's source page), as NCU_SOURCE does for the decode.
# NCU_GEMM_KERNEL (an ncu -k filter, default regex:gemm_sm90a, fly's kernels) profiles another
# kernel of those rows: regex:nvjet for cuBLASLt's in its rows (its tile, grid, cluster; the launch
# profiled is the fourth, of the first algorithm the row tries, not necessarily its fastest); a
# row written row@<filter> uses that filter for its own kernel (e.g. cuBLAS's sgemm in an f32 row).
# NCU_GEMM_SECTIONS="<ncu section> ..." adds sections to those rows' profiles, e.g.
# MemoryWorkloadAnalysis_Tables (shared-memory wavefronts and bank conflicts per instruction kind).
if [[ -x build/cuda/bench/fly_bench ]]; then
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  ncu_gemm_more=""
  for section in ${NCU_GEMM_SECTIONS:-}; do ncu_gemm_more+=" --section $section"; done
  for row in ${NCU_GEMM:-}; do
    kernel=${NCU_GEMM_KERNEL:-regex:gemm_sm90a}
    [[ $row == *@* ]] && { kernel=${row#*@}; row=${row%@*}; }  # row@<ncu -k filter>: that row's own kernel
    echo "== ncu $row ($kernel)" >>"$out/ncu_gemm.txt"
    # NCU_DEADLINE (seconds from the start, default 500): no row runs past it, so that the summary
    # and the logs still come back inside one 10-minute device call.
    left=$(seconds_until "${NCU_DEADLINE:-500}" 150)
    if ((left < 20)); then echo "   not run: past NCU_DEADLINE" >>"$out/ncu_gemm.txt"; continue; fi
    timeout "$left" "$ncu" $ncu_clocks -k "$kernel" --launch-skip 3 --launch-count 1 --section SpeedOfLight \
      --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
      --section LaunchStats $ncu_gemm_more build/cuda/bench/fly_bench --benchmark_min_time=0.01 "--benchmark_filter=$row" \
      >>"$out/ncu_gemm.txt" 2>&1
    if [[ ${NCU_GEMM_SOURCE:-0} == 1 ]]; then
      ncu_source ncu_gemm_source "$row" -k "$kernel" --launch-skip 3 --launch-count 1
    fi
  done
fi
grep -h "ptxas info.*Used" "$logs/build.log" >"$logs/ptxas.txt" 2>/dev/null
# SASS="<variant> ...": the instruction mix of each named variant's MMA loops (tools/sass_loops.py
# on cuobjdump's SASS of its object file) into logs/sass.txt; by default the default paged-decode
# cells and the large-shape GEMM cell. SASS=none skips it.
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for v in ${SASS:-pa_decode_sm90a_d128_bf16_vtok_t16w4s3pwn8 pa_decode_sm90a_d128_fp8_vtok_t16w4s4tman8 gemm_sm90a_e4m3fn_bf16_128x256x128_w8x1_tmaws_s4}; do
  [[ $v == none ]] && break
  obj=$(find build/cuda -name "$v.cu.o" 2>/dev/null | head -1)
  { echo "== $v"; [[ -n $obj ]] && "$cuobjdump" -sass "$obj" >"$logs/$v.sass" && python3 tools/sass_loops.py "$logs/$v.sass" --top 12;
    rm -f "$logs/$v.sass"; } >>"$logs/sass.txt" 2>&1
done

# ptxas serialising the wgmmas of a cell (C7514/C7515, "Potential Performance Loss") is a build
# that compiles but should not land: none since 85bbb22 (docs/gemm.md, "fp32 accumulation").
serialised=$(grep -c "C751[0-9]" "$logs/build.log" 2>/dev/null)
((status == 0 && ${serialised:-0} > 0)) && status=7
{
  echo "== fly h200 check (status $status: 0 ok, 1 configure, 2 build, 3 tests, 4 bench, 5 tune, 6 tune-pa, 7 serialised wgmma)"
  grep -E "tests passed|tests failed|Skipped|Failed|\*\*\*" "$logs/ctest.log" 2>/dev/null | head -20
  grep -E "^== |PASSED|FAILED" "$logs/ctest_envs.log" 2>/dev/null | head -20
  echo "== GPU tests"
  grep -E "Cuda\.|Sm90\.|registers" "$logs/ctest.log" 2>/dev/null | grep -vE "^ +Start" | head -40
  echo "== register report (sm_90a origin kernels)"
  build/cuda/tools/regreport/fly_regreport --budgets test/register_budgets.txt \
    --sm90 build/cuda/test/origin/origin_sm90_cubin.cubin \
    --ptxas-log build/cuda/test/origin/origin_sm90_cubin.ptxas.log 2>&1 | head -12
  echo "== fly_bench"
  grep -E "^BM_|^gemm/|^fly_bench" "$out/bench.txt" 2>/dev/null | cut -c1-230
  echo "== pa_decode: fly (GPU time per call in a replayed graph of 20) beside SDPA (bf16 peer for both kv types)"
  grep -E "^pa_decode/" "$out/bench.txt" 2>/dev/null | cut -c1-260
  grep -E "^sdpa |^peer |^# torch" "$out/peers.txt" 2>/dev/null | cut -c1-260
  [[ -f $out/compare.txt ]] && { echo "== pa_decode rows per forced variant (PA_COMPARE), layout (PA_LAYOUTS) or block order (PA_ORDERS)"; cat "$out/compare.txt"; }
  if [[ $tune == 1 ]]; then
    echo "== fly_bench --tune (table: $out/sm90a.tsv)"
    cut -c1-200 "$out/tune.txt" 2>/dev/null | tail -80
    echo "== fly_bench GEMM rows with the new table"
    grep -E "^gemm/" "$out/bench_tuned.txt" 2>/dev/null | cut -c1-230
  fi
  if [[ $tune_pa == 1 ]]; then
    echo "== fly_bench --tune-pa (table: $out/pa_decode_sm90a.tsv)"
    cut -c1-200 "$out/tune_pa.txt" 2>/dev/null | tail -60
    echo "== fly_bench paged-decode rows with the new table"
    grep -E "^pa_decode/" "$out/bench_tuned_pa.txt" 2>/dev/null | cut -c1-260
  fi
  echo "== wgmma serialised by ptxas (C7514/C7515 warnings; want 0): $serialised"
  echo "== registers (ptxas)"
  sort -u "$logs/ptxas.txt" | head -20
} | tee "$out/summary.txt"
tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$logs"
exit $status
