#!/usr/bin/env bash
# Runs README's test command as a newcomer does, on fresh clones of this repository's HEAD (or of
# --ref REV): git clone, npm ci, npm test; optionally beside a CPU hog (one busy loop per core).
# Prints each run's time and failing tests, and a summary line per run; exits 1 when any failed.
#
#   scripts/test-fresh-clones.sh                 # three runs, each on its own fresh clone
#   scripts/test-fresh-clones.sh --runs 1 --hog  # one run beside a busy loop on every core
#   scripts/test-fresh-clones.sh --runs 3 --hog-last
#   scripts/test-fresh-clones.sh --runs 1 --ref HEAD~20   # an earlier commit, for a before figure
set -uo pipefail

runs=3
hog=none
keep=false
ref=HEAD
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --hog) hog=all; shift ;;
    --hog-last) hog=last; shift ;;
    --keep) keep=true; shift ;;
    --ref) ref="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

repo="$(cd "$(dirname "$0")/.." && pwd)"
head="$(git -C "$repo" rev-parse --short "$ref")" || { echo "unknown revision: $ref" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/fresh-clones-XXXXXX")"
summary="$work/summary.txt"
hogs=()

stop_hogs() {
  for pid in "${hogs[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null; done
  hogs=()
}
trap stop_hogs EXIT

start_hogs() {
  for _ in $(seq "$(nproc)"); do
    node -e 'for (;;) {}' &
    hogs+=("$!")
  done
}

failed=0
for run in $(seq "$runs"); do
  clone="$work/run-$run"
  with_hog=false
  if [ "$hog" = all ] || { [ "$hog" = last ] && [ "$run" = "$runs" ]; }; then with_hog=true; fi
  echo "== run $run of $runs on a fresh clone of $head$($with_hog && echo ', beside a CPU hog on every core')"
  git clone -q "$repo" "$clone" && git -C "$clone" checkout -q "$head" || {
    echo "could not clone $head into $clone"; failed=1; continue;
  }
  (cd "$clone" && npm ci --no-audit --no-fund >"$work/run-$run.install.log" 2>&1) || {
    echo "npm ci failed: $work/run-$run.install.log"; failed=1; continue;
  }
  $with_hog && start_hogs
  started=$(date +%s)
  # NOTE: a cache of Jest's own per run, as cold as a newcomer's.
  (cd "$clone" && npm test -- --cacheDirectory="$work/run-$run.jest-cache" \
    --json --outputFile="$work/run-$run.json" >"$work/run-$run.log" 2>&1)
  code=$?
  seconds=$(( $(date +%s) - started ))
  stop_hogs
  result=$(node -e '
    const r = require(process.argv[1]);
    const failing = r.testResults.flatMap((s) => s.assertionResults
      .filter((t) => t.status === "failed").map((t) => `${s.name.replace(process.argv[2], "")}: ${t.fullName}`));
    const broken = r.testResults.filter((s) => s.status === "failed" && s.assertionResults.every((t) => t.status !== "failed"))
      .map((s) => `${s.name.replace(process.argv[2], "")}: ${(s.message || "").split("\n").find((l) => l.trim()) || "failed to run"}`);
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed of ${r.numTotalTests} tests in ${r.numTotalTestSuites} suites`);
    for (const line of [...failing, ...broken]) console.log(`  FAIL ${line}`);
  ' "$work/run-$run.json" "$clone/" 2>/dev/null || echo "no results: see $work/run-$run.log")
  echo "$result"
  echo "run $run: exit $code, ${seconds} s$($with_hog && echo ', hog'): $(echo "$result" | head -n 1)" >>"$summary"
  [ "$code" = 0 ] || failed=1
  $keep || rm -rf "$clone" "$work/run-$run.jest-cache"
done

echo "== summary ($head; logs in $work)"
cat "$summary"
exit "$failed"
