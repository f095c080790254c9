#!/usr/bin/env bash
# Run suites of make check on the current artifacts while a CPU and I/O stressor holds every
# core, several times, and record what happened in .ci/times/ (the suites must hold on a
# loaded machine: time limits, lock races and udev races show there first).
# stress-suites.sh [-n ROUNDS] SUITE...   (default: 3 rounds)
# Needs the artifacts of a make check (build/out) and stress-ng (make deps installs it).
# Writes .ci/times/<date>-stress-<commit>.log: per round, the stressor, each suite's summary
# and the round's total (with the seconds of each scenario and blktests test when they ran);
# exit status 1 if any round had a failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rounds=3 suites=()
while [ $# -gt 0 ]; do
	case "$1" in
	-n) rounds=$2; shift 2 ;;
	-*) die "unknown option '$1' (usage: stress-suites.sh [-n ROUNDS] SUITE...)" ;;
	*) suites+=("$1"); shift ;;
	esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS is a positive number, not '$rounds'"
[ ${#suites[@]} -gt 0 ] || die "name the suites (usage: stress-suites.sh [-n ROUNDS] SUITE...)"
command -v stress-ng >/dev/null || die "stress-ng is not installed: run 'make deps'"
cores=$(nproc)
commit=$(git -C "$top" rev-parse --short HEAD)
rec="$top/.ci/times/$(date -u +%F)-stress-$commit.log"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gh-stress.XXXXXX")
spid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() { [ -z "$spid" ] || kill "$spid" 2>/dev/null || true; rm -rf "$scratch"; }
trap cleanup EXIT
stress=(stress-ng --cpu "$cores" --io 1 --hdd 1 --hdd-bytes 256m --temp-path "$scratch")
failed=0
{
	echo "# make check suites under load at commit $commit, $cores cores, $rounds rounds"
	echo "# stressor: ${stress[*]}"
	echo "# suites: ${suites[*]}"
} > "$rec"
for r in $(seq 1 "$rounds"); do
	"${stress[@]}" --timeout 0 >/dev/null 2>&1 &
	spid=$!
	t0=$SECONDS
	out=$(bash "$top/scripts/check.sh" --no-build "${suites[@]}" 2>&1) || failed=1
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	spid=
	{
		echo "## round $r: $((SECONDS - t0)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
		printf '%s\n' "$out" | grep -E '^[a-z0-9-]+: +[0-9]+ passed|^    not ok|passed, [0-9]+ failed'
		# each scenario's seconds, against its guest's time limit (selftests/lib/host.sh)
		if [[ " ${suites[*]} " == *" scenarios "* ]] && [ -r "$top/build/results/scenarios.tap" ]; then
			echo "# scenario seconds: $(sed -n 's/^    # \([a-z0-9-]*\): \([0-9?]*\) s$/\1 \2/p' \
				"$top/build/results/scenarios.tap" | paste -sd, - | sed 's/,/, /g')"
		fi
		# and each blktests test's, against the blktests guest's limit (BLKTESTS_TIMEOUT)
		if [[ " ${suites[*]} " == *" blktests "* ]] && [ -r "$top/build/results/blktests.tap" ]; then
			sed -n 's/^# \(blktests seconds: .*\)$/# \1/p' "$top/build/results/blktests.tap"
		fi
	} >> "$rec"
	info "round $r of $rounds: $(printf '%s\n' "$out" | tail -n 1)"
done
echo "${rec#"$top"/}"
exit "$failed"
