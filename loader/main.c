/* SPDX-License-Identifier: MIT */
/*
 * cudaload: pick the CUDA driver for this device at exec time, then hand
 * over to the real dynamic loader.
 *
 * This file is the entry and the command line: a start runs its steps
 * (start/steps.h) one way, in the order main calls them; each command
 * (commands/: --explain, --verify, --status, --oci-hook) is the start's
 * judgement told another way.  Everything that decides lives in common/.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "../common/base/diag.h"
#include "../common/base/identity.h"
#include "../common/host/tables.h"
#include "../common/settings/settings.h"
#include "../common/stores/prepared.h"
#include "commands/explain.h"
#include "commands/ocihook/ocihook.h"
#include "commands/status.h"
#include "commands/verify.h"
#include "start/fullpath.h"
#include "start/handover.h"
#include "start/reuse.h"
#include "start/steps.h"

#ifndef CUDALOAD_VERSION
#define CUDALOAD_VERSION "0.1.0"
#endif

/* execline's exit codes; 126 and 127 in pick.h */
#define EXIT_USAGE 100

/* Marks this binary as cudaload for any cudaload that meets it as a loader
 * candidate (common/base/identity.h). */
IDENTITY_NOTE(IDENTITY_NOTE_TYPE);

static const char usage[] =
	"usage: cudaload [--policy auto|compat|system] [--] PROGRAM [ARGS...]\n"
	"       cudaload --explain [--json] [--policy P] [--root DIR] [PROGRAM]\n"
	"       cudaload --verify [--json] [--timeout SECONDS] [PROGRAM...]\n"
	"       cudaload --status [--json | --prometheus | --nfd] [--textfile DIR]\n"
	"                [--nfd-dir DIR] [--root DIR]\n"
	"       cudaload --oci-hook   (an OCI createContainer hook: the state on stdin)\n"
	"       cudaload --version | --help\n"
	"Runs PROGRAM with the newest CUDA forward-compatibility driver valid for\n"
	"this device, or with the system driver.  See CUDALOAD_DEBUG=1.\n"
	"  --policy P   auto (default), compat (any package for the machine) or\n"
	"               system (never a package)\n"
	"  --explain    print what was found and decided, run nothing\n"
	"  --json       with --explain, --verify or --status: one JSON object\n"
	"               (keys in cudaload(1))\n"
	"  --verify     use each compat package and the system driver in a child\n"
	"               (cuInit, a context and a PTX module on every device), store\n"
	"               the verdicts: as root in /run/cudaload/verdicts, as\n"
	"               another user in that user's own ($XDG_RUNTIME_DIR/cudaload\n"
	"               or ~/.cache/cudaload), which its programs read after root's;\n"
	"               also the packages each recorded program and PROGRAM reach\n"
	"  --timeout S  with --verify: kill a child after S seconds (default 60)\n"
	"  --status     the whole machine: host, compat packages and their\n"
	"               verdicts, the pin, every program cudaload-patch recorded\n"
	"               and whether what it loads holds; exit 0 all holds, 1 not\n"
	"               (or a verdict is stale), 2 the status cannot be told\n"
	"  --prometheus with --status: node_exporter's textfile format\n"
	"  --textfile D with --status: also write D/cudaload.prom, atomically\n"
	"  --nfd        with --status: the node's labels for Node Feature Discovery\n"
	"  --nfd-dir D  with --status: also write them to D/cudaload, atomically\n"
	"  --oci-hook   judge a container's image against this host and make its\n"
	"               loader agree (docs/containers.md); exits 0 whatever happens\n"
	"  --root DIR   with --status or --explain: the image under DIR, its\n"
	"               paths as its own, nothing run (PROGRAM: its path there)\n"
	"  --version    print the version\n"
	"  --help       print this\n"
	"As a program's interpreter (cudaload-patch) cudaload reads no option.\n"
	"Exit status: the program's; before it runs, 100 usage, 126 cannot\n"
	"execute, 127 not found.\n";

struct options {
	struct asked *a;	/* what a start is asked: --explain, --json, --root, PROGRAM */
	bool verify, status, oci_hook;
	struct status_options so;
};

static void parse_options(int argc, char **argv, struct settings *s, struct options *o)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--explain") == 0) {
			o->a->explain = true;
		} else if (strcmp(a, "--verify") == 0) {
			o->verify = true;	/* the rest is the verifier's */
			for (int k = i + 1; !o->a->root && k < argc && strcmp(argv[k], "--") != 0; k++)
				if (strncmp(argv[k], "--root", 6) == 0 && (!argv[k][6] || argv[k][6] == '='))
					o->a->root = argv[k];
			if (o->a->root)
				die(EXIT_USAGE, "--verify takes no --root: it would load an image's libraries "
						"as root and judge them by this host's driver");
			return;
		} else if (strcmp(a, "--oci-hook") == 0) {
			if (i != 1 || argc != 2)
				die(EXIT_USAGE, "--oci-hook takes nothing else: the OCI state comes on stdin");
			o->oci_hook = true;
			return;
		} else if (strcmp(a, "--json") == 0) {
			o->a->json = true;
		} else if (strcmp(a, "--status") == 0) {
			o->status = true;
		} else if (strcmp(a, "--prometheus") == 0) {
			o->so.prometheus = true;
		} else if (strcmp(a, "--nfd") == 0) {
			o->so.nfd = true;
		} else if (strcmp(a, "--textfile") == 0 || strcmp(a, "--nfd-dir") == 0 || strcmp(a, "--root") == 0) {
			if (i + 1 >= argc || !argv[i + 1][0])
				die(EXIT_USAGE, "%s needs a directory", a);
			if (strcmp(a, "--root") == 0)
				o->a->root = argv[++i];
			else if (strcmp(a, "--nfd-dir") == 0)
				o->so.nfd_dir = argv[++i];
			else
				o->so.textfile_dir = argv[++i];
		} else if (strcmp(a, "--policy") == 0 || strncmp(a, "--policy=", 9) == 0) {
			const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : "");
			if (policy_parse(v, &s->policy) < 0)
				die(EXIT_USAGE, "--policy: '%s' is not auto, compat or system", v);
			s->policy_from = "--policy";
			s->policy_locked = true;
		} else if (strcmp(a, "--version") == 0) {
			char v[16];
			printf("cudaload %s\nNVIDIA tables: CUDA %s edition, checked %s; also %s\n",
			       CUDALOAD_VERSION, cuda_version_format(tables_edition, v, sizeof v), tables_checked,
			       tables_also);
			exit(0);
		} else if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			exit(0);
		} else {
			fputs(usage, stderr);
			die(EXIT_USAGE, "%s: unknown option", a);
		}
	}
	o->a->first = i;
	if (o->status) {
		if (o->a->explain || i < argc)
			die(EXIT_USAGE, "--status takes no program and no --explain");
		if (o->a->json + o->so.prometheus + o->so.nfd > 1)
			die(EXIT_USAGE, "one of --json, --prometheus and --nfd");
		o->so.json = o->a->json;
		return;
	}
	if (o->so.prometheus || o->so.textfile_dir || o->so.nfd || o->so.nfd_dir)
		die(EXIT_USAGE, "--prometheus, --textfile, --nfd and --nfd-dir go with --status");
	if (o->a->root && !o->a->explain)
		die(EXIT_USAGE, "--root goes with --status or --explain");
	if (o->a->root && i < argc && argv[i][0] != '/')
		die(EXIT_USAGE, "--explain --root: %s: name the program by its path in the image", argv[i]);
	if (o->a->json && !o->a->explain)
		die(EXIT_USAGE, "--json goes with --explain or --status");
	if (!o->a->explain && i >= argc) {
		fputs(usage, stderr);
		exit(EXIT_USAGE);
	}
}

int main(int argc, char **argv, char **envp)
{
	struct start st = { .as_interp = false };
	char prepared[PREPARED_CAP], exe[EXE_CAP];
	st.prepared = prepared;
	st.exe = exe;
	st.as_interp = getauxval(AT_BASE) != 0;
	st.argc = argc;
	st.argv = argv;
	st.envp = envp;
	settings_from_env(&st.s, envp, getauxval(AT_SECURE) != 0);
	struct options o = { .a = &st.o };
	if (!st.as_interp)
		parse_options(argc, argv, &st.s, &o);
	if (diag_on)
		diag_set_program(st.as_interp ? (argc ? argv[0] : NULL)
					      : st.o.first < argc ? argv[st.o.first] : "cudaload");
	if (o.oci_hook)
		return ocihook_run(envp);
	if (o.verify)
		verify_run(&st);
	if (st.o.root) {
		const char *problem = status_check_root(st.o.root);
		if (problem)
			die(STATUS_UNREADABLE, "--root %s: %s", st.o.root, problem);
		st.s.root = st.o.root;	/* a view of the image: its paths, its ld.so, nothing run */
		o.so.image = true;
	}
	if (o.status) {
		const char *self = path_from_kernel();
		settings_load_config(&st.s, envp, self);
		return status_run(&st.s, self, &o.so);
	}
	if (st.o.explain || diag_on)
		st.tell = explain;
	diag("%s%s", st.as_interp ? "as interpreter" : "as a command", st.s.secure ? ", secure" : "");

	find_program(&st);
	settle_mode(&st);
	/* A static program has no loader to hand over to: run it as it is.  Nor
	 * can one the kernel makes privileged (set-id, file capabilities) be
	 * handed to ld.so: only the kernel's exec of the program grants that, so
	 * it runs as without cudaload (a patched one starts cudaload again, as
	 * its interpreter, in secure mode). */
	if ((st.is_static || st.t.privileged) && !st.o.explain) {
		diag("%s is %s; running it directly", st.t.path,
		     st.is_static ? "statically linked" : "privileged by its file");
		exec_or_die(st.t.path, st.t.argv, envp);
	}
	find_loader(&st);
	if (!reuse_take(&st)) {
		if (st.ldso_later)
			pick_loader(&st);
		fullpath_judge(&st);
	}
	hand_over(&st);
}

