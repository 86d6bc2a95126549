#!/usr/bin/env bash
# Installs what is missing (Debian 12, as root), builds tilec and runs every
# test; the last line printed is "N passed, N failed" and the exit status is
# non-zero when anything failed.
#
#   bash scripts/test.sh
#
# Steps, each counted in the summary:
#   1. unit tests: ctest on build/ (Catch2 executables from unittests/)
#   2. lit tests:  `check-tilec` on build/ (test/**; REQUIRES: nvcc ones run
#                  only where nvcc is installed)
#   3. fuzzers:    build-fuzz/ (clang, ASan+UBSan), FUZZ_SECONDS of libFuzzer
#                  each on the .tile front end and on the IR parser, seeded
#                  from examples/ and test/, and on the whole compiler
#                  (tilec_pipeline_fuzz), seeded from examples/
#   4. nvcc:       when NVCC_CHECKS=1 and nvcc exists, every example compiled
#                  with --emit=cuda and then with nvcc -c
#   5. hipcc:      when HIPCC_CHECKS=1, every example compiled for gfx90a and
#                  gfx940 (--emit=hip) and then with hipcc -c -Werror for
#                  that architecture; hipcc comes with the test packages
#                  (Debian's hipcc, ROCm 5.2), and the step is skipped,
#                  saying why, only where it could not be installed
# Environment: BUILD_DIR, JOBS, FUZZ_SECONDS (default 60 per fuzzer, 0 skips
# them), FUZZ_DIR, NVCC_CHECKS, NVCC_ARCH, HIPCC_CHECKS.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_DIR=${FUZZ_DIR:-$TILEC_ROOT/build-fuzz}
NVCC_CHECKS=${NVCC_CHECKS:-1}
HIPCC_CHECKS=${HIPCC_CHECKS:-1}
RESULTS=$BUILD_DIR/test-results

# A run that stops early (e.g. a build error) still ends with the summary.
finished=0
on_exit() {
  local rc=$?
  if [ "$finished" -eq 0 ]; then
    echo "error: the test run stopped early (exit status $rc)" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
}
trap on_exit EXIT

# junit_case FILE NAME [FAILURE]: writes a one-test JUnit report.
junit_case() {
  local failure=""
  [ $# -ge 3 ] && failure="<failure message=\"$3\"/>"
  printf '<testsuite name="%s"><testcase name="%s">%s</testcase></testsuite>\n' \
    "$2" "$2" "$failure" >"$1"
}

run_unit_tests() {
  log "unit tests (ctest)"
  ctest --test-dir "$BUILD_DIR" -j "$JOBS" --timeout 300 --output-on-failure \
    --output-junit "$RESULTS/ctest.xml" || true
  [ -f "$RESULTS/ctest.xml" ] || junit_case "$RESULTS/ctest.xml" ctest "ctest did not run"
}

run_lit_tests() {
  log "lit tests (check-tilec)"
  LIT_OPTS="--xunit-xml-output=$RESULTS/lit.xml" \
    timeout 1800 cmake --build "$BUILD_DIR" --target check-tilec || true
  [ -f "$RESULTS/lit.xml" ] || junit_case "$RESULTS/lit.xml" lit "lit did not run"
}

# seed_corpus DIR SUFFIX SOURCE...: every *SUFFIX file under the SOURCE
# directories, flattened into DIR.
seed_corpus() {
  local seeds=$1 suffix=$2 file
  shift 2
  rm -rf "$seeds" && mkdir -p "$seeds"
  while IFS= read -r file; do
    cp "$file" "$seeds/$(echo "${file#"$TILEC_ROOT"/}" | tr / _)"
  done < <(find "$@" -name "*$suffix" -type f)
}

# run_fuzzer NAME SUFFIX DICT TIMEOUT [SOURCE...]: FUZZ_SECONDS of libFuzzer
# seeded from the SOURCE directories (default: examples/ and test/); an
# input running over TIMEOUT seconds counts as a hang. One test result.
# Leaks are not checked: the compiler runs once per process, and Sema's
# interpreter keeps closures and their environments in shared_ptr cycles.
run_fuzzer() {
  local name=$1 suffix=$2 dict=$3 timeout=$4 dir=$FUZZ_DIR/$1
  shift 4
  [ $# -gt 0 ] || set -- "$TILEC_ROOT/examples" "$TILEC_ROOT/test"
  seed_corpus "$dir/seeds" "$suffix" "$@"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  log "fuzzer $name: running for ${FUZZ_SECONDS}s (log: $dir/fuzz.log)"
  if ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 timeout $((FUZZ_SECONDS + 300)) \
    "$FUZZ_DIR/fuzz/$name" "$dir/corpus" "$dir/seeds" \
    -dict="$TILEC_ROOT/fuzz/$dict" -max_total_time="$FUZZ_SECONDS" \
    -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts/" >"$dir/fuzz.log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units)' "$dir/fuzz.log" || true
    junit_case "$RESULTS/$name.xml" "$name"
    return
  fi
  tail -n 60 "$dir/fuzz.log"
  echo "fuzzer $name: failing inputs are in $dir/artifacts/ (reproduce: $FUZZ_DIR/fuzz/$name FILE)"
  junit_case "$RESULTS/$name.xml" "$name" "crash, hang or sanitizer report"
}

run_fuzzers() {
  if [ "$FUZZ_SECONDS" -eq 0 ]; then
    log "fuzzers skipped (FUZZ_SECONDS=0)"
    return
  fi
  log "fuzzers: building in $FUZZ_DIR"
  CC=clang-14 CXX=clang++-14 cmake -S "$TILEC_ROOT" -B "$FUZZ_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-O1 -fno-omit-frame-pointer" \
    -DTILEC_ENABLE_FUZZER=ON -DTILEC_ENABLE_TESTS=OFF >/dev/null
  if ! cmake --build "$FUZZ_DIR" --target tilec_fuzz tilec_ir_fuzz \
    tilec_pipeline_fuzz -j "$JOBS"; then
    junit_case "$RESULTS/fuzz-build.xml" fuzz-build "build failed"
    return
  fi
  run_fuzzer tilec_fuzz .tile tile.dict 5
  run_fuzzer tilec_ir_fuzz .tir tir.dict 5
  # Seeded with the examples only: its mutator edits working programs. An
  # input compiles three times (sm_80, sm_90, gfx90a) through every pass;
  # under the sanitizers dequant_gemm.tile alone takes about 9 s (1.8 s in
  # Release).
  run_fuzzer tilec_pipeline_fuzz .tile tile.dict 30 "$TILEC_ROOT/examples"
}

# Whether example $1 can compile for target $2: OCP fp8 gemms need fp8
# tensor cores (sm_89 and later), and tilec rejects them elsewhere with an
# error that says so (AMD targets compile gemm_fp8 with the FNUZ dtype:
# hip_defines).
example_compiles_for() {
  case "$1-$2" in
  gemm_fp8-sm_80) return 1 ;;
  # FlashMLA's Hopper kernel: wgmma, setmaxnreg, 225 KiB of shared memory
  # (flashmla_decode_pipelined.tile is the portable form).
  flashmla_decode-sm_80 | flashmla_decode-gfx*) return 1 ;;
  esac
}

# check_example NVCC EXAMPLE TARGET NVCC_FLAGS...: tilec --emit=cuda for
# TARGET, then nvcc -c with the given architecture flags; one test result.
check_example() {
  local nvcc=$1 example=$2 target=$3 name dir
  shift 3
  example_compiles_for "$(basename "$example" .tile)" "$target" || return 0
  name=$(basename "$example" .tile)-$target
  dir=$BUILD_DIR/nvcc-checks/$target
  mkdir -p "$dir"
  if "$TILEC" "$example" --target="$target" -o "$dir/$name.cu" &&
    "$nvcc" -std=c++17 "$@" -Werror all-warnings -I "$TILEC_ROOT/runtime" \
      -c "$dir/$name.cu" -o "$dir/$name.o"; then
    junit_case "$RESULTS/nvcc-$name.xml" "nvcc-$name"
  else
    echo "nvcc check failed: $example ($target)"
    junit_case "$RESULTS/nvcc-$name.xml" "nvcc-$name" "tilec or nvcc failed"
  fi
}

# Compiles every example to CUDA for sm_80 and sm_90 and the CUDA with nvcc
# (sm_80, and sm_90a as the H100/H200 run it), one test each.
run_nvcc_checks() {
  local nvcc example
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  if [ "$NVCC_CHECKS" != 1 ] || [ ! -x "$nvcc" ]; then
    log "nvcc checks skipped (NVCC_CHECKS=$NVCC_CHECKS, nvcc: $nvcc)"
    return
  fi
  log "nvcc checks ($nvcc: sm_80, sm_90a)"
  for example in "$TILEC_ROOT"/examples/*.tile; do
    check_example "$nvcc" "$example" sm_80 -arch=sm_80
    check_example "$nvcc" "$example" sm_90 -gencode arch=compute_90a,code=sm_90a
  done
}

# Examples whose default tiles are sized for NVIDIA's shared memory (over
# the 64 KiB of LDS an AMD block has) are compiled for AMD with these -D;
# gemm_fp8 takes AMD's FNUZ fp8 (MFMA on gfx940, vector ALUs on gfx90a).
hip_defines() {
  case $1 in
  gemm_fp8) echo "-D dtype=float8_e4m3fnuz -D block_K=64" ;;
  flash_attention | gqa_attention | varlen_attention) echo "-D block_M=64" ;;
  flash_attention_schedule) echo "-D block_M=64 -D block_N=64 -D num_stages=1 -D threads=128" ;;
  flash_attention_bwd) echo "-D block_M=32 -D block_N=32 -D num_stages=1" ;;
  flash_decoding) echo "-D num_stages=1" ;;
  flashmla_decode_pipelined) echo "-D block_H=16 -D num_stages=1" ;;
  esac
}

# check_hip_example HIPCC EXAMPLE TARGET: tilec --emit=hip for TARGET, then
# hipcc -c -Werror for that architecture; one test result.
check_hip_example() {
  local hipcc=$1 example=$2 target=$3 name dir
  example_compiles_for "$(basename "$example" .tile)" "$target" || return 0
  name=$(basename "$example" .tile)-$target
  dir=$BUILD_DIR/hipcc-checks/$target
  mkdir -p "$dir"
  # shellcheck disable=SC2046 # hip_defines prints separate words
  if "$TILEC" "$example" --target="$target" \
    $(hip_defines "$(basename "$example" .tile)") -o "$dir/$name.hip" &&
    "$hipcc" -std=c++17 --offload-arch="$target" -Wall -Werror \
      -I "$TILEC_ROOT/runtime" -c "$dir/$name.hip" -o "$dir/$name.o"; then
    junit_case "$RESULTS/hipcc-$name.xml" "hipcc-$name"
  else
    echo "hipcc check failed: $example ($target)"
    junit_case "$RESULTS/hipcc-$name.xml" "hipcc-$name" "tilec or hipcc failed"
  fi
}

# Compiles every example to HIP for gfx90a and gfx940 and the HIP with
# hipcc for the same architecture, one test each. Compile-only: no AMD GPU
# runs the code.
run_hipcc_checks() {
  local hipcc example target
  hipcc=$(command -v hipcc || echo /opt/rocm/bin/hipcc)
  if [ "$HIPCC_CHECKS" != 1 ] || [ ! -x "$hipcc" ]; then
    log "hipcc checks skipped (HIPCC_CHECKS=$HIPCC_CHECKS, hipcc: $hipcc;" \
      "install Debian's hipcc package to run them)"
    return
  fi
  log "hipcc checks ($hipcc: gfx90a, gfx940)"
  for example in "$TILEC_ROOT"/examples/*.tile; do
    for target in gfx90a gfx940; do
      check_hip_example "$hipcc" "$example" "$target"
    done
  done
}

install_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
install_optional_packages "${HIP_PACKAGES[@]}"
configure_and_build
rm -rf "$RESULTS" && mkdir -p "$RESULTS"
run_unit_tests
run_lit_tests
run_fuzzers
run_nvcc_checks
run_hipcc_checks

finished=1
python3 "$TILEC_ROOT/scripts/junit-summary.py" "$RESULTS"/*.xml
