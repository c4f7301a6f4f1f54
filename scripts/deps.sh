#!/bin/sh
# Install the Debian packages that building and testing cudaload need.
# Idempotent: installs only what is missing. Needs root (or nothing to do).
set -eu

packages="make gcc musl-tools musl-dev libcriterion-dev libelf-dev pkg-config
patchelf elfutils binutils strace file"

missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
