/* SPDX-License-Identifier: MIT */
/*
 * steps: a start, as main runs it.  struct start is what each step
 * produced, handed to the next: the program (find_program), the mode it
 * can run in (settle_mode), its real loader (find_loader, pick_loader),
 * then the choice, from a prepared decision (reuse.h) or the host judged
 * (fullpath.h), then the hand-over (handover.h).  Whatever goes wrong
 * before the choice, the program runs with the system driver; only a
 * missing program or loader stops it (126/127, die).
 *
 * Also the names a start knows its program and itself by, which the
 * other steps and the commands use too.
 */
#ifndef CUDALOAD_STEPS_H
#define CUDALOAD_STEPS_H

#include <elf.h>
#include <link.h>
#include <stdbool.h>

#include "../../common/settings/settings.h"
#include "../../common/elf/ldso.h"
#include "../../common/elf/target.h"

struct judge_in;
struct judgement;

/* This binary's own ELF header: its class and machine, its notes. */
extern const ElfW(Ehdr) __ehdr_start;

/* What the command line asked of a start (`cudaload [--explain] PROGRAM`). */
struct asked {
	bool explain, json;
	const char *root;	/* --root DIR */
	int first;		/* index of PROGRAM in argv */
};

struct start {
	/* the kernel and the command line */
	bool as_interp;		/* started as a program's interpreter */
	bool for_host;		/* --verify: prepare for a program that brings nothing */
	struct settings s;
	struct asked o;
	int argc;
	char **argv, **envp;
	/* --explain and the trace: what was found and decided, told once the
	 * host is judged (commands/explain.h); NULL: nothing to tell */
	void (*tell)(struct start *st, const struct judge_in *in, struct judgement *j);
	/* find_program: the program, and this binary's own path (for ../etc) */
	struct target t;
	const char *self;
	bool have_program, is_static;
	/* settle_mode */
	enum mode configured_mode;	/* before what this start allows */
	const char *handed;	/* the program as exec mode hands it to ld.so, settled at
				 * the hand-over (or by reuse_take) */
	bool in_place;		/* set-id: ld.so mapped here, run as a command on exe_self */
	const char *bare;	/* why no search list can be given, or NULL */
	/* find_loader */
	struct ldso_info ldso;
	bool patched;		/* the program's PT_INTERP is cudaload */
	int ldso_status;	/* 0, or 126/127 with ldso_problem */
	char *ldso_problem;
	bool ldso_later;	/* find_loader left the pick to a prepared decision (pick_loader) */
	bool llp_first;		/* this ld.so reads the first LD_LIBRARY_PATH, not the last */
	const char *user_llp;	/* the user's list, without what a cudaload above handed down */
	/* the choice: a prepared decision's, or judged now */
	char *list;		/* the search list for ld.so, or NULL: none */
	char *own;		/* `cudaload PROGRAM`: the chosen driver's directories alone */
	char *prepared;		/* PREPARED_CAP bytes (main's, not zeroed: a page not
				 * touched unless read): a decision read, the list in it */
	char *exe;		/* EXE_CAP bytes, main's: /proc/self/exe's name, once read */
	bool exe_read;
};
#define EXE_CAP 512

/* "cudaload: MESSAGE" on stderr, and exit with status. */
__attribute__((noreturn, format(printf, 2, 3)))
void die(int status, const char *fmt, ...);

void find_program(struct start *st);
void settle_mode(struct start *st);
void find_loader(struct start *st);
void pick_loader(struct start *st);

/* A `cudaload PROGRAM` hands its choice down to the program's descendants
 * (workers that re-run sys.executable: torchrun, multiprocessing's spawn,
 * Ray), which start without cudaload: the chosen driver's own directories
 * first, then the user's list.  The user's list is what follows them; a
 * cudaload below decides for itself on it. */
#define INHERITED "CUDALOAD_INHERITED_PATH"

/* The user's LD_LIBRARY_PATH (llp, as the loader reads it) without what
 * a cudaload above handed down; NULL: the user has none. */
const char *user_library_path(const char *llp, char **envp, bool secure);

/* The program's names and this binary's own (steps.c says how each is
 * found, at what cost). */
bool exe_name(char *out, size_t cap);
char *path_from_kernel(void);
const char *program_by_real_name(char **argv, int argc);
const char *program_for_ldso(char **argv, int argc);
const char *program_by_name(char **argv, int argc, const char *root);

/* Data and functions shared across the loader's objects are hidden: a
 * default one would be reached through a GOT entry on aarch64, and the
 * writable segment is one page (run.sh checks).
 *
 * Why a program with file capabilities gets the system driver. */
extern const char caps_why[] __attribute__((visibility("hidden")));

/* What ld.so is handed as a set-id program: the kernel's own reference to
 * the file it checked, opened by ld.so in this process (no exec between),
 * whatever has been renamed over the program's name since. */
extern const char exe_self[] __attribute__((visibility("hidden")));

#endif
