# SPDX-License-Identifier: MIT
# Running another architecture's programs here (sourced by run.sh): qemu-user
# through binfmt_misc, which the test sets up when it runs as root and the
# kernel allows it.  foreign_ready ARCH CUDALOAD CC: 0 when ARCH programs run;
# otherwise 1 with the reason in foreign_why.

foreign_ready() {
	fa=$1 fcl=$2 fcc=$3
	foreign_why=
	command -v "$fcc" >/dev/null 2>&1 || { foreign_why="no $fcc (scripts/deps.sh installs it)"; return 1; }
	[ -x "$fcl" ] || { foreign_why="$fcl not built"; return 1; }
	fdir=$(mktemp -d)
	printf 'int main(void) { return 7; }\n' >"$fdir/t.c"
	if ! "$fcc" -o "$fdir/t" "$fdir/t.c" 2>"$fdir/err"; then
		foreign_why="$fcc cannot build: $(head -n1 "$fdir/err")"
		rm -rf "$fdir"
		return 1
	fi
	"$fdir/t" 2>/dev/null
	if [ $? -ne 7 ]; then
		binfmt_register "$fa"
		"$fdir/t" 2>/dev/null
		[ $? -eq 7 ] || foreign_why="cannot run $fa programs: ${foreign_why:-binfmt_misc has no working qemu-$fa}"
	fi
	rm -rf "$fdir"
	[ -z "$foreign_why" ]
}

binfmt_register() {
	bm=/proc/sys/fs/binfmt_misc
	conf=/usr/lib/binfmt.d/qemu-$1.conf
	if [ "$(id -u)" -ne 0 ]; then
		foreign_why="not root, cannot set up binfmt_misc"
		return
	fi
	if [ ! -e "$bm/register" ]; then
		mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null ||
			{ foreign_why="cannot mount binfmt_misc"; return; }
	fi
	[ -e "$bm/qemu-$1" ] && return
	[ -f "$conf" ] || { foreign_why="no $conf (qemu-user-static)"; return; }
	grep -v '^#' "$conf" >"$bm/register" 2>/dev/null ||
		foreign_why="the kernel refused the qemu-$1 binfmt entry"
}
