#!/usr/bin/env bash
# Coverage-guided fuzzing of clatter's readers with AFL++ (Debian afl++), ASan + UBSan
# (fuzz/README.md). Builds $FUZZ_BUILD (build-fuzz) with afl-clang-fast, runs each harness from its committed
# corpus (fuzz/corpus/NAME) for SECONDS, and fails if any found a crash or a hang.
#
# usage: scripts/fuzz_afl.sh [--seconds S | --cpu-seconds C] [--parallel] [--record | --record-only]
#                             [HARNESS ...]
#   HARNESS        scene, problem, run (default: all three)
#   --seconds      run time of each harness (default 60)
#   --cpu-seconds  instead, stop each harness when it (fuzzer and target) has used C CPU seconds
#   --parallel     run the harnesses at once (one core each) instead of one after another
#   --record       afterwards, for each harness without findings, minimise its queue into
#                  fuzz/corpus/NAME (afl-cmin) and write its counts to fuzz/results.md and
#                  fuzz/results.csv (a long run by hand; CI does not)
#   --record-only  only that, from the last run's results
# The build and the results are in $FUZZ_BUILD (default build-fuzz): two campaigns at once need
# two folders.
# Findings stay in $build/afl/NAME/default/{crashes,hangs}; replay one with
# build-asan/fuzz/fuzz_NAME FILE (an ordinary sanitizer build prints the whole report).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
cpu_limit=""
parallel=0
record=0
run=1
build="${FUZZ_BUILD:-build-fuzz}"
harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --cpu-seconds) cpu_limit="$2"; seconds=$(( $2 * 4 )); shift 2 ;;
    --parallel) parallel=1; shift ;;
    --record) record=1; shift ;;
    --record-only) record=1; run=0; shift ;;
    scene|problem|run) harnesses+=("$1"); shift ;;
    *) echo "scripts/fuzz_afl.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ ${#harnesses[@]} -gt 0 ] || harnesses=(scene problem run)
command -v afl-clang-fast >/dev/null || { echo "scripts/fuzz_afl.sh: afl-clang-fast not found (bash scripts/setup.sh installs afl++)" >&2; exit 2; }

if [ "$run" = 1 ]; then
  CC=afl-clang-fast cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLATTER_SANITIZE=ON \
    -DCLATTER_FUZZ=ON >/dev/null
  targets=()
  for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
  AFL_QUIET=1 cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}" >/dev/null
fi

# An allocation the sanitizer cannot make returns NULL as malloc would (the readers must cope);
# anything larger than the readers should ever ask of these small inputs is refused the same way.
export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=2048
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
export AFL_SKIP_CRASHES=1 AFL_NO_WARN_INSTABILITY=1 AFL_IGNORE_SEED_PROBLEMS=1 TMPDIR="${TMPDIR:-/tmp}"

fuzz_one() { # NAME: runs afl-fuzz, its CPU seconds (fuzzer and harness) in $build/afl/NAME/cpu
  local h="$1" out="$build/afl/$1"
  rm -rf "$out"
  mkdir -p "$out"
  /usr/bin/python3 fuzz/cpu_of.py "$out/cpu" ${cpu_limit:+--limit "$cpu_limit"} -- afl-fuzz -i "fuzz/corpus/$h" -o "$out" -m none -t 10000 \
    -V "$seconds" -- "$build/fuzz/fuzz_$h" >"$out/afl.log" 2>&1
}

pids=()
for h in "${harnesses[@]}"; do
  [ "$run" = 1 ] || break
  if [ "$parallel" = 1 ]; then fuzz_one "$h" & pids+=($!); else fuzz_one "$h" || true; fi
done
for p in "${pids[@]}"; do wait "$p" || true; done

stat_of() { sed -n "s/^$2 *: *//p" "$build/afl/$1/default/fuzzer_stats" 2>/dev/null | head -1; }
failed=0
rows=()
clean=()
for h in "${harnesses[@]}"; do
  if [ ! -f "$build/afl/$h/default/fuzzer_stats" ]; then
    echo "fuzz $h: afl-fuzz did not run:" >&2
    tail -20 "$build/afl/$h/afl.log" >&2
    failed=1
    continue
  fi
  crashes=$(stat_of "$h" saved_crashes)
  # AFL saves an input as a hang when one execution passed the timeout, which a loaded machine
  # (two cores, several fuzzers and a build) also causes: each is run again alone, and only one
  # that passes the timeout again counts (one that fails alone is a crash)
  hangs=0
  slow=0
  for f in "$build/afl/$h/default/hangs"/id*; do
    [ -f "$f" ] || continue
    rc=0
    timeout 10 "$build/fuzz/fuzz_$h" "$f" >/dev/null 2>&1 || rc=$?
    if [ "$rc" = 0 ]; then slow=$((slow + 1)); elif [ "$rc" = 124 ]; then hangs=$((hangs + 1)); else crashes=$((crashes + 1)); fi
  done
  execs=$(stat_of "$h" execs_done)
  corpus=$(stat_of "$h" corpus_count)
  cover=$(stat_of "$h" bitmap_cvg)
  wall=$(stat_of "$h" run_time)
  timeout_ms=$(stat_of "$h" exec_timeout)
  cpu=$(cat "$build/afl/$h/cpu" 2>/dev/null || echo "?")
  echo "fuzz $h: ${wall} s, CPU ${cpu} s, ${execs} executions, ${corpus} in the queue, ${crashes} crashes, ${hangs} hangs (${slow} more were slow only under load), edges ${cover}"
  if [ "$crashes" != 0 ] || [ "$hangs" != 0 ]; then
    echo "fuzz $h: findings in $build/afl/$h/default/crashes and hangs" >&2
    failed=1
  else
    rows+=("$h,$wall,$cpu,$timeout_ms,$execs,$corpus,$crashes,$hangs,$slow,$cover")
    clean+=("$h")
  fi
done

if [ "$record" = 1 ] && [ ${#clean[@]} -gt 0 ]; then
  host=$(uname -n)
  for h in "${clean[@]}"; do
    rm -rf "$build/afl/$h/cmin"
    AFL_QUIET=1 afl-cmin -i "$build/afl/$h/default/queue" -o "$build/afl/$h/cmin" -m none -t 5000 -- \
      "$build/fuzz/fuzz_$h" >/dev/null 2>&1
    rm -rf "fuzz/corpus/$h"
    mkdir -p "fuzz/corpus/$h"
    i=0
    for f in "$build/afl/$h/cmin"/*; do cp "$f" "fuzz/corpus/$h/$(printf '%04d' $i)"; i=$((i + 1)); done
  done
  for r in "${rows[@]}"; do
    h=${r%%,*}
    echo "$r,$(ls "fuzz/corpus/$h" | wc -l),$(cat "fuzz/corpus/$h"/* | wc -c)"
  done >$build/afl/rows.csv
  # the rows of harnesses not run this time are kept
  /usr/bin/python3 - "$host" "$build/afl/rows.csv" <<'EOF'
import csv, os, sys
fields = 'harness,seconds,cpu_s,timeout_ms,executions,queue,crashes,hangs,slow_under_load,edge_coverage,corpus_kept,corpus_bytes'.split(',')
old = list(csv.DictReader(open('fuzz/results.csv'))) if os.path.exists('fuzz/results.csv') else []
new = [dict(zip(fields, line.strip().split(','))) for line in open(sys.argv[2]) if line.strip()]
order = ['scene', 'problem', 'run']
rows = {r['harness']: r for r in old}
rows.update({r['harness']: r for r in new})
rows = [rows[h] for h in order if h in rows]
with open('fuzz/results.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=fields, lineterminator='\n')
    w.writeheader()
    w.writerows(rows)
with open('fuzz/results.md', 'w') as f:
    f.write('# Fuzzing results\n\n')
    f.write('`scripts/fuzz_afl.sh --record` on %s (2 cores, shared by the campaigns that ran at once): '
            'AFL++ (afl-clang-fast), ASan + UBSan; CPU is the fuzzer\'s and its harness processes\'; '
            'regenerated by the script (fuzz/README.md).\n\n' % sys.argv[1])
    f.write('| harness | run [s] | CPU [s] | timeout [ms] | executions | queue | crashes | hangs | slow only under load | edge coverage | corpus kept | corpus bytes |\n')
    f.write('|---|---|---|---|---|---|---|---|---|---|---|---|\n')
    for r in rows:
        f.write('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' % (
            r['harness'], r['seconds'], r['cpu_s'], r.get('timeout_ms', ''), r['executions'], r['queue'],
            r['crashes'], r['hangs'], r.get('slow_under_load', ''), r['edge_coverage'], r['corpus_kept'],
            r['corpus_bytes']))
    f.write('\nAFL saves an input as a hang when one execution passes its timeout; each is run again alone '
            'with a 10 s limit, and counts as a hang only if it passes that too. "Slow only under load": '
            'the others (a loaded machine: several campaigns and a build on two cores).\n')
EOF
  echo "fuzz: fuzz/results.md, fuzz/results.csv and fuzz/corpus/ rewritten"
fi
exit "$failed"
