#!/usr/bin/env bash
# Commit the record of a timed run of the README's test command, which README.md cites and
# scripts/check-docs.py compares it with.
# record-ci-time.sh KIND COMMIT LOG START END
#   KIND      cold (a fresh clone, an empty GH_CACHE) or warm (the same clone and cache, again)
#   COMMIT    the commit that ran (of this repository; it names the record)
#   LOG       what .ci/run (or make check) printed
#   START END its wall-clock start and end, seconds since the epoch (date +%s)
# Writes .ci/times/<date>-<KIND>-<commit>.log: a header with the wall time, then LOG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 5 ] || die "usage: record-ci-time.sh cold|warm COMMIT LOG START END"
kind=$1 rev=$2 log=$3 t0=$4 t1=$5
case "$kind" in cold | warm) ;; *) die "KIND is cold or warm, not '$kind'" ;; esac
[ -r "$log" ] || die "no log $log"
[[ "$t0" =~ ^[0-9]+$ && "$t1" =~ ^[0-9]+$ && $t1 -ge $t0 ]] || die "START and END are epoch seconds, END not before START"
commit=$(git -C "$top" rev-parse --short --verify --quiet "$rev^{commit}") || die "no commit '$rev' in $top"
secs=$((t1 - t0))
rec="$top/.ci/times/$(date -u -d "@$t0" +%F)-$kind-$commit.log"
mkdir -p "$top/.ci/times"
{
	echo "# $kind run of the README's test command at commit $commit, $(nproc) cores"
	echo "# started $(date -u -d "@$t0" '+%F %T') UTC"
	echo "# wall time: $secs s ($((secs / 60)) min $((secs % 60)) s)"
	cat "$log"
} > "$rec"
echo "${rec#"$top"/}"
