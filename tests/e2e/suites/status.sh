#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload --status, the whole machine, before and after an upgrade.
#
#   empty  nothing installed (no GPU, no package, no record, no program): a
#          short status, exit 0.
#   orin   (CUDALOAD_ROOT) AGX Orin on JetPack 5, L4T r35.4.1, with
#          cuda-compat 12.4, which JetPack 5 refuses; verified.  The OTA moves
#          L4T to r36.3.0 (the driver from tegra/ to nvidia/): the package
#          becomes usable and the program takes it, the verdicts made on r35
#          are stale (exit 1) until cudaload --verify runs again (exit 0).
#   dc     (a real chroot, as tests/e2e/suites/hold.sh: ldconfig'd cache, shipped pin
#          links) A100 on 535.216.03 with cuda-compat-13-0 (580.95.05, no
#          note): compat, verified, exit 0.  The driver moves to 580.65.06:
#          the package is refused, its verdict stale, the plain program pinned
#          to the system driver, the DT_RPATH program not held (exit 1).  Then
#          a program that lost its patch, one that is gone, the pin directory
#          removed.  --root DIR from outside sees what the chroot sees, and
#          without the record (an image patched by patch-image.sh) walks the
#          program directories for the patched programs.
# Each state asserts the text, the JSON, the textfile of --prometheus and
# --textfile, and the exit status; each program's entry is compared with
# `cudaload --explain --json` for it, and with what the program loads when
# it runs.  Needs python3 (JSON); the chroot fixture needs root.
# Usage: status.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$here/../lib/lib.sh"
echo "== end-to-end, cudaload --status"

command -v python3 >/dev/null 2>&1 ||
	{ skip "status suite" "no python3 to read the JSON (scripts/deps.sh installs it)"; finish; exit; }
W=$B/e2e-status
rm -rf "$W"
mkdir -p "$W/libs" "$W/tf"
L=$W/libs
CC=${CC:-cc}
: >"$W/empty.conf"
$CC -O1 -o "$L/mknote" "$here/../helpers/mknote.c" &&
	$CC -O1 -o "$L/probe" "$here/../helpers/statusprobe.c" -ldl &&
	$CC -O1 -o "$L/probe-rpath" "$here/../helpers/statusprobe.c" -ldl \
		-Wl,--disable-new-dtags,-rpath,/usr/local/cuda-13.0/compat ||
	{ bad "build the test programs"; finish; exit; }
ldso=$(readelf -l "$L/probe" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')

py3=/usr/bin/python3
[ -x "$py3" ] || py3=python3
# jq PYTHON-EXPR: evaluated with d = the JSON in $json
jq() { printf '%s' "$json" | python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
# prog PATH KEY: that program's KEY in $json
prog() { jq "[p for p in d['programs'] if p['path'] == '$1'][0]['$2']"; }

# snap CMD...: CMD --status as text ($txt, $rc), JSON ($json, $jrc) and
# metrics ($prom, $prc); CMD is how the machine runs cudaload.
snap() {
	txt=$("$@" --status 2>&1)
	rc=$?
	json=$("$@" --status --json 2>&1)
	jrc=$?
	prom=$("$@" --status --prometheus 2>&1)
	prc=$?
}
# valid NAME KIND JSON: JSON (of --KIND --json) is what share/schema/ says
valid() {
	if ! "$py3" -c 'import jsonschema' 2>/dev/null; then
		skip "$1: --$2 --json against its schema" "no python3-jsonschema (scripts/deps.sh installs it)"
		return
	fi
	out=$(printf '%s\n' "$3" | "$py3" "$here/../lib/schema.py" "$top/share/schema/$2.schema.json" 2>&1)
	status "$1: --$2 --json against its schema" "" "$out"
}
# exits NAME WANT: the three ways agree on the exit status, and JSON says it
exits() {
	status "$1: exit status" "$2" "$rc" "$txt"
	status "$1: exit status with --json" "$2" "$jrc"
	status "$1: exit status with --prometheus" "$2" "$prc"
	status "$1: JSON exit" "$2" "$(jq "d['exit']")" "$json"
	valid "$1" status "$json"
	has "$1: metric cudaload_status_exit" "$prom" "cudaload_status_exit $2"
	has "$1: metric cudaload_holds" "$prom" "cudaload_holds $([ "$2" = 0 ] && echo 1 || echo 0)"
}
# counts NAME HELD NOT_HELD UNPATCHED MISSING BROKEN: JSON and metrics
counts() {
	n=$1
	shift
	for s in held not_held unpatched missing broken; do
		status "$n: $s programs (JSON)" "$1" "$(jq "d['counts']['$s']")"
		has "$n: $s programs (metric)" "$prom" "cudaload_programs{state=\"$s\"} $1"
		shift
	done
}
# prom_lint NAME: $prom by the conventions, as Prometheus' own parser reads
# it: the families cudaload(1) names, every one a gauge, info-style ones
# (labels, value 1) ending in _info, units in names; and promtool where
# installed
prom_lint() {
	if ! "$py3" -c 'import prometheus_client' 2>/dev/null; then
		skip "$1: metrics through Prometheus' parser" "no python3-prometheus-client (scripts/deps.sh installs it)"
	else
		out=$(printf '%s\n' "$prom" | "$py3" -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
want = {"cudaload_holds", "cudaload_status_exit", "cudaload_status_timestamp_seconds",
        "cudaload_host_info", "cudaload_programs", "cudaload_program_info",
        "cudaload_package_usable", "cudaload_verdict_age_seconds", "cudaload_verdict_ok",
        "cudaload_verdict_stale", "cudaload_package_verified"}
fams = list(text_string_to_metric_families(sys.stdin.read()))
got = {f.name for f in fams}
if got != want:
    print("families: extra %r, missing %r" % (sorted(got - want), sorted(want - got)))
for f in fams:
    if f.type != "gauge":
        print("%s: %s, not a gauge" % (f.name, f.type))
    if f.name.endswith("_info") and any(s.value != 1 for s in f.samples):
        print("%s: an info metric with a value other than 1" % f.name)
    if f.name.endswith(("_time", "_age")):
        print("%s: a time without its unit" % f.name)
' 2>&1)
		status "$1: metrics by the conventions (prometheus_client)" "" "$out"
	fi
	if command -v promtool >/dev/null 2>&1; then
		out=$(printf '%s\n' "$prom" | promtool check metrics 2>&1)
		status "$1: promtool check metrics" 0 "$?" "$out"
	else
		skip "$1: promtool check metrics" "promtool comes only with Debian's prometheus package, not installed"
	fi
}
# explained NAME PROGRAM EXPLAIN_JSON: --status says for PROGRAM what
# --explain says: the decision, the package, the file, the pin, the search
# list and what else names a driver.
explained() {
	valid "$1: $2" explain "$3"
	diff=$(python3 - "$json" "$3" "$2" <<'EOF'
import json, sys
s, e, path = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
p = [x for x in s["programs"] if x["path"] == path][0]
for k in ("decision", "compat_dir", "libcuda", "pin", "library_path", "pin_over"):
    if p[k] != e[k]:
        print("%s: --status %r, --explain %r" % (k, p[k], e[k]))
EOF
)
	[ -z "$diff" ] && ok "$1: --status matches --explain for $2" || bad "$1: --status and --explain differ for $2" "$diff"
}
# keys: every key of the --status JSON is in cudaload(1)
keys_documented() {
	keys=$(printf '%s' "$json" | json_keys)
	words=$(man_words "$top/man/cudaload.1")
	missing=
	for k in $keys; do printf '%s\n' "$words" | grep -qx -- "$k" || missing="$missing $k"; done
	if ! command -v mandoc >/dev/null 2>&1; then
		skip "$1: cudaload.1 documents every --status --json key" "mandoc not installed (scripts/deps.sh installs it)"
	elif [ -z "$missing" ]; then
		ok "$1: cudaload.1 documents every --status --json key"
	else
		bad "$1: cudaload.1 lacks --status --json keys:$missing"
	fi
}

# ---- empty: nothing installed ----
mkdir -p "$W/empty"
snap env -i CUDALOAD_ROOT="$W/empty" CUDALOAD_CONFIG="$W/empty.conf" "$B/cudaload"
exits "empty" 0
# (a root without a record is an image: its program directories are walked)
has "empty: says no program" "$txt" \
	"programs:     0 patched, found in /usr/bin, /usr/sbin, /usr/local, /opt (the image keeps no /var/lib/cudaload/patched)"
has "empty: last line" "$(printf '%s\n' "$txt" | tail -n1)" "status:       holds: no patched program found"
lines=$(printf '%s\n' "$txt" | wc -l)
[ "$lines" -le 10 ] && ok "empty: short ($lines lines)" || bad "empty: $lines lines" "$txt"
status "empty: JSON holds" True "$(jq "d['holds']")"
status "empty: JSON packages" "[]" "$(jq "d['packages']")"
status "empty: JSON store" none "$(jq "d['verdicts']['store']")"
counts "empty" 0 0 0 0 0
prom_lint "empty"
env -i CUDALOAD_ROOT="$W/empty" CUDALOAD_CONFIG="$W/empty.conf" "$B/cudaload" --status --textfile "$W/tf" >/dev/null
status "empty: --textfile exit" 0 "$?"
has "empty: --textfile wrote the metrics" "$(cat "$W/tf/cudaload.prom" 2>&1)" "cudaload_holds 1"
lacks "empty: --textfile left no temporary" "$(ls -A "$W/tf")" ".cudaload.prom."
keys_documented "empty"
# the verify unit's ExecStartPost, as systemd hands it to the shell: the file
# only where the admin names a directory
post=$(sed -n "s|^ExecStartPost=-/bin/sh -c '\(.*\)'\$|\1|p" "$top/etc/cudaload-verify.service" |
	sed -e "s|@BINDIR@|$B|" -e 's/\$\$/$/g')
mkdir -p "$W/unit"
env -i CUDALOAD_ROOT="$W/empty" CUDALOAD_CONFIG="$W/empty.conf" sh -c "$post"
status "unit: no directory, no file" "" "$(ls -A "$W/unit")"
env -i CUDALOAD_ROOT="$W/empty" CUDALOAD_CONFIG="$W/empty.conf" CUDALOAD_TEXTFILE_DIR="$W/unit" sh -c "$post"
contains "unit: CUDALOAD_TEXTFILE_DIR gets the metrics" "$(cat "$W/unit/cudaload.prom" 2>&1)" "cudaload_status_exit 0"
# the timer's service, as systemd hands its ExecStart to the shell: the
# same file, refreshed; exit 1 (does not hold) is no failure of the unit
sunit=$top/etc/cudaload-status.service timer=$top/etc/cudaload-status.timer
run=$(sed -n "s|^ExecStart=/bin/sh -c '\(.*\)'\$|\1|p" "$sunit" | sed -e "s|@BINDIR@|$B|" -e 's/\$\$/$/g')
rm -rf "$W/unit" && mkdir -p "$W/unit"
out=$(env -i CUDALOAD_ROOT="$W/empty" CUDALOAD_CONFIG="$W/empty.conf" sh -c "$run" 2>&1)
status "timer's unit: no directory, exit 0" 0 "$?" "$out"
has "timer's unit: no directory, says so" "$out" \
	"cudaload: no CUDALOAD_TEXTFILE_DIR or CUDALOAD_NFD_DIR (systemctl edit cudaload-status.service): nothing written"
status "timer's unit: no directory, no file" "" "$(ls -A "$W/unit")"
env -i CUDALOAD_ROOT="$W/empty" CUDALOAD_CONFIG="$W/empty.conf" CUDALOAD_TEXTFILE_DIR="$W/unit" sh -c "$run"
status "timer's unit: exit" 0 "$?"
contains "timer's unit: CUDALOAD_TEXTFILE_DIR gets the metrics" "$(cat "$W/unit/cudaload.prom" 2>&1)" "cudaload_status_exit 0"
status "timer's unit: exit 1 is a success" "SuccessExitStatus=1" "$(grep -x 'SuccessExitStatus=1' "$sunit")"
status "timer's unit: oneshot" "Type=oneshot" "$(grep -x 'Type=oneshot' "$sunit")"
# the timer: the service of its own name (no Unit=), at boot and every 5
# minutes (docs/fleet.md's alert on the file's age allows 15), for timers.target
lacks "timer: runs the service of its name" "$(cat "$timer")" "Unit="
status "timer: every 5 minutes" "OnUnitActiveSec=5min" "$(grep -x 'OnUnitActiveSec=.*' "$timer")"
status "timer: after boot" "OnBootSec=1min" "$(grep -x 'OnBootSec=.*' "$timer")"
status "timer: wanted by timers.target" "WantedBy=timers.target" "$(grep -x 'WantedBy=.*' "$timer")"
contains "docs/fleet.md: the file-age alert fits the timer" "$(cat "$top/docs/fleet.md")" \
	"time() - cudaload_status_timestamp_seconds > 15 * 60"
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$W/units"
	for u in cudaload-verify.service cudaload-status.service cudaload-status.timer; do
		sed "s|@BINDIR@|$B|" "$top/etc/$u" >"$W/units/$u"
	done
	out=$(cd "$W/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
		./cudaload-status.timer ./cudaload-status.service ./cudaload-verify.service 2>&1)
	status "systemd-analyze verify: the units" 0 "$?" "$out"
	lacks "systemd-analyze verify: no complaint about them" "$out" "cudaload-"
else
	skip "systemd-analyze verify: the units" "no systemd-analyze (the systemd package)"
fi

# ---- the textfile, where others can write ----
# Root writes it into a directory that is often the exporter's user's: what
# stands at a temporary's name must never be opened.  The name was
# .cudaload.prom.PID: a FIFO there blocked root's run forever, a hard link
# there to a file of root's (0600) had that file truncated, filled and made
# 0644.  Each is planted at the PID the run will have (sh's, kept through
# exec); the hard link is root's own (fs.protected_hardlinks stays as it is).
E="env -i CUDALOAD_ROOT=$W/empty CUDALOAD_CONFIG=$W/empty.conf $B/cudaload"
T=$W/tf-hostile
mkdir -p "$T"
printf 'secret\n' >"$W/secret"
chmod 600 "$W/secret"
# plant fifo | plant link FILE: a FIFO, or a hard link to FILE, at the
# temporary name of the PID this run gets; then --status --textfile into $T
plant() {
	# shellcheck disable=SC2016
	timeout 20 sh -c 'if [ "$2" = fifo ]; then mkfifo "$1/.cudaload.prom.$$"; else ln "$3" "$1/.cudaload.prom.$$"; fi ||
		exit 99; exec env -i CUDALOAD_ROOT="$4" CUDALOAD_CONFIG="$5" "$6" --status --textfile "$1"' \
		sh "$T" "$1" "${2:-}" "$W/empty" "$W/empty.conf" "$B/cudaload" >/dev/null
}
plant fifo
status "textfile: a FIFO at the old temporary's name: done, not blocked" 0 "$?"
status "textfile: the FIFO is left as it was" 1 "$(find "$T" -name '.cudaload.prom.*' -type p | wc -l)"
plant link "$W/secret"
status "textfile: a hard link there to a file of root's: done" 0 "$?"
status "textfile: the linked file of root's keeps its text" secret "$(cat "$W/secret")"
status "textfile: and its mode and links" "600 2" "$(stat -c '%a %h' "$W/secret")"
contains "textfile: the metrics are written" "$(cat "$T/cudaload.prom" 2>&1)" "cudaload_holds 1"
status "textfile: a plain file of one link, 0644" "regular file 1 644" "$(stat -c '%F %h %a' "$T/cudaload.prom")"
status "textfile: no temporary of its own left" 2 "$(find "$T" -name '.cudaload.prom.*' | wc -l)"
# a directory anyone may write to, not sticky: anyone could rename over
# the file; refused.  Sticky (as /tmp): written.  Not a directory: refused.
mkdir -p "$W/tf-open"
chmod 777 "$W/tf-open"
out=$($E --status --textfile "$W/tf-open" 2>&1 >/dev/null)
status "textfile: a directory anyone may write, not sticky: refused" 2 "$?"
contains "textfile: says why" "$out" "anyone may write there and it is not sticky"
status "textfile: nothing written there" "" "$(ls -A "$W/tf-open")"
chmod 1777 "$W/tf-open"
$E --status --textfile "$W/tf-open" >/dev/null
status "textfile: sticky: written" "0 cudaload.prom" "$? $(ls -A "$W/tf-open")"
out=$($E --status --textfile "$W/secret" 2>&1 >/dev/null)
status "textfile: not a directory: refused" 2 "$?"
contains "textfile: not a directory: says so" "$out" "$W/secret/cudaload.prom: Not a directory"
status "textfile: not a directory: the file untouched" "secret 600" "$(cat "$W/secret") $(stat -c %a "$W/secret")"
# the temporary is new, created exclusively under a random name, and
# renamed into place, as strace shows (common/base/atomicfile.h)
# shellcheck disable=SC2086
written_atomically "textfile, traced" "$W/tf" cudaload.prom $E --status --textfile "$W/tf"
contains "textfile, traced: written" "$(cat "$W/tf/cudaload.prom" 2>&1)" "cudaload_holds 1"

# ---- names that are not UTF-8 or hold control characters ----
# Program paths from the record and a package directory with bytes \xff\xfe,
# ESC, CR, BEL and a backslash: raw, they made the textfile invalid UTF-8
# (node_exporter drops the whole file), forged a line on the terminal
# (cr\rforged: held), and two names could look alike.  Every output gives
# the printable form (common/base/utf8.h), which reads back to the bytes.
N=$W/names
mkdir -p "$N/var/lib/cudaload" "$N/run" "$N/usr/local/cuda-13.0$(printf '\033[31m\377')/compat" "$W/names-bin"
printf '/usr/bin/cudaload\t%s\n' "/opt/$(printf '\377\376')/bin/app" "/opt/cr$(printf '\r')forged: held" \
	"/opt/$(printf '\033[2J\033]0;owned\007')esc" '/opt/a\x1b[2Jb' "/opt/a$(printf '\033')[2Jb" \
	'/opt/we"ird\name' >"$N/var/lib/cudaload/patched"
NE="env -i CUDALOAD_ROOT=$N CUDALOAD_CONFIG=$W/empty.conf $B/cudaload"
# names_check KIND: KIND (text, json, prom, verify) on standard input is
# UTF-8 with no control character but newlines, and gives each name's
# bytes back (Debian's python3, whose prometheus_client reads the metrics)
cat >"$W/names_check.py" <<'EOF'
import json, re, sys
kind = sys.argv[1]
raw = sys.stdin.buffer.read()
names = [b"/opt/\xff\xfe/bin/app", b"/opt/cr\rforged: held", b"/opt/\x1b[2J\x1b]0;owned\x07esc",
         b"/opt/a\\x1b[2Jb", b"/opt/a\x1b[2Jb", b'/opt/we"ird\\name']
package = b"/usr/local/cuda-13.0\x1b[31m\xff/compat"
def unprint(s):
    out, i = bytearray(), 0
    while i < len(s):
        if s.startswith("\\\\", i):
            out += b"\\"; i += 2
        elif s.startswith("\\x", i):
            out.append(int(s[i + 2:i + 4], 16)); i += 4
        else:
            assert s[i] != "\\", "a lone backslash in %r" % s
            out += s[i].encode(); i += 1
    return bytes(out)
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8: %s" % e)
bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
if bad:
    sys.exit("control characters %r" % bad)
if kind == "text":
    got = [unprint(m) for m in re.findall(r"^program:      (.*): missing$", text, re.M)]
    pkgs = [unprint(m) for m in re.findall(r"^package:      (.*)$", text, re.M)]
elif kind == "json":
    d = json.loads(text)
    got = [unprint(p["path"]) for p in d["programs"]]
    pkgs = [unprint(p["candidate"]["dir"]) for p in d["packages"]]
elif kind == "prom":
    from prometheus_client.parser import text_string_to_metric_families
    got, pkgs = [], []
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == "cudaload_program_info":
                got.append(unprint(s.labels["path"]))
            if s.name == "cudaload_package_usable":
                pkgs.append(unprint(s.labels["package"]))
else:
    got = names
    pkgs = [unprint(m) for m in re.findall(r"^(.*): not verified: ", text, re.M)]
if got != names:
    sys.exit("names: %r, want %r" % (got, names))
if pkgs != [package]:
    sys.exit("packages: %r, want %r" % (pkgs, [package]))
EOF
names_check() { "$py3" "$W/names_check.py" "$1"; }
$NE --status >"$W/names.txt"
status "names: --status text" "" "$(names_check text <"$W/names.txt" 2>&1)"
has "names: a CR forges no line" "$(cat "$W/names.txt")" 'program:      /opt/cr\x0dforged: held: missing'
has "names: a backslash is doubled: no name passes for another" "$(cat "$W/names.txt")" \
	'program:      /opt/a\\x1b[2Jb: missing'
$NE --status --json >"$W/names.json"
status "names: --status --json" "" "$(names_check json <"$W/names.json" 2>&1)"
$NE --status --prometheus >"$W/names.prom"
if "$py3" -c 'import prometheus_client' 2>/dev/null; then
	status "names: --prometheus, as Prometheus' parser reads it" "" "$(names_check prom <"$W/names.prom" 2>&1)"
	mkdir -p "$W/names-tf"
	$NE --status --textfile "$W/names-tf" >/dev/null
	status "names: --textfile, as Prometheus' parser reads it" "" \
		"$(names_check prom <"$W/names-tf/cudaload.prom" 2>&1)"
else
	skip "names: the metrics through Prometheus' parser" "no python3-prometheus-client (scripts/deps.sh installs it)"
fi
has "names: a label escaped" "$(cat "$W/names.prom")" \
	'cudaload_program_info{path="/opt/we\"ird\\\\name",state="missing",driver="none"} 1'
$NE --verify --timeout 5 >"$W/names.verify" 2>&1
valid "names" verify "$($NE --verify --json --timeout 5 2>&1)"
valid "names" explain "$($NE --explain --json 2>&1)"
# the three schemas: one version, the shared definitions alike
out=$("$py3" - "$top/share/schema" <<'EOF'
import json, sys
d = {k: json.load(open("%s/%s.schema.json" % (sys.argv[1], k))) for k in ("explain", "status", "verify")}
for k, s in d.items():
    if s["properties"]["schema"] != {"const": 3, "description": "One version for --explain, --status and --verify --json."}:
        print("%s: schema %r" % (k, s["properties"]["schema"]))
    if s.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
        print("%s: not draft 2020-12" % k)
for n in ("verdict", "candidate_verdict", "candidate"):
    if d["explain"]["$defs"][n] != d["status"]["$defs"][n]:
        print("status and explain differ on %s" % n)
if "cuda_from" in json.dumps(d):
    print("cuda_from is still there")
EOF
)
status "schemas: one version, shared definitions alike, no duplicate key" "" "$out"
status "names: --verify" "" "$(names_check verify <"$W/names.verify" 2>&1)"
# --root is a view of an image: a typo, a file or a directory without usr/
# is exit 2 with the reason, never a green; --verify takes none
NR="env -i CUDALOAD_CONFIG=$W/empty.conf $B/cudaload"
for r in "$W/no-such-image" "$W/empty.conf" "$W/libs"; do
	for m in --status "--status --json" "--status --prometheus" "--explain /usr/bin/probe"; do
		out=$($NR --root "$r" $m 2>&1)
		status "--root $(basename "$r"), $m: exit" 2 "$?" "$out"
		has "--root $(basename "$r"), $m: the reason" "$out" \
			"cudaload: --root $r: $(case $r in */no-such-image) echo "No such file or directory" ;;
				*/empty.conf) echo "not a directory" ;; *) echo "no usr/ in it: not a system image" ;; esac)"
	done
done
for v in "--verify --root $W/empty" "--root $W/empty --verify" "--verify --timeout 5 --root=$W/empty"; do
	out=$($NR $v 2>&1)
	status "$v: refused" 100 "$?" "$out"
	has "$v: why" "$out" \
		"cudaload: --verify takes no --root: it would load an image's libraries as root and judge them by this host's driver"
done
out=$($NR --explain --root "$W/empty" probe 2>&1)
status "--explain --root, a bare name: refused" 100 "$?" "$out"

# --explain of a program named with an escape sequence, and of one named
# with the characters of its printable form: told apart, on one line each
cp "$L/probe" "$W/names-bin/a$(printf '\033')[2Jb"
cp "$L/probe" "$W/names-bin/a\\x1b[2Jb"
has "names: --explain, an escape sequence" "$($NE --explain "$W/names-bin/a$(printf '\033')[2Jb")" \
	"program:      $W/names-bin/a\\x1b[2Jb"
has "names: --explain, its printable form's characters" "$($NE --explain "$W/names-bin/a\\x1b[2Jb")" \
	"program:      $W/names-bin/a\\\\x1b[2Jb"
json=$($NE --explain --json "$W/names-bin/a$(printf '\033')[2Jb")
status "names: --explain --json, an escape sequence" "$W/names-bin/a\\x1b[2Jb" "$(jq "d['program']")"
json=$($NE --explain --json "$W/names-bin/a\\x1b[2Jb")
status "names: --explain --json, its printable form's characters" "$W/names-bin/a\\\\x1b[2Jb" "$(jq "d['program']")"

# ---- orin: JetPack 5 to 6 (CUDALOAD_ROOT) ----
R=$W/orin
if sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/orin-jp5-compat124.profile" "$R" "$L" >/dev/null; then
	mkdir -p "$R/usr/bin" "$R/opt/app/bin" "$R/var/lib/cudaload" "$R$(dirname "$ldso")"
	cp "$B/cudaload" "$R/usr/bin/cudaload"
	cp -L "$ldso" "$R$ldso"
	cp "$L/probe" "$R/opt/app/bin/probe"
	"$B/cudaload-patch" --no-record --interp /usr/bin/cudaload --machine "$(uname -m)" "$R/opt/app/bin/probe" >/dev/null 2>&1
	printf '/usr/bin/cudaload\t/opt/app/bin/probe\n' >"$R/var/lib/cudaload/patched"
	O="env -i CUDALOAD_ROOT=$R CUDALOAD_CONFIG=$W/empty.conf"
	tegra=/usr/lib/aarch64-linux-gnu/tegra pkg=/usr/local/cuda-12.4/compat
	# no verdict store yet: the package is unverified, never a fresh verdict
	snap $O "$B/cudaload"
	has "orin unverified: metric verified" "$prom" "cudaload_package_verified{package=\"$pkg\"} 0"
	has "orin unverified: system verified" "$prom" 'cudaload_package_verified{package="system"} 0'
	lacks "orin unverified: no stale sample reads as fresh" "$prom" "cudaload_verdict_stale{package=\"$pkg\"}"
	lacks "orin unverified: no age" "$prom" "cudaload_verdict_age_seconds{package=\"$pkg\"}"
	prom_lint "orin unverified"
	vjson=$($O "$B/cudaload" --verify --json --timeout 5 2>>"$W/orin-verify.log")
	valid "orin" verify "$vjson"
	# orin_program STATE: the program in --status is what --explain says,
	# and what it loads when run through cudaload (the root's files)
	orin_program() {
		explained "$1" /opt/app/bin/probe "$($O "$B/cudaload" --explain --json "$R/opt/app/bin/probe")"
		got=$($O "$B/cudaload" "$R/opt/app/bin/probe" 2>&1 | sed -n 's/^libcuda=//p')
		status "$1: runs with what --status says" "$(prog /opt/app/bin/probe libcuda)" "${got#"$R"}"
	}
	# orin_package STATE USABLE STALE: the package in the metrics and the JSON
	orin_package() {
		has "$1: metric usable" "$prom" "cudaload_package_usable{package=\"$pkg\",cuda=\"12.4\"} $2"
		has "$1: metric stale" "$prom" "cudaload_verdict_stale{package=\"$pkg\"} $3"
		status "$1: JSON stale" "$([ "$3" = 1 ] && echo True || echo False)" "$(jq "d['packages'][0]['stale']")"
	}

	snap $O "$B/cudaload"
	exits "orin r35" 0
	contains "orin r35: the host" "$txt" "host:         tegra tegra234 (Orin), L4T 35.4.1, host CUDA 11.4"
	has "orin r35: the package is refused" "$txt" \
		"              CUDA 12.4 (from note), refused: NVIDIA does not support CUDA 12.4 compat on L4T r35"
	contains "orin r35: its verdict" "$txt" "cuInit returned 0"
	has "orin r35: the program" "$txt" "program:      /opt/app/bin/probe: held"
	has "orin r35: what it loads" "$txt" "              system driver, libcuda $tegra/libcuda.so.1.1"
	has "orin r35: verdicts fresh" "$(printf '%s\n' "$txt" | tail -n1)" "status:       holds: 1 of 1 program held; verdicts fresh"
	counts "orin r35" 1 0 0 0 0
	status "orin r35: JSON decision" system "$(prog /opt/app/bin/probe decision)"
	orin_package "orin r35" 0 0
	has "orin r35: metric verified" "$prom" "cudaload_package_verified{package=\"$pkg\"} 1"
	prom_lint "orin r35"
	contains "orin r35: metric age" "$prom" 'cudaload_verdict_age_seconds{package="/usr/local/cuda-12.4/compat"} '
	orin_program "orin r35"

	# the OTA: L4T r36.3.0 (JetPack 6.0, CUDA 12.2), its driver in nvidia/
	printf '%s\n' "# R36 (release), REVISION: 3.0, GCID: 36191598, BOARD: generic, EABI: aarch64, DATE: Mon May  6 17:34:21 UTC 2024" \
		"# KERNEL_VARIANT: oot" >"$R/etc/nv_tegra_release"
	mv "$R$tegra" "$R/usr/lib/aarch64-linux-gnu/nvidia"
	snap $O "$B/cudaload"
	exits "orin r36" 1
	contains "orin r36: the host" "$txt" "L4T 36.3.0, host CUDA 12.2"
	contains "orin r36: the package is usable" "$txt" "              CUDA 12.4 (from note), usable"
	has "orin r36: its verdict is stale" "$txt" "              stale: made on another driver or GPU (run cudaload --verify)"
	has "orin r36: the program" "$txt" "program:      /opt/app/bin/probe: held"
	has "orin r36: takes the package" "$txt" \
		"              compat /usr/local/cuda-12.4/compat, libcuda /usr/local/cuda-12.4/compat/libcuda.so.1.1"
	has "orin r36: the last line" "$(printf '%s\n' "$txt" | tail -n1)" \
		"status:       does not hold: the verdict on $pkg is stale (made on another driver or GPU): run cudaload --verify; held: 1 of 1 program"
	lacks "orin r36: no held count as the reason" "$txt" "does not hold: 1 of 1"
	status "orin r36: JSON store" other_host "$(jq "d['verdicts']['store']")"
	status "orin r36: JSON decision" compat "$(prog /opt/app/bin/probe decision)"
	orin_package "orin r36" 1 1
	prom_lint "orin r36"
	has "orin r36: metric program" "$prom" 'cudaload_program_info{path="/opt/app/bin/probe",state="held",driver="compat"} 1'
	orin_program "orin r36"
	# --root: the same image, every path its own (CUDALOAD_ROOT, the test
	# seam, keeps the prefix on what is handed to ld.so)
	json=$($NR --status --json --root "$R")
	status "orin r36 --root: exit" 1 "$?"
	lacks "orin r36 --root: no path carries the mount point" "$json" "$R"
	status "orin r36 --root: ldso" "$ldso" "$(prog /opt/app/bin/probe ldso)"
	status "orin r36 --root: library_path" "$pkg:/usr/lib/aarch64-linux-gnu/nvidia" \
		"$(prog /opt/app/bin/probe library_path)"
	status "orin r36 --root: libcuda" "$pkg/libcuda.so.1.1" "$(prog /opt/app/bin/probe libcuda)"
	ejson=$($NR --explain --json --root "$R" /opt/app/bin/probe)
	status "orin r36 --explain --root: exit" 0 "$?"
	lacks "orin r36 --explain --root: no path carries the mount point" "$ejson" "$R"
	explained "orin r36 --root" /opt/app/bin/probe "$ejson"
	json=$(printf '%s' "$ejson")
	status "orin r36 --explain --root: program" /opt/app/bin/probe "$(jq "d['program']")"
	status "orin r36 --explain --root: ldso" "$ldso" "$(jq "d['ldso']")"
	# the image's own config, named as the image names it
	printf 'policy = auto\n' >"$R/etc/cudaload.conf"
	etxt=$(env -i "$B/cudaload" --explain --root "$R" /opt/app/bin/probe)
	has "orin r36 --explain --root: the image's config" "$etxt" "config:       /etc/cudaload.conf"
	rm "$R/etc/cudaload.conf"
	etxt=$($NR --explain --root "$R" /opt/app/bin/probe)
	lacks "orin r36 --explain --root: text without the mount point" "$etxt" "$R"
	has "orin r36 --explain --root: text library path" "$etxt" \
		"library path: $pkg:/usr/lib/aarch64-linux-gnu/nvidia"
	prom=$($NR --status --prometheus --root "$R")
	lacks "orin r36 --root: metrics without the mount point" "$prom" "$R"
	$O "$B/cudaload" --verify --timeout 5 >>"$W/orin-verify.log" 2>&1
	snap $O "$B/cudaload"
	exits "orin r36 verified" 0
	has "orin r36 verified: fresh" "$(printf '%s\n' "$txt" | tail -n1)" "status:       holds: 1 of 1 program held; verdicts fresh"

	# programs that cannot start: the loader the patch recorded is gone, or
	# cudaload itself; a line of the record that does not parse is said
	cp "$R/opt/app/bin/probe" "$R/opt/app/bin/probe-noldso"
	mv "$R$ldso" "$R$ldso.gone"
	printf 'no tab here\n/usr/bin/cudaload\t/opt/app/bin/probe-noldso\n' >>"$R/var/lib/cudaload/patched"
	snap $O "$B/cudaload"
	exits "orin no loader" 1
	has "orin no loader: broken" "$txt" "program:      /opt/app/bin/probe-noldso: broken"
	contains "orin no loader: why" "$txt" "              its loader: $R$ldso (recorded by cudaload-patch):"
	has "orin no loader: the record's bad line" "$txt" \
		"record:       /var/lib/cudaload/patched: 1 line skipped (line 2: no tab between interpreter and path)"
	status "orin no loader: JSON record_skipped" 1 "$(jq "d['record_skipped']")"
	counts "orin no loader" 0 0 0 0 2
	mv "$R$ldso.gone" "$R$ldso"
	rm "$R/usr/bin/cudaload"
	snap $O "$B/cudaload"
	exits "orin no cudaload" 1
	has "orin no cudaload: broken" "$txt" "program:      /opt/app/bin/probe: broken"
	contains "orin no cudaload: why" "$txt" "              its interpreter /usr/bin/cudaload: "
	counts "orin no cudaload" 0 0 0 0 2
else
	bad "orin: build the root"
fi

# ---- dc: 535 to 580, in a chroot ----
if [ "$(id -u)" -ne 0 ]; then
	skip "dc fixture" "not root (the host is a chroot)"
	finish
	exit
fi
if [ "$(uname -m)" != x86_64 ]; then
	skip "dc fixture" "the chroot recipe is for x86_64; this is $(uname -m)"
	finish
	exit
fi
triplet=x86_64-linux-gnu
R=$W/dc
sys=/usr/lib/$triplet
cat >"$W/dc.profile" <<EOF
nvidia_version=535.216.03
gpus="0000:01:00.0 PCIe NVIDIA A100-SXM4-80GB"
compat="/usr/local/cuda-13.0/compat 13000 580.95.05 -"
EOF
if sh "$here/../lib/mkroot.sh" "$W/dc.profile" "$R" "$L" >/dev/null; then
	for d in /lib/$triplet $sys /lib64 /etc/ld.so.conf.d /usr/bin /opt/app/bin /var/lib/cudaload /tmp; do
		mkdir -p "$R$d"
	done
	cp -L "/lib/$triplet/libc.so.6" "$R/lib/$triplet/libc.so.6"
	cp -L "$ldso" "$R$ldso"
	printf 'include /etc/ld.so.conf.d/*.conf\n' >"$R/etc/ld.so.conf"
	printf '/lib/%s\n/usr/lib/%s\n' "$triplet" "$triplet" >"$R/etc/ld.so.conf.d/$triplet.conf"
	# the system driver, a real shared object (the compat ones are mkroot's)
	$CC -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=12020 \
		-o "$R$sys/libcuda.so.535.216.03" "$here/../helpers/fakecuda.c"
	ln -s libcuda.so.535.216.03 "$R$sys/libcuda.so.1"
	# the JIT compiler beside the compat libcuda, a real one (mkroot's
	# companions are empty files, which ldconfig rejects)
	rm -f "$R/usr/local/cuda-13.0/compat"/libnvidia-*.so*
	$CC -shared -fPIC -O1 -Wl,-soname,libnvidia-ptxjitcompiler.so.1 \
		-o "$R/usr/local/cuda-13.0/compat/libnvidia-ptxjitcompiler.so.580.95.05" "$here/../helpers/holdlib.c"
	ln -s libnvidia-ptxjitcompiler.so.580.95.05 "$R/usr/local/cuda-13.0/compat/libnvidia-ptxjitcompiler.so.1"
	cp "$B/cudaload" "$R/usr/bin/"
	sh "$top/scripts/mkpin.sh" "$R/usr/lib/cudaload/pin" /usr/lib/cudaload/pin
	for p in probe probe-rpath; do
		cp "$L/$p" "$R/opt/app/bin/$p"
		"$B/cudaload-patch" --no-record --interp /usr/bin/cudaload --machine x86_64 "$R/opt/app/bin/$p" >/dev/null 2>&1
	done
	printf '/usr/bin/cudaload\t/opt/app/bin/%s\n' probe probe-rpath >"$R/var/lib/cudaload/patched"
	ldconfig -r "$R" 2>/dev/null
	CH=$(command -v chroot || echo /usr/sbin/chroot)
	C="env -i PATH=/usr/bin:/bin $CH $R /usr/bin/cudaload"
	# (from outside, under the root: the verifier needs /proc, which the
	# chroot's fake one is not; its system child then finds no driver in
	# this machine's cache: "could not be loaded", as the store says)
	verify() { env -i CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$W/empty.conf" "$B/cudaload" --verify --timeout 5 \
		>>"$W/dc-verify.log" 2>&1; }
	runs() { env -i PATH=/usr/bin:/bin "$CH" "$R" "/opt/app/bin/$1" 2>&1 | sed -n 's/^libcuda=//p'; }
	# listed PROGRAM: the search list a start of it hands ld.so, from its
	# trace (exec: --library-path; chain: LD_LIBRARY_PATH), else None
	listed() {
		l=$(env -i PATH=/usr/bin:/bin CUDALOAD_DEBUG=1 "$CH" "$R" "/opt/app/bin/$1" 2>&1 >/dev/null |
			sed -n "s/.*exec .*'--library-path' '\([^']*\)'.*/\1/p; s/.*chain .* at 0x[0-9a-f]*, LD_LIBRARY_PATH=//p" |
			head -n 1)
		printf '%s\n' "${l:-None}"
	}
	# each program: --status against --explain, and against a run when it holds
	judged() { # judged STATE PROGRAM...
		s=$1
		shift
		for p in "$@"; do
			explained "$s" "/opt/app/bin/$p" "$($C --explain --json "/opt/app/bin/$p")"
			if [ "$(prog "/opt/app/bin/$p" state)" = held ]; then
				status "$s: $p runs with what --status says" "$(prog "/opt/app/bin/$p" libcuda)" "$(runs "$p")"
				status "$s: a start of $p hands ld.so the list --status says" \
					"$(prog "/opt/app/bin/$p" library_path)" "$(listed "$p")"
			fi
		done
	}
	verify

	snap $C
	exits "dc 535" 0
	contains "dc 535: the host" "$txt" "host:         dgpu, driver 535.216.03, GPU NVIDIA A100-SXM4-80GB (Ampere), host CUDA 12.2"
	contains "dc 535: the package is usable" "$txt" "              CUDA 13.0 (from directory), usable"
	has "dc 535: the program" "$txt" "program:      /opt/app/bin/probe: held"
	has "dc 535: takes the package" "$txt" \
		"              compat /usr/local/cuda-13.0/compat, libcuda /usr/local/cuda-13.0/compat/libcuda.so.580.95.05"
	has "dc 535: the DT_RPATH names the same package" "$txt" "program:      /opt/app/bin/probe-rpath: held"
	counts "dc 535" 2 0 0 0 0
	judged "dc 535" probe probe-rpath
	$C --status --textfile /tmp >/dev/null
	status "dc 535: --textfile exit" 0 "$?"
	has "dc 535: --textfile" "$(cat "$R/tmp/cudaload.prom" 2>&1)" 'cudaload_programs{state="held"} 2'
	keys_documented "dc 535"

	# A package only a program's RUNPATH reaches, refused by its verdict:
	# --status applies it as a start does.  The verdicts are written here
	# (this verifier's children cannot load the chroot's driver): the
	# system driver works, every package fails.
	cp -a "$R/usr/local/cuda-13.0/compat" "$R/opt/vendor-compat"
	$CC -O1 -o "$R/opt/app/bin/probe-runpath" "$here/../helpers/statusprobe.c" -ldl \
		-Wl,--enable-new-dtags,-rpath,/opt/vendor-compat
	"$B/cudaload-patch" --no-record --interp /usr/bin/cudaload --machine x86_64 \
		"$R/opt/app/bin/probe-runpath" >/dev/null 2>&1
	store=$R/run/cudaload/verdicts
	cp "$store" "$W/dc-store"
	cp "$R/var/lib/cudaload/patched" "$W/dc-record"
	printf '/usr/bin/cudaload\t/opt/app/bin/probe-runpath\n' >"$R/var/lib/cudaload/patched"
	sed -i 's/^system [^ ]* [^ ]* \([0-9]*\)/system cu=0 done \1/; s/^compat [^ ]* [^ ]* [0-9]*/compat cu=804 init 0/' "$store"
	printf 'compat cu=804 init 0 %s %s /opt/vendor-compat\n' "$(date +%s)" \
		"$(stat -L -c '%d %i %s %.9Y' "$R/opt/vendor-compat/libcuda.so.1")" >>"$store"
	snap $C
	status "RUNPATH package refused by its verdict: --status says the system driver" \
		system "$(prog /opt/app/bin/probe-runpath decision)"
	judged "RUNPATH package refused by its verdict" probe-runpath
	status "RUNPATH package refused by its verdict: the program loads the system driver" \
		"$sys/libcuda.so.535.216.03" "$(runs probe-runpath)"
	mv "$W/dc-store" "$store"
	mv "$W/dc-record" "$R/var/lib/cudaload/patched"
	rm -r "$R/opt/vendor-compat" "$R/opt/app/bin/probe-runpath"

	# the upgrade: module and library 580.65.06 (no reboot between: /run stays)
	printf '580.65.06\n' >"$R/sys/module/nvidia/version"
	rm "$R$sys/libcuda.so.1" "$R$sys/libcuda.so.535.216.03"
	$CC -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=13000 \
		-o "$R$sys/libcuda.so.580.65.06" "$here/../helpers/fakecuda.c"
	ln -s libcuda.so.580.65.06 "$R$sys/libcuda.so.1"
	ldconfig -r "$R" 2>/dev/null
	snap $C
	exits "dc 580" 1
	contains "dc 580: the package is refused" "$txt" "              CUDA 13.0 (from directory), refused"
	has "dc 580: its verdict is stale" "$txt" "              stale: made on another driver or GPU (run cudaload --verify)"
	has "dc 580: the pin" "$txt" \
		"pin:          /usr/bin/../lib/cudaload/pin$sys (x86_64): links to the system driver's files"
	has "dc 580: the program" "$txt" "program:      /opt/app/bin/probe: held"
	has "dc 580: pinned to the system driver" "$txt" "              system driver, libcuda $sys/libcuda.so.580.65.06"
	has "dc 580: the DT_RPATH program" "$txt" "program:      /opt/app/bin/probe-rpath: not_held"
	has "dc 580: why" "$txt" \
		"              the program's DT_RPATH /usr/local/cuda-13.0/compat gives its libcuda.so.1 first"
	has "dc 580: the last line" "$(printf '%s\n' "$txt" | tail -n1)" \
		"status:       does not hold: 1 not_held (each program above says why); the verdict on /usr/local/cuda-13.0/compat is stale (made on another driver or GPU): run cudaload --verify; held: 1 of 2 programs"
	counts "dc 580" 1 1 0 0 0
	status "dc 580: JSON stale" True "$(jq "d['verdicts']['stale']")"
	has "dc 580: metric stale" "$prom" 'cudaload_verdict_stale{package="/usr/local/cuda-13.0/compat"} 1'
	judged "dc 580" probe probe-rpath
	status "dc 580: the DT_RPATH program does load the package" \
		/usr/local/cuda-13.0/compat/libcuda.so.580.95.05 "$(runs probe-rpath)"

	# --root: the same machine seen from outside, program by program
	chjson=$json
	json=$("$B/cudaload" --status --json --root "$R")
	status "dc 580 --root: exit" 1 "$?"
	# same_programs NAME: the programs of $json are those of $chjson, alike
	same_programs() {
		diff=$(python3 - "$chjson" "$json" <<'EOF'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
pa = {p["path"]: p for p in a["programs"]}
pb = {p["path"]: p for p in b["programs"]}
if sorted(pa) != sorted(pb):
    print("programs: chroot %r, --root %r" % (sorted(pa), sorted(pb)))
for path in sorted(set(pa) & set(pb)):
    for k in ("state", "decision", "compat_dir", "libcuda", "pin", "why"):
        if pa[path][k] != pb[path][k]:
            print("%s %s: chroot %r, --root %r" % (path, k, pa[path][k], pb[path][k]))
EOF
)
		[ -z "$diff" ] && ok "$1: each program as the chroot sees it" || bad "$1 differs" "$diff"
	}
	same_programs "dc 580 --root"
	# an image keeps no record (patch-image.sh patches with --no-record):
	# --root walks its program directories for what is patched
	mv "$R/var/lib/cudaload/patched" "$W/dc-record"
	cp "$L/probe" "$R/usr/bin/not-patched"
	json=$("$B/cudaload" --status --json --root "$R")
	status "dc 580 --root, no record: exit" 1 "$?"
	status "dc 580 --root, no record: walked" True "$(jq "d['walked']")"
	same_programs "dc 580 --root, no record"
	txt=$("$B/cudaload" --status --root "$R")
	has "dc 580 --root, no record: says so" "$txt" \
		"programs:     2 patched, found in /usr/bin, /usr/sbin, /usr/local, /opt (the image keeps no /var/lib/cudaload/patched)"
	rm "$R/usr/bin/not-patched"
	mv "$W/dc-record" "$R/var/lib/cudaload/patched"

	# verified again; then one program loses its patch, one is gone, and
	# the pin directories go
	verify
	snap $C
	has "dc 580 verified: verdicts fresh" "$(printf '%s\n' "$txt" | tail -n1)" \
		"status:       does not hold: 1 not_held (each program above says why); held: 1 of 2 programs; verdicts fresh"
	cp "$L/probe" "$R/opt/app/bin/probe-lost"
	printf '/usr/bin/cudaload\t/opt/app/bin/%s\n' probe-lost probe-gone 'we"ird\name' >>"$R/var/lib/cudaload/patched"
	rm -rf "$R/usr/lib/cudaload/pin"
	snap $C
	exits "dc after" 1
	has "dc after: lost its patch" "$txt" "program:      /opt/app/bin/probe-lost: unpatched"
	has "dc after: why" "$txt" \
		"              its interpreter is $ldso, not cudaload (replaced by an upgrade?): cudaload-patch --reapply patches it again"
	has "dc after: gone" "$txt" "program:      /opt/app/bin/probe-gone: missing"
	has "dc after: no pin" "$txt" "program:      /opt/app/bin/probe: not_held"
	has "dc after: why not" "$txt" \
		"              a compat package for x86_64 is installed and the system driver has no pin (no pin directory /usr/bin/../lib/cudaload/pin$sys)"
	has "dc after: the pin line" "$txt" \
		"pin:          none (x86_64): no pin directory /usr/bin/../lib/cudaload/pin$sys"
	counts "dc after" 0 2 1 2 0
	has "dc after: metric program" "$prom" 'cudaload_program_info{path="/opt/app/bin/probe-lost",state="unpatched",driver="none"} 1'
	# (the printable form: the backslash doubled, then escaped for the format)
	has "dc after: a label escaped" "$prom" 'cudaload_program_info{path="/opt/app/bin/we\"ird\\\\name",state="missing",driver="none"} 1'
	status "dc after: the JSON gives the name's printable form" 'we"ird\\name' "$(jq "d['programs'][4]['path'].split('/')[-1]")"
	judged "dc after" probe probe-rpath
	json=$("$B/cudaload" --status --json --root "$R")
	status "dc after --root: no pin in the image either" not_held "$(prog /opt/app/bin/probe state)"
	status "dc after --root: why" \
		"a compat package for x86_64 is installed and the system driver has no pin (no pin directory /usr/bin/../lib/cudaload/pin$sys in the image)" \
		"$(prog /opt/app/bin/probe why)"

	# an unreadable record: the status cannot be told
	rm "$R/var/lib/cudaload/patched"
	mkdir "$R/var/lib/cudaload/patched"
	snap $C
	exits "dc unreadable record" 2
	contains "dc unreadable record: says so" "$txt" "status:       cannot be told: /var/lib/cudaload/patched:"
else
	bad "dc: build the root"
fi
finish
