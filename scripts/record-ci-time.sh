#!/usr/bin/env bash
# Commit the record of a timed run of the README's test command, which README.md cites and
# scripts/check-docs.py compares it with.
# record-ci-time.sh KIND CHECKOUT LOG START END
#   KIND      cold (a fresh clone, an empty GH_CACHE) or warm (the same clone and cache, again)
#   CHECKOUT  the clone that ran it (its commit names the record)
#   LOG       what .ci/run (or make check) printed
#   START END its wall-clock start and end, seconds since the epoch (date +%s)
# Writes .ci/times/<date>-<KIND>-<commit>.log: a header with the wall time, then LOG.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 5 ] || die "usage: record-ci-time.sh cold|warm CHECKOUT LOG START END"
kind=$1 checkout=$2 log=$3 t0=$4 t1=$5
case "$kind" in cold | warm) ;; *) die "KIND is cold or warm, not '$kind'" ;; esac
[ -r "$log" ] || die "no log $log"
[[ "$t0" =~ ^[0-9]+$ && "$t1" =~ ^[0-9]+$ && $t1 -ge $t0 ]] || die "START and END are epoch seconds, END not before START"
commit=$(git -C "$checkout" rev-parse --short HEAD) || die "$checkout is not a git checkout"
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
