#!/usr/bin/env bash
# Fuzzing in CI (docs/fuzzing.md): builds every cargo-fuzz target once, then runs each
# from its committed seed corpus for a bounded time, failing on the first crash, panic,
# hang or memory blow-up. A new crash fails the build; its input is kept under
# fuzz/artifacts/<target>/ and the log names it.
#
#   tools/fuzz-ci.sh                 # every target, FUZZ_SECONDS (default 10) each
#   FUZZ_SECONDS=60 tools/fuzz-ci.sh jwt grpc_web
#
# Needs the nightly toolchain (`rustup toolchain install nightly`); installs cargo-fuzz
# into ~/.cargo/bin when it is missing. The fuzz crate has its own workspace and target
# directory (fuzz/target), so CARGO_TARGET_DIR is ignored here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${FUZZ_SECONDS:-10}
# A single run longer than this is a hang (libFuzzer's -timeout, seconds).
hang_secs=${FUZZ_HANG_SECONDS:-10}
# Where the fuzz build goes: fuzz/target by default; CI keeps it between runs on one
# machine (FUZZ_TARGET_DIR), as it keeps the image build's, so only changed crates build.
target_dir=${FUZZ_TARGET_DIR:-$root/fuzz/target}
unset CARGO_TARGET_DIR

step() { printf '\n==== fuzz: %s (%s)\n' "$*" "$(date +%H:%M:%S)"; }

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "the nightly toolchain is missing: rustup toolchain install nightly" >&2
  exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  step "installing cargo-fuzz into ~/.cargo/bin"
  cargo install cargo-fuzz --locked
fi

# The CI build trades speed of execution for speed of building (docs/fuzzing.md): no
# AddressSanitizer (the code under test forbids `unsafe`; a panic, an overflow, a stack
# overflow, a hang or running out of memory is still caught), overflow checks and debug
# assertions on (-a), the release profile at opt-level 1, 16 codegen units. Local long runs
# use the full build: `cargo +nightly fuzz build -O`.
step "building every target (cargo +nightly fuzz build -O -a -s none --codegen-units 16, opt-level 1)"
start=$(date +%s)
CARGO_PROFILE_RELEASE_OPT_LEVEL=1 cargo +nightly fuzz build -O -a -s none --codegen-units 16 \
  --target-dir "$target_dir"
echo "built in $(( $(date +%s) - start )) s"
bin=$target_dir/x86_64-unknown-linux-gnu/release

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

# One libFuzzer process at a time, in this process (no -jobs: that forks and logs to
# fuzz-N.log files). New inputs go to a scratch directory: the committed corpus stays
# as committed.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=()
for target in "${targets[@]}"; do
  step "$target: ${seconds} s from fuzz/corpus/$target"
  mkdir -p "$scratch/$target" "fuzz/artifacts/$target"
  # The binary itself: `cargo fuzz run` would build again with its own default flags.
  if ! "$bin/$target" "$scratch/$target" "fuzz/corpus/$target" \
      -max_total_time="$seconds" -timeout="$hang_secs" -rss_limit_mb=2048 \
      -artifact_prefix="fuzz/artifacts/$target/" -print_final_stats=1 \
      2>"$scratch/$target.log"; then
    failed+=("$target")
    tail -n 60 "$scratch/$target.log"
    echo "FAILED: $target; the input is under $root/fuzz/artifacts/$target/ (reproduce:" \
         "$bin/$target fuzz/artifacts/$target/<file>, or cargo +nightly fuzz run -O $target <file>)"
  else
    grep -E '^stat::number_of_executed_units|^stat::average_exec_per_sec|^Done' "$scratch/$target.log" || true
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: ${#targets[@]} targets, no crash"
