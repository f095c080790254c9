#!/bin/sh
# Smoke test: every disk the host attached is there and can be read and written.
# shellcheck source=SCRIPTDIR/lib/gh.sh
. /lib/gh/gh.sh
for s in $(gh_param serials | tr ',' ' '); do
	d=$(gh_disk "$s") || { t_fail "disk $s present"; continue; }
	t_ok "disk $s present as $d"
done
gh_done
