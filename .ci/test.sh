#!/usr/bin/env bash
# Runs every test of the project in order and ends with one summary.
# Called by `make test` after the build steps; each step's output is kept in
# test-artifacts/logs/<step>.log and shown in full when it fails.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=test-artifacts/logs
mkdir -p "$logs"
export GOFLAGS=${GOFLAGS:-}
results=()
failed=0

step() {
  local name=$1; shift
  local start=$SECONDS
  printf '== %s: %s\n' "$name" "$*"
  if "$@" >"$logs/$name.log" 2>&1; then
    results+=("$(printf 'PASS  %-14s %4ds' "$name" $((SECONDS - start)))")
    tail -n 3 "$logs/$name.log"
  else
    results+=("$(printf 'FAIL  %-14s %4ds  (log: %s)' "$name" $((SECONDS - start)) "$logs/$name.log")")
    failed=1
    tail -n 80 "$logs/$name.log"
  fi
}

# The packages with the most goroutines run under the race detector instead
# of plainly: one run each, not two.
race=(./backend/engine/... ./backend/relay/... ./backend/relayclient/... ./app/...)
plain=$(go list ./... | grep -v -e '^weald/backend/engine' -e '^weald/backend/relay' -e '^weald/app')

step lint         make --no-print-directory lint
step go-test      go test -count=1 -timeout 20m $plain
step go-race      go test -count=1 -timeout 20m -race "${race[@]}"
step vitest       npm --prefix frontend run --silent test
step playwright   env WEALD_E2E_BIN="$PWD/build/bin/weald-e2e" npm --prefix frontend run --silent e2e
step desktop      .ci/desktop-smoke.sh build/bin/weald-desktop
step desktop-ready frontend/e2e/desktop-ready.sh build/bin/weald-desktop
step package      .ci/package-test.sh

echo
echo "== summary"
printf '%s\n' "${results[@]}"
if [ $failed -ne 0 ]; then echo "make test: FAILED"; exit 1; fi
echo "make test: all passed (screenshots in test-artifacts/)"
