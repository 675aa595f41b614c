#!/usr/bin/env bash
# Runs every test of the project and ends with one summary. Two lanes run
# side by side, each step after the one before it in its lane:
#   lane 1: go-race, then playwright
#   lane 2: lint, vitest, go-test, desktop, desktop-ready, package
# The race run is the longest step; its tests run side by side
# (t.Parallel), beside lane 2's steps. In a fresh clone both cores are busy
# from the first step to the last (vmstat: 0 to 2 % idle), so a step's
# wall time is set by the CPU of all of them, not by this layout. The package
# test (apt, lintian, the installed app) comes last, beside Playwright, not
# beside the race run: three lanes, or the package test beside the race
# run, were up to 13 % faster but slowed the app's race tests threefold
# (the 45 s waits that failed in three of six such runs were a name race
# in the app, fixed since; the layout was not measured again after it). Called by `make test`
# after the build steps; each step's output is kept in
# test-artifacts/logs/<step>.log and shown in full when it fails; the
# summary gives each step's wall time and the CPU time of the processes it
# waited for.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=test-artifacts/logs
mkdir -p "$logs"
rm -f "$logs"/*.result
export GOFLAGS=${GOFLAGS:-}
results=()
failed=0

# seconds OUT: the CPU seconds (user + system) of the waited-for children
# in the output of bash's `times` (its second line).
seconds() {
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%d", t + 0.5 }' "$1"
}

# step NAME CMD...: runs one step, keeps its log, records PASS/FAIL, its
# wall time and its CPU time.
step() {
  local name=$1; shift
  local start=$SECONDS verdict=PASS
  printf '== %s: %s\n' "$name" "$*"
  ("$@" >"$logs/$name.log" 2>&1; rc=$?; times >"$logs/$name.times"; exit $rc) || verdict=FAIL
  local line
  line=$(printf '%s  %-14s %4ds wall %4ds CPU' $verdict "$name" $((SECONDS - start)) "$(seconds "$logs/$name.times")")
  [ $verdict = PASS ] || line="$line  (log: $logs/$name.log)"
  echo "$line" >"$logs/$name.result"
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
# of plainly: one run each, not two. Every package is built with -race.
# Building SQLite and the cryptography without it (-gcflags=...=-race=false)
# saved about a third of the step's CPU, but it made the detector report
# races that are none: two tests encoding the same type first with
# encoding/json were reported as racing inside encoding/json (a
# two-goroutine json.Marshal of the engine's meta: 3 runs in 60 with
# SQLite built without -race, 5 in 60 with crypto/..., none in 40 with
# every package built with it). The likely cause: a generic function such
# as atomic.Pointer[T].Load is compiled once per shape, the linker keeps
# one copy, and a copy from a package built without -race hides its
# atomics, and with them the synchronisation of sync.Map, from the detector.
race=(./backend/engine/... ./backend/relay/... ./backend/relayclient/... ./app/...)
plain=$(go list ./... | grep -v -e '^weald/backend/engine' -e '^weald/backend/relay' -e '^weald/app')
# Tests that run smaller under -race (backend/internal/racetest) run here
# once more at full size, without it.
full_size='^(TestCompactionDropsAndJoinerReadsFromSnapshot|TestCompactionOnPostgres|TestRemovalResumesAfterCrashAtEachStep)$'

# The Go tests' temporary folders go on tmpfs when there is room
# (.ci/with-tmpfs says why).
go_test() {
  .ci/with-tmpfs go test -count=1 -timeout 20m $plain &&
    .ci/with-tmpfs go test -count=1 -timeout 20m -run "$full_size" ./backend/engine
}
go_race() {
  .ci/with-tmpfs go test -count=1 -timeout 20m -race "${race[@]}"
}

# Two stories at a time (npm run e2e): each starts its own relay, apps and
# browser on ports the system picks, and spends much of its time waiting
# on them. Their folders (homes, relay data, browser profiles) go on tmpfs
# too: on the disk, their fsyncs slowed the package test beside them.
playwright() {
  .ci/with-tmpfs env WEALD_E2E_BIN="$PWD/build/bin/weald-e2e" WEALD_RELAY_BIN="$PWD/build/bin/weald-relay" \
    npm --prefix frontend run --silent e2e
}

# The relay and the CLI, which the stories and the desktop checks start,
# are built once here: a later `go build` of an up-to-date binary leaves
# the file alone, so no step rewrites one another step is running.
go build -o build/bin/weald-relay ./backend/cmd/weald-relay &&
  go build -o build/bin/weald ./backend/cmd/weald || exit 1

all_start=$SECONDS
(
  step go-race       go_race
  step playwright    playwright
) &
(
  step lint          make --no-print-directory lint
  step vitest        npm --prefix frontend run --silent test
  step go-test       go_test
  step desktop       .ci/desktop-smoke.sh build/bin/weald-desktop
  step desktop-ready frontend/e2e/desktop-ready.sh build/bin/weald-desktop
  step package       .ci/package-test.sh
) &
wait
report lint go-race vitest go-test playwright desktop desktop-ready package
times >"$logs/all.times"

echo
echo "== summary"
printf '%s\n' "${results[@]}"
printf 'all steps: %ds wall, %ds CPU\n' $((SECONDS - all_start)) "$(seconds "$logs/all.times")"
if [ $failed -ne 0 ]; then
  # What failed, last, where a reader of only the output's end sees it:
  # Go's failed tests and panics, node's failed stories with their error.
  for r in "${results[@]}"; do
    [[ $r == FAIL* ]] || continue
    name=$(awk '{print $2}' <<<"$r")
    echo "-- what failed in $name:"
    grep -E -A 14 '^not ok|^\s+not ok' "$logs/$name.log" | grep -v -E '^\s+(duration_ms|type|failureType|code):' | head -n 40
    grep -E -B 2 -A 8 -- '--- FAIL|^panic:|DATA RACE' "$logs/$name.log" | head -n 40
  done
  # A failed story's apps and relay: the end of each one's log (the
  # fixture in frontend/e2e/harness.mjs keeps them).
  for story in $(grep -ho "location: '[^']*\.test\.mjs" "$logs/playwright.log" 2>/dev/null | sed 's#.*/##; s#\.mjs$##' | sort -u); do
    for f in "$logs"/e2e/"$story"-*.log; do
      [ -e "$f" ] || continue
      echo "-- the end of ${f#"$logs"/}:"
      tail -n 12 "$f"
    done
  done
  echo "make test: FAILED"; exit 1
fi
echo "make test: all passed (screenshots in test-artifacts/)"
