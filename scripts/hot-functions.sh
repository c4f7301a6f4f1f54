#!/bin/sh
# SPDX-License-Identifier: MIT
# hot-functions.sh CUDALOAD [VAR=VALUE...] PROGRAM [ARGS...]: the functions
# a start of PROGRAM runs in CUDALOAD (a build with its symbols:
# `make -B build/cudaload LOADER_STRIP=`), one name a line, for the list in
# loader/hot.ld.  PROGRAM must have CUDALOAD as its interpreter (or be run
# by it as a command).  Each function's entry gets a uprobe for one start;
# names that share an address are all printed, the part before a compiler
# suffix (.isra.0) only.  Needs root and tracefs.  The start runs twice,
# a second apart, before it is traced, so that a prepared decision is there
# to be used (common/stores/prepared.h: a decision is not written while an input
# is racy).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 CUDALOAD [VAR=VALUE...] PROGRAM [ARGS...]" >&2; exit 2; }
bin=$(readlink -f "$1")
shift
T=/sys/kernel/tracing
[ -w "$T/uprobe_events" ] || T=/sys/kernel/debug/tracing
[ -w "$T/uprobe_events" ] || { echo "$0: needs root and tracefs (uprobe_events)" >&2; exit 1; }
nm "$bin" | grep -q ' main$' || { echo "$0: $bin has no symbols (LOADER_STRIP=)" >&2; exit 1; }
tmp=$(mktemp -d)
group=cudaload_hot_$$
cleanup() {
	echo 0 >"$T/events/$group/enable" 2>/dev/null || true
	grep "^p:$group/" "$T/uprobe_events" 2>/dev/null | sed 's/^p:/-:/; s/ .*//' |
		while read -r ev; do echo "$ev" >>"$T/uprobe_events"; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# address -> every function there (FUNC symbols only: loader/hot.ld puts
# read-only data in the text, and a probe there would write into it)
readelf -sW "$bin" | awk '$4 == "FUNC" && $2 !~ /^0+$/ { print $2, $8 }' | sort >"$tmp/syms"
awk '{ print $1 }' "$tmp/syms" | uniq | awk '{ print "f" NR, $1 }' >"$tmp/probes"
while read -r name addr; do
	echo "p:$group/$name $bin:0x$addr" >>"$T/uprobe_events"
done <"$tmp/probes"
env "$@" >/dev/null 2>&1 || true
sleep 1.2
env "$@" >/dev/null 2>&1 || true
echo >"$T/trace"
echo 1 >"$T/events/$group/enable"
env "$@" >/dev/null 2>&1 || true
echo 0 >"$T/events/$group/enable"
awk '$5 ~ /^f[0-9]+:$/ { sub(":", "", $5); print $5 }' "$T/trace" | awk '!seen[$0]++' >"$tmp/hit"
awk 'NR == FNR { addr[$1] = $2; next } { print addr[$1] }' "$tmp/probes" "$tmp/hit" >"$tmp/addrs"
awk 'NR == FNR { want[$1] = 1; next } want[$1] { sub(/\..*/, "", $2); print $2 }' \
	"$tmp/addrs" "$tmp/syms" | sort -u
