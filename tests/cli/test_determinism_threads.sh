#!/usr/bin/env bash
# Determinism does not depend on thread counts (README "Determinism"): the same scene gives the
# same final state hash with 1 and 2 OpenMP threads and with OpenBLAS at 1 and 2 threads (its
# count comes from OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS). The scenes reach every path
# that calls BLAS or splits work between threads: Lemke's dense factorizations (the 10-box stack
# on the polyhedral cone: differed from step 27 with 2 BLAS threads before each call was pinned
# to one, base/algebra.h), the joints' dense solve (chain6), the granular pile's parallel
# sweeps, and CHOLMOD's supernodal factorization (the suspension under the ReLCP Newton solver).
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
papers="$CLATTER_SOURCE_DIR/scenes/papers"
run_hash() { # name omp blas args...
  local name=$1 omp=$2 blas=$3; shift 3
  OMP_NUM_THREADS=$omp OPENBLAS_NUM_THREADS=$blas "$CLATTER_BIN" run "$@" --quiet -o "$name-$omp-$blas.h5" \
    >/dev/null 2>&1 || { echo "  $name: run failed with OMP_NUM_THREADS=$omp OPENBLAS_NUM_THREADS=$blas"; return 1; }
  json_field "$name-$omp-$blas.h5" state_hash
}
same_hash() { # name args...
  local name=$1; shift
  local ref h ok=0
  ref=$(run_hash "$name" 1 1 "$@") || return 1
  for t in "2 1" "1 2"; do # OpenMP, then OpenBLAS, at 2 threads
    h=$(run_hash "$name" ${t% *} ${t#* } "$@") || return 1
    if [ "$h" != "$ref" ]; then echo "  $name: OMP/BLAS threads $t give $h, 1 1 gives $ref"; ok=1; fi
  done
  echo "  $name: $ref"
  return $ok
}
expect "box stack, 60 steps, Lemke (dense LAPACK)" same_hash stack "$CLATTER_SOURCE_DIR/scenes/examples/box_stack10.json" \
  --set method.friction_cone=polyhedral --max-steps 60
expect "chain6 (joint rows, dense)" same_hash chain6 "$papers/chain6.json"
expect "pile, 30 steps (parallel sweeps)" same_hash pile "$papers/pile.json" --max-steps 30
expect "suspension, ReLCP Newton (CHOLMOD)" same_hash suspension "$papers/suspension.json" --max-steps 1 \
  --set method.solver=newton
finish
