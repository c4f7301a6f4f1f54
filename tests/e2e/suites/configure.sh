#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload-runtime configure and unconfigure on each engine's files, as
# they are found on nodes: Debian's `containerd config default` (with
# SystemdCgroup, an nvidia handler, other imports), a daemon.json as
# nvidia-ctk leaves it, CRI-O's drop-in layout, a containers.conf with other
# keys.  Each row checks what the engine itself reads (containerd's own
# `config dump`, podman info; Debian's python json and tomllib for Docker
# and CRI-O), that a second configure changes no byte and no mtime, that
# unconfigure gives every file back byte for byte, and that bad input (a
# malformed file, an unknown engine) is refused with nothing changed.
# Usage: configure.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$here/../lib/lib.sh"
echo "== cudaload-runtime configure / unconfigure"
RT=$B/cudaload-runtime
[ -x "$RT" ] || { bad "no $RT (make $B/cudaload-runtime)"; finish; exit; }
[ -x /usr/bin/python3 ] || { skip "configure suite" "no /usr/bin/python3"; finish; exit; }
W=$B/e2e-configure
rm -rf "$W" && mkdir -p "$W" || exit 1

# run NAME ARGS...: cudaload-runtime's stdout in $out, stderr in $err, status in $rc
run() {
	"$RT" "$@" >"$W/out" 2>"$W/err"
	rc=$?
	out=$(cat "$W/out") err=$(cat "$W/err")
}
# same NAME A B: the files are byte for byte the same
same() { if cmp -s "$2" "$3"; then ok "$1"; else bad "$1: $2 and $3 differ" "$(diff "$3" "$2")"; fi; }
# stamp FILE: its bytes' checksum and its mtime (nanoseconds), to see that nothing was written
stamp() { printf '%s %s\n' "$(cksum <"$1")" "$(stat -c %y "$1")"; }
# gone NAME PATH
gone() { if [ -e "$2" ]; then bad "$1: $2 is still there"; else ok "$1"; fi; }
# py NAME CODE FILE: Debian's python asserts CODE about FILE's data d
py_json() { pycheck "$1" "import json; d = json.load(open(sys.argv[1]))" "$2" "$3"; }
py_toml() { pycheck "$1" "import tomllib; d = tomllib.load(open(sys.argv[1], 'rb'))" "$2" "$3"; }
pycheck() {
	if r=$(/usr/bin/python3 -c "import sys
$2
assert $3, d" "$4" 2>&1); then ok "$1"; else bad "$1" "$r"; fi
}
# refused NAME: non-zero, one cudaload-runtime line on stderr, nothing on stdout
refused() {
	if [ "$rc" -ne 0 ] && [ -z "$out" ]; then
		case $err in "cudaload-runtime: "*) ok "$1" ;; *) bad "$1: stderr" "$err" ;; esac
	else bad "$1: exit $rc" "$out $err"; fi
}

# refused_after NAME: non-zero, the failure on stderr as cudaload-runtime's lines
refused_after() {
	if [ "$rc" -ne 0 ]; then
		case $err in "cudaload-runtime: "*) ok "$1" ;; *) bad "$1: stderr" "$err" ;; esac
	else bad "$1: exit $rc" "$out $err"; fi
}

# ---- Docker ----
D=$W/docker
mkdir -p "$D"
cat >"$D/daemon.json" <<'EOF'
{
    "default-runtime": "nvidia",
    "log-driver": "json-file",
    "log-opts": {
        "max-file": "3",
        "max-size": "10m"
    },
    "runtimes": {
        "nvidia": {
            "args": [],
            "path": "nvidia-container-runtime"
        }
    }
}
EOF
cp -p "$D/daemon.json" "$D/orig"
run configure --runtime=docker --config="$D/daemon.json"
status "docker: configure" 0 "$rc" "$out$err"
contains "docker: says which service to restart" "$out" "systemctl restart docker"
py_json "docker: runtimes.cudaload.path is cudaload-runtime, the rest kept" \
	"d['runtimes']['cudaload'] == {'path': '$RT'} and d['runtimes']['nvidia']['path'] == 'nvidia-container-runtime' \
	and d['log-opts'] == {'max-file': '3', 'max-size': '10m'} and d['default-runtime'] == 'nvidia'" "$D/daemon.json"
same "docker: the backup is the file as it was" "$D/daemon.json.cudaload-backup" "$D/orig"
before=$(stamp "$D/daemon.json")
run configure --runtime=docker --config="$D/daemon.json"
status "docker: a second configure: no byte, no mtime changed" "$before" "$(stamp "$D/daemon.json")"
contains "docker: a second configure says nothing changed" "$out" "nothing to change"
run configure --runtime=docker --config="$D/daemon.json" --set-as-default
py_json "docker: --set-as-default: default-runtime cudaload" \
	"d['default-runtime'] == 'cudaload' and 'nvidia' in d['runtimes']" "$D/daemon.json"
same "docker: the backup is made once" "$D/daemon.json.cudaload-backup" "$D/orig"
# the default follows the last run, as with the other engines' drop-ins
run configure --runtime=docker --config="$D/daemon.json"
py_json "docker: configure without --set-as-default after it: the default before configure again" \
	"d['default-runtime'] == 'nvidia' and 'cudaload' in d['runtimes']" "$D/daemon.json"
run configure --runtime=docker --config="$D/daemon.json" --set-as-default
run unconfigure --runtime=docker --config="$D/daemon.json"
status "docker: unconfigure" 0 "$rc" "$out$err"
same "docker: unconfigure gives the file back byte for byte" "$D/daemon.json" "$D/orig"
gone "docker: and removes the backup" "$D/daemon.json.cudaload-backup"

# the admin changes the file between the two: only our entries go
run configure --runtime=docker --config="$D/daemon.json" --set-as-default
sed 's/"json-file"/"journald"/' "$D/daemon.json" >"$D/edited" && cat "$D/edited" >"$D/daemon.json"
run unconfigure --runtime=docker --config="$D/daemon.json"
contains "docker: a file changed since: says so" "$out" "changed since configure"
py_json "docker: a file changed since: only cudaload's entries taken out, the default before configure back" \
	"'cudaload' not in d['runtimes'] and d['default-runtime'] == 'nvidia' and d['log-driver'] == 'journald' \
	and 'nvidia' in d['runtimes']" "$D/daemon.json"
rm -f "$D/daemon.json.cudaload-backup"

# no daemon.json: made, then removed
E=$W/docker-empty
mkdir -p "$E"
run configure --runtime=docker --config="$E/daemon.json" --set-as-default
py_json "docker: a missing daemon.json is made" \
	"d == {'runtimes': {'cudaload': {'path': '$RT'}}, 'default-runtime': 'cudaload'}" "$E/daemon.json"
run configure --runtime=docker --config="$E/daemon.json"
py_json "docker: ... configure without --set-as-default: no default-runtime (the file had none)" \
	"d == {'runtimes': {'cudaload': {'path': '$RT'}}}" "$E/daemon.json"
run unconfigure --runtime=docker --config="$E/daemon.json"
if [ -z "$(ls -A "$E")" ]; then ok "docker: unconfigure removes the daemon.json it made"; else bad "docker: left $(ls -A "$E")"; fi

# malformed JSON: refused, nothing changed
printf '{\n  "log-driver": "json-file",\n  "runtimes": {\n' >"$D/bad.json"
cp -p "$D/bad.json" "$D/bad.orig"
before=$(stamp "$D/bad.json")
run configure --runtime=docker --config="$D/bad.json"
refused "docker: malformed daemon.json refused"
status "docker: malformed daemon.json unchanged" "$before" "$(stamp "$D/bad.json")"
gone "docker: malformed daemon.json: no backup" "$D/bad.json.cudaload-backup"
printf '{"runtimes": {"a": {}}, "runtimes": {}}\n' >"$D/twice.json"
run configure --runtime=docker --config="$D/twice.json"
refused "docker: runtimes named twice refused"
printf '[1, 2]\n' >"$D/array.json"
run configure --runtime=docker --config="$D/array.json"
refused "docker: a daemon.json that is not an object refused"
run configure --runtime=docker --config="$W/nowhere/daemon.json"
refused "docker: a directory that is not there refused"
ln -s "$D/orig" "$D/link.json"
run configure --runtime=docker --config="$D/link.json"
refused "docker: a symbolic link refused (it would be replaced)"

# ---- the command line ----
run configure --runtime=lxc
refused "unknown --runtime refused"
run configure
refused "missing --runtime refused"
run unconfigure --runtime=docker --set-as-default --config="$D/daemon.json"
refused "unconfigure takes no --set-as-default"

# ---- containerd ----
C=$W/containerd
mkdir -p "$C"
if command -v containerd >/dev/null 2>&1; then
	# dump FILE: containerd's merged configuration
	dump() { containerd --config "$1" config dump 2>&1; }
	containerd config default | sed 's/SystemdCgroup = false/SystemdCgroup = true/;
		s|sandbox_image = .*|sandbox_image = "registry.example/pause:9"|' >"$C/config.toml"
	cp -p "$C/config.toml" "$C/orig"
	run configure --runtime=containerd --config="$C/config.toml"
	status "containerd: configure" 0 "$rc" "$out$err"
	contains "containerd: says which service to restart" "$out" "systemctl restart containerd"
	d=$(dump "$C/config.toml")
	contains "containerd: the merged config imports the drop-in" "$d" "$C/conf.d/cudaload.toml"
	has "containerd: the merged config has the handler" "$d" \
		'        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.cudaload]'
	has "containerd: ... with BinaryName cudaload-runtime" "$d" "            BinaryName = \"$RT\""
	has "containerd: ... of runtime_type runc.v2" "$d" '          runtime_type = "io.containerd.runc.v2"'
	py_toml "containerd: the handler copies runc's SystemdCgroup" \
		"d['plugins']['io.containerd.grpc.v1.cri']['containerd']['runtimes']['cudaload']['options']['SystemdCgroup'] is True" \
		"$C/conf.d/cudaload.toml"
	has "containerd: the main file's other CRI settings stay" "$d" '    sandbox_image = "registry.example/pause:9"'
	has "containerd: runc stays the default" "$d" '      default_runtime_name = "runc"'
	same "containerd: the backup is the file as it was" "$C/config.toml.cudaload-backup" "$C/orig"
	b1=$(stamp "$C/config.toml") b2=$(stamp "$C/conf.d/cudaload.toml")
	run configure --runtime=containerd --config="$C/config.toml"
	status "containerd: a second configure changes no byte, no mtime" "$b1 $b2" \
		"$(stamp "$C/config.toml") $(stamp "$C/conf.d/cudaload.toml")"
	run configure --runtime=containerd --config="$C/config.toml" --set-as-default
	has "containerd: --set-as-default: the default handler" "$(dump "$C/config.toml")" \
		'      default_runtime_name = "cudaload"'
	# a main file that cannot be rewritten: the drop-in it imports stays,
	# so that containerd still starts (it fails on a missing import)
	if chattr +i "$C/config.toml" 2>/dev/null; then
		run unconfigure --runtime=containerd --config="$C/config.toml"
		chattr -i "$C/config.toml"
		refused_after "containerd: unconfigure with an immutable config.toml fails"
		if [ -e "$C/conf.d/cudaload.toml" ] && dump "$C/config.toml" >/dev/null; then
			ok "containerd: ... and leaves the drop-in it imports; containerd still reads it"
		else bad "containerd: ... the import of a missing drop-in is left" "$(dump "$C/config.toml")"; fi
	else
		skip "containerd: immutable config.toml" "no chattr +i here"
	fi
	run unconfigure --runtime=containerd --config="$C/config.toml"
	status "containerd: unconfigure" 0 "$rc" "$out$err"
	case $out in *"config.toml"*"cudaload.toml"*) ok "containerd: unconfigure changes config.toml before it removes the drop-in" ;;
	*) bad "containerd: unconfigure removes the drop-in before the import" "$out" ;; esac
	same "containerd: unconfigure gives config.toml back byte for byte" "$C/config.toml" "$C/orig"
	gone "containerd: and removes conf.d, which it made" "$C/conf.d"
	gone "containerd: and the backup" "$C/config.toml.cudaload-backup"

	# the admin changes config.toml between the two: the drop-in, with its
	# copy of the old CRI section, goes whole, and the admin's setting holds
	run configure --runtime=containerd --config="$C/config.toml" --set-as-default
	sed 's|registry.example/pause:9|registry.example/pause:10|' "$C/config.toml" >"$C/edited"
	cat "$C/edited" >"$C/config.toml"
	run unconfigure --runtime=containerd --config="$C/config.toml"
	status "containerd: a config.toml changed since: unconfigure" 0 "$rc" "$out$err"
	contains "containerd: ... says the drop-in goes whole" "$out" "removed whole"
	gone "containerd: ... the drop-in and conf.d removed" "$C/conf.d"
	gone "containerd: ... the backup removed" "$C/config.toml.cudaload-backup"
	d=$(dump "$C/config.toml")
	has "containerd: ... the admin's sandbox_image is the one containerd takes" "$d" \
		'    sandbox_image = "registry.example/pause:10"'
	lacks "containerd: ... no cudaload handler left" "$d" "runtimes.cudaload"
	# (the imports line goes with its one element: `imports = []` before configure)
	sed 's|registry.example/pause:10|registry.example/pause:9|' "$C/config.toml" >"$C/edited"
	grep -v '^imports = \[\]$' "$C/orig" >"$C/orig-noimports"
	same "containerd: ... config.toml is the admin's, the import out" "$C/edited" "$C/orig-noimports"

	# an nvidia handler (nvidia-ctk's) elsewhere than cudaload-runtime looks, another import
	N=$W/containerd-nvidia
	mkdir -p "$N/conf.d"
	containerd config default | sed "s|^imports = \\[\\]|imports = [\"$N/conf.d/other.toml\"]|" >"$N/config.toml"
	/usr/bin/python3 - "$N/config.toml" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
anchor = '      [plugins."io.containerd.grpc.v1.cri".containerd.untrusted_workload_runtime]'
nv = '''        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          privileged_without_host_devices = false
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
            BinaryName = "/opt/nv/bin/nvidia-container-runtime"
            SystemdCgroup = true

'''
assert anchor in s
open(p, 'w').write(s.replace(anchor, nv + anchor))
EOF
	# another import, without a CRI section: the main file's is the one containerd takes
	printf 'version = 2\n' >"$N/conf.d/other.toml"
	cp -p "$N/config.toml" "$N/orig"
	run configure --runtime=containerd --config="$N/config.toml" --set-as-default
	status "containerd+nvidia: configure" 0 "$rc" "$out$err"
	contains "containerd+nvidia: says the line for cudaload.conf" "$out" \
		"runtime = /opt/nv/bin/nvidia-container-runtime"
	contains "containerd+nvidia: the handler copied is nvidia's" "$out" "settings of the handler nvidia"
	has "containerd+nvidia: our path appended to the imports" "$(head -n 3 "$N/config.toml")" \
		"imports = [\"$N/conf.d/other.toml\", \"$N/conf.d/cudaload.toml\"]"
	d=$(dump "$N/config.toml")
	has "containerd+nvidia: the nvidia handler stays" "$d" \
		'            BinaryName = "/opt/nv/bin/nvidia-container-runtime"'
	has "containerd+nvidia: cudaload the default" "$d" '      default_runtime_name = "cudaload"'
	py_toml "containerd+nvidia: nvidia's SystemdCgroup (runc's is false)" \
		"d['plugins']['io.containerd.grpc.v1.cri']['containerd']['runtimes']['cudaload']['options']['SystemdCgroup'] is True" \
		"$N/conf.d/cudaload.toml"
	run unconfigure --runtime=containerd --config="$N/config.toml"
	same "containerd+nvidia: unconfigure gives config.toml back" "$N/config.toml" "$N/orig"
	if [ "$(ls "$N/conf.d")" = other.toml ]; then ok "containerd+nvidia: conf.d kept with the other import"
	else bad "containerd+nvidia: conf.d holds $(ls "$N/conf.d")"; fi

	# imports as containerd cleans them (Go's filepath.Clean): the drop-in is
	# known however a pattern names it, and configure stays idempotent
	G=$W/containerd-glob
	for imp in './conf.d/*.toml' 'conf.d//*.toml' "$G/../containerd-glob/conf.d/*.toml" "$G//conf.d/*.toml"; do
		rm -rf "$G" && mkdir -p "$G"
		containerd config default | sed "s|^imports = \\[\\]|imports = [\"$imp\"]|" >"$G/config.toml"
		cp -p "$G/config.toml" "$G/orig"
		run configure --runtime=containerd --config="$G/config.toml"
		b1=$(stamp "$G/config.toml") b2=$(stamp "$G/conf.d/cudaload.toml")
		run configure --runtime=containerd --config="$G/config.toml"
		status "containerd: imports [$imp]: a second configure changes nothing" "$b1 $b2 nothing to change" \
			"$(stamp "$G/config.toml") $(stamp "$G/conf.d/cudaload.toml") ${out##*: }"
		lacks "containerd: imports [$imp]: the drop-in does not copy itself" \
			"$(grep 'CRI section of' "$G/conf.d/cudaload.toml")" "cudaload.toml"
		case $imp in
		/*) has "containerd: imports [$imp]: the pattern covers it, nothing added" "$(cat "$G/config.toml")" \
			"imports = [\"$imp\"]" ;;
		*) has "containerd: imports [$imp]: a relative pattern (1.6 globs it from its working directory): the drop-in named once" \
			"$(cat "$G/config.toml")" "imports = [\"$imp\", \"$G/conf.d/cudaload.toml\"]" ;;
		esac
		has "containerd: imports [$imp]: containerd takes the handler" "$(dump "$G/config.toml")" \
			'        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.cudaload]'
		run unconfigure --runtime=containerd --config="$G/config.toml"
		same "containerd: imports [$imp]: unconfigure gives config.toml back" "$G/config.toml" "$G/orig"
		gone "containerd: imports [$imp]: and removes conf.d" "$G/conf.d"
	done

	# runc's options as an inline table: the handler copies SystemdCgroup all the same
	I=$W/containerd-inline
	mkdir -p "$I"
	printf 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n  options = {SystemdCgroup = true}\n' \
		>"$I/config.toml"
	run configure --runtime=containerd --config="$I/config.toml"
	py_toml "containerd: runc's inline options: the handler copies SystemdCgroup" \
		"d['plugins']['io.containerd.grpc.v1.cri']['containerd']['runtimes']['cudaload']['options'] == {'BinaryName': '$RT', 'SystemdCgroup': True}" \
		"$I/conf.d/cudaload.toml"
	has "containerd: ... as containerd reads it" "$(dump "$I/config.toml")" '            SystemdCgroup = true'

	# no config.toml: made with version 2
	M=$W/containerd-missing
	mkdir -p "$M"
	run configure --runtime=containerd --config="$M/config.toml" --set-as-default
	d=$(dump "$M/config.toml")
	has "containerd: a missing config.toml: made, the handler there" "$d" \
		'        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.cudaload]'
	has "containerd: a missing config.toml: runc kept" "$d" \
		'        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]'
	has "containerd: a missing config.toml: cudaload the default" "$d" '      default_runtime_name = "cudaload"'
	run unconfigure --runtime=containerd --config="$M/config.toml"
	if [ -z "$(ls -A "$M")" ]; then ok "containerd: unconfigure removes what it made"; else bad "containerd: left $(ls -A "$M")"; fi
else
	skip "containerd rows" "no containerd"
fi

# version 3 (containerd 2.x): the newer plugin; containerd 1.6 cannot read it, tomllib can
V=$W/containerd-v3
mkdir -p "$V"
cat >"$V/config.toml" <<'EOF'
version = 3

[plugins.'io.containerd.cri.v1.runtime'.containerd]
  default_runtime_name = 'runc'

[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
  runtime_type = 'io.containerd.runc.v2'

[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  SystemdCgroup = true
EOF
cp -p "$V/config.toml" "$V/orig"
run configure --runtime=containerd --config="$V/config.toml" --set-as-default
py_toml "containerd v3: the handler under io.containerd.cri.v1.runtime, the default, runc's options" \
	"(c := d['plugins']['io.containerd.cri.v1.runtime']['containerd'])['default_runtime_name'] == 'cudaload' \
	and c['runtimes']['cudaload'] == {'runtime_type': 'io.containerd.runc.v2', 'options': {'BinaryName': '$RT', 'SystemdCgroup': True}} \
	and d['version'] == 3 and c['runtimes']['runc']['options'] == {'SystemdCgroup': True}" "$V/conf.d/cudaload.toml"
py_toml "containerd v3: the main file imports it" "d['imports'] == ['$V/conf.d/cudaload.toml']" "$V/config.toml"
run unconfigure --runtime=containerd --config="$V/config.toml"
same "containerd v3: unconfigure gives it back" "$V/config.toml" "$V/orig"

printf 'version = 2\n[plugins\n' >"$V/bad.toml"
before=$(stamp "$V/bad.toml")
run configure --runtime=containerd --config="$V/bad.toml"
refused "containerd: malformed TOML refused"
status "containerd: malformed TOML unchanged" "$before" "$(stamp "$V/bad.toml")"
gone "containerd: malformed TOML: no drop-in" "$V/conf.d"
printf '[plugins.cri]\n  sandbox_image = "x"\n' >"$V/v1.toml"
run configure --runtime=containerd --config="$V/v1.toml"
refused "containerd: config version 1 refused"
contains "containerd: ... with the way out" "$err" "containerd config migrate"

# k3s: a config.toml.tmpl replaces k3s's whole generated config; never made,
# and one that is a Go template is not edited
K=$W/k3s
mkdir -p "$K"
run configure --runtime=containerd --config="$K/config.toml.tmpl"
refused "containerd: a k3s template that is not there is not made"
contains "containerd: ... it says why and what to do" "$err" '{{ template "base" . }}'
gone "containerd: ... nothing written" "$K/config.toml.tmpl"
gone "containerd: ... no drop-in" "$K/conf.d"
printf '{{ template "base" . }}\n\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.x]\n  runtime_type = "y"\n' \
	>"$K/config.toml.tmpl"
before=$(stamp "$K/config.toml.tmpl")
run configure --runtime=containerd --config="$K/config.toml.tmpl"
refused "containerd: a k3s template refused"
contains "containerd: ... as a template it cannot edit" "$err" "a Go template (k3s's), which cudaload-runtime cannot edit"
status "containerd: ... unchanged" "$before" "$(stamp "$K/config.toml.tmpl")"

# ---- CRI-O ----
R=$W/crio
mkdir -p "$R/crio.conf.d"
printf '[crio]\nlog_dir = "/var/log/crio/pods"\n\n[crio.runtime]\ndefault_runtime = "runc"\n' >"$R/crio.conf"
printf '[crio.runtime]\ncgroup_manager = "systemd"\n\n[crio.runtime.runtimes.crun]\nruntime_path = "/usr/bin/crun"\n' \
	>"$R/crio.conf.d/10-crun.conf"
cp -p "$R/crio.conf" "$R/orig"
run configure --runtime=crio --config="$R/crio.conf"
status "crio: configure" 0 "$rc" "$out$err"
contains "crio: says which service to restart" "$out" "systemctl restart crio"
py_toml "crio: the drop-in's runtime" \
	"d == {'crio': {'runtime': {'runtimes': {'cudaload': {'runtime_path': '$RT', 'runtime_type': 'oci'}}}}}" \
	"$R/crio.conf.d/99-cudaload.conf"
before=$(stamp "$R/crio.conf.d/99-cudaload.conf")
run configure --runtime=crio --config="$R/crio.conf"
status "crio: a second configure changes nothing" "$before" "$(stamp "$R/crio.conf.d/99-cudaload.conf")"
run configure --runtime=crio --config="$R/crio.conf" --set-as-default
py_toml "crio: --set-as-default" "d['crio']['runtime']['default_runtime'] == 'cudaload'" "$R/crio.conf.d/99-cudaload.conf"
run unconfigure --runtime=crio --config="$R/crio.conf"
gone "crio: unconfigure removes the drop-in" "$R/crio.conf.d/99-cudaload.conf"
same "crio: crio.conf untouched" "$R/crio.conf" "$R/orig"
if [ "$(ls "$R/crio.conf.d")" = 10-crun.conf ]; then ok "crio: crio.conf.d kept, as it was there"
else bad "crio: crio.conf.d holds $(ls "$R/crio.conf.d")"; fi
printf '[crio.runtime\n' >"$R/bad.conf"
run configure --runtime=crio --config="$R/bad.conf"
refused "crio: a malformed crio.conf refused"
gone "crio: ... and no drop-in written" "$R/crio.conf.d/99-cudaload.conf"
# the admin adds to the drop-in: their entries stay
run configure --runtime=crio --config="$R/crio.conf" --set-as-default
printf '\n[crio.runtime.runtimes.kata]\nruntime_path = "/usr/bin/kata"\n' >>"$R/crio.conf.d/99-cudaload.conf"
run unconfigure --runtime=crio --config="$R/crio.conf"
contains "crio: a drop-in changed since: says so" "$out" "changed since configure"
py_toml "crio: ... only cudaload's entries taken out" \
	"d == {'crio': {'runtime': {'runtimes': {'kata': {'runtime_path': '/usr/bin/kata'}}}}}" \
	"$R/crio.conf.d/99-cudaload.conf"

# ---- podman ----
P=$W/podman
mkdir -p "$P"
printf '[containers]\nlog_driver = "k8s-file"\n\n[engine]\nevents_logger = "file"\ncgroup_manager = "cgroupfs"\n' \
	>"$P/containers.conf"
cp -p "$P/containers.conf" "$P/orig"
run configure --runtime=podman --config="$P/containers.conf" --set-as-default
status "podman: configure" 0 "$rc" "$out$err"
contains "podman: says nothing needs a restart" "$out" "nothing to restart"
py_toml "podman: the drop-in" "d == {'engine': {'runtime': 'cudaload', 'runtimes': {'cudaload': ['$RT']}}}" \
	"$P/containers.conf.d/99-cudaload.conf"
if command -v podman >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	# CONTAINERS_CONF: podman reads that one file (and no drop-ins): the drop-in as podman takes it
	got=$(CONTAINERS_CONF=$P/containers.conf.d/99-cudaload.conf timeout 30 podman info \
		--format '{{.Host.OCIRuntime.Name}} {{.Host.OCIRuntime.Path}}' 2>&1)
	status "podman: podman takes the drop-in's runtime" "cudaload $RT" "$got"
else
	skip "podman info" "no podman, or not root"
fi
before=$(stamp "$P/containers.conf.d/99-cudaload.conf")
run configure --runtime=podman --config="$P/containers.conf" --set-as-default
status "podman: a second configure changes nothing" "$before" "$(stamp "$P/containers.conf.d/99-cudaload.conf")"
run unconfigure --runtime=podman --config="$P/containers.conf"
gone "podman: unconfigure removes the drop-in and the directory it made" "$P/containers.conf.d"
same "podman: containers.conf untouched" "$P/containers.conf" "$P/orig"

rm -rf "$W"
finish
