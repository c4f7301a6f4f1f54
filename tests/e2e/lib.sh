# SPDX-License-Identifier: MIT
# Shared helpers for the end-to-end scripts (sourced).  Counts results and
# prints the closing line "N passed, N failed, N skipped".

pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); printf 'ok   %s\n' "$1"; }
skip() { skip=$((skip + 1)); printf 'SKIP %s: %s\n' "$1" "$2"; }
bad() {
	fail=$((fail + 1))
	printf 'FAIL %s\n' "$1"
	[ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/     | /'
}

# has NAME TEXT LINE: TEXT contains LINE as a whole line
has() {
	if printf '%s\n' "$2" | grep -Fqx -- "$3"; then ok "$1"; else bad "$1: no line '$3'" "$2"; fi
}
# contains NAME TEXT PART: TEXT contains PART somewhere
contains() {
	if printf '%s\n' "$2" | grep -Fq -- "$3"; then ok "$1"; else bad "$1: no '$3'" "$2"; fi
}
lacks() {
	if printf '%s\n' "$2" | grep -Fq -- "$3"; then bad "$1: unexpected '$3'" "$2"; else ok "$1"; fi
}
# status NAME WANT GOT OUTPUT
status() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got $3, want $2" "${4:-}"; fi
}

finish() {
	printf '%d passed, %d failed, %d skipped\n' "$pass" "$fail" "$skip"
	[ "$fail" -eq 0 ]
}
