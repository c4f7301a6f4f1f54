#!/bin/sh
# SPDX-License-Identifier: MIT
# debmirror.sh: print the Debian mirror this machine's apt uses (the URI of
# its first "debian" source, deb822 or one-line format), for the scripts that
# fetch Debian 11 and 12 packages and roots; exit 1 with a message when there
# is none.  DEBIAN_MIRROR names another.
set -eu
if [ -n "${DEBIAN_MIRROR:-}" ]; then
	echo "$DEBIAN_MIRROR"
	exit 0
fi
uri=
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f")
	[ -n "$uri" ] && break
done
[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $0 ~ /\/debian\/? / {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' \
	/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n1)
if [ -z "$uri" ]; then
	echo "debmirror.sh: no Debian mirror in /etc/apt/sources.list{,.d} (set DEBIAN_MIRROR)" >&2
	exit 1
fi
echo "${uri%/}"
