#!/usr/bin/env bash
# Runs every test of the project and ends with one summary; the Go race run,
# the plain Go tests and vitest run at the same time, the rest in order.
# Called by `make test` after the build steps; each step's output is kept in
# test-artifacts/logs/<step>.log and shown in full when it fails.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=test-artifacts/logs
mkdir -p "$logs"
rm -f "$logs"/*.result
export GOFLAGS=${GOFLAGS:-}
results=()
failed=0

# step NAME CMD...: runs one step, keeps its log, records PASS/FAIL and time.
step() {
  local name=$1; shift
  local start=$SECONDS
  printf '== %s: %s\n' "$name" "$*"
  if "$@" >"$logs/$name.log" 2>&1; then
    printf 'PASS  %-14s %4ds\n' "$name" $((SECONDS - start)) >"$logs/$name.result"
  else
    printf 'FAIL  %-14s %4ds  (log: %s)\n' "$name" $((SECONDS - start)) "$logs/$name.log" >"$logs/$name.result"
  fi
}

# report NAME...: shows each finished step's tail (all of it when it
# failed) and adds its line to the summary.
report() {
  local name
  for name in "$@"; do
    local r; r=$(cat "$logs/$name.result")
    results+=("$r")
    printf -- '-- %s\n' "$r"
    if [[ $r == PASS* ]]; then tail -n 3 "$logs/$name.log"; else failed=1; tail -n 80 "$logs/$name.log"; fi
  done
}

# The packages with the most goroutines run under the race detector instead
# of plainly: one run each, not two. SQLite (modernc.org/sqlite, C
# translated to Go) is built without race instrumentation, as C reached
# through cgo always is: every access our code makes is still checked;
# instrumented, SQLite took 1.7 times the CPU on a sample of engine tests.
race=(./backend/engine/... ./backend/relay/... ./backend/relayclient/... ./app/...)
racegc='-gcflags=modernc.org/...=-race=false'
plain=$(go list ./... | grep -v -e '^weald/backend/engine' -e '^weald/backend/relay' -e '^weald/app')
# Tests that run smaller under -race (backend/internal/racetest) run here
# once more at full size, without it.
full_size='^(TestCompactionDropsAndJoinerReadsFromSnapshot|TestRemovalResumesAfterCrashAtEachStep)$'

# The Go tests' temporary folders go on tmpfs when there is room
# (.ci/with-tmpfs says why).
go_test() {
  .ci/with-tmpfs go test -count=1 -timeout 20m $plain &&
    .ci/with-tmpfs go test -count=1 -timeout 20m -run "$full_size" ./backend/engine
}
go_race() {
  .ci/with-tmpfs go test -count=1 -timeout 20m -race "$racegc" "${race[@]}"
}

step lint         make --no-print-directory lint
report lint
# The race run is mostly one test binary at a time (backend/engine): the
# plain Go tests and vitest use the other core meanwhile.
step go-race      go_race &
step go-test      go_test &
step vitest       npm --prefix frontend run --silent test &
wait
report go-test go-race vitest
# Two stories at a time (npm run e2e): each starts its own relay, apps and
# browser on ports the system picks, and spends much of its time waiting
# on them. The relay is built once here instead of once per story.
playwright() {
  go build -o build/bin/weald-relay ./backend/cmd/weald-relay &&
    env WEALD_E2E_BIN="$PWD/build/bin/weald-e2e" WEALD_RELAY_BIN="$PWD/build/bin/weald-relay" \
      npm --prefix frontend run --silent e2e
}
step playwright   playwright
report playwright
step desktop      .ci/desktop-smoke.sh build/bin/weald-desktop
report desktop
step desktop-ready frontend/e2e/desktop-ready.sh build/bin/weald-desktop
report desktop-ready
step package      .ci/package-test.sh
report package

echo
echo "== summary"
printf '%s\n' "${results[@]}"
if [ $failed -ne 0 ]; then echo "make test: FAILED"; exit 1; fi
echo "make test: all passed (screenshots in test-artifacts/)"
