#!/bin/sh
# SPDX-License-Identifier: MIT
# make fuzz: run each libFuzzer target for a set time on its corpus, then fold
# what it found into tests/fuzz/corpus/<target>, minimized (-merge), so the
# corpus stays small and make check replays it.
# Usage: fuzz.sh BUILD SECONDS TARGET...
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=$1 seconds=$2
shift 2
printf '%-9s %10s %8s %s\n' target inputs seconds result
for t in "$@"; do
	corpus=$top/tests/fuzz/corpus/$t
	work=$B/fuzz/work-$t
	rm -rf "$work" "$work.min"
	mkdir -p "$corpus" "$work" "$work.min"
	case $t in elf | patch) max=65536 ;; *) max=4096 ;; esac
	set +e
	"$B/fuzz/$t" -max_total_time="$seconds" -max_len=$max -print_final_stats=1 \
		-artifact_prefix="$B/fuzz/crash-$t-" "$work" "$corpus" >"$B/fuzz/$t.log" 2>&1
	rc=$?
	set -e
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz/$t.log")
	"$B/fuzz/$t" -merge=1 -max_len=$max "$work.min" "$corpus" "$work" >/dev/null 2>&1
	rm -f "$corpus"/*
	cp "$work.min"/* "$corpus"/ 2>/dev/null || true
	if [ $rc -eq 0 ]; then result="no crash, no hang"; else result="FAILED: see $B/fuzz/$t.log"; fi
	printf '%-9s %10s %8s %s (corpus %s files)\n' "$t" "${runs:-?}" "$seconds" "$result" \
		"$(ls "$corpus" | wc -l)"
	[ $rc -eq 0 ] || exit 1
done
