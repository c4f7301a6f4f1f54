#!/bin/sh
# SPDX-License-Identifier: MIT
# quiet.sh TARGET COMMAND...: run a build command, keeping its command line
# and output to itself unless it fails (make V=1 shows every line instead).
set -u
target=$1
shift
log=$(mktemp) || exit 1
"$@" >"$log" 2>&1
status=$?
if [ "$status" -eq 0 ]; then
	cat "$log" >&2	# warnings are errors here, but say what a tool said
	rm -f "$log"
	exit 0
fi
printf 'failed to build %s:\n' "$target" >&2
printf '%s ' "$@" >&2
printf '\n' >&2
cat "$log" >&2
rm -f "$log"
exit "$status"
