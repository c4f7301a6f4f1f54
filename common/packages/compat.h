/* SPDX-License-Identifier: MIT */
/*
 * compat: finding forward-compatibility packages and what each one is.
 *
 * A candidate is a directory that should hold a compat libcuda.so.1.  For
 * each we read, without loading it, the ELF class and machine of its
 * libcuda, the .note.cuda.fwd_compatibility JSON, the driver version in the
 * library's file name, the cuda-X.Y directory name, a version.json, and
 * whether the companion libraries are there, and settle its CUDA version
 * from the most trusted source (docs/design.md §5): the note; a version the
 * user stated; the directory name; a version.json; last a guess from the driver version in the file name.
 * Whether it is usable is the decision's job (decide.h).
 */
#ifndef CUDALOAD_COMPAT_H
#define CUDALOAD_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "notejson.h"
#include "../base/sys.h"
#include "verdict.h"
#include "../base/version.h"

#define COMPAT_NOTE_SECTION ".note.cuda.fwd_compatibility"
#define COMPAT_NOTE_OWNER "NVIDIA Corporation"

struct candidate {
	char *dir;			/* as on the target, without the root;
					 * malloc'd by compat_examine, freed by compat_free */
	const char *origin;		/* "CUDALOAD_COMPAT_PATH", "config", "default",
					 * or where reach.h found it */
	char *source;			/* what named it, when more than the origin
					 * says (an ld.so.conf file), malloc'd, or NULL */
	dev_t dev;			/* the directory, so that one reached through */
	ino_t ino;			/* several names is one candidate */
	bool has_lib;			/* libcuda.so.1 found and is ELF */
	char lib_problem[128];		/* why not, or "" */
	int elf_class, elf_machine;
	bool has_note;
	struct compat_note note;
	char note_problem[128];		/* a note there but unreadable: why, or "";
					 * the package is then judged as one without */
	unsigned char note_past;	/* bytes its descriptor ran past its section,
					 * read cut (elfread_find_note), or 0 */
	bool has_lib_driver;		/* driver version from the file name */
	struct driver_version lib_driver;
	bool has_ptxjit;		/* libnvidia-ptxjitcompiler.so.1 beside libcuda */
	int stated_cuda;		/* stated by the user (config cuda=X.Y); 0 none */
	int cuda;			/* 0 if nothing tells */
	const char *cuda_from;		/* "note", "stated", "directory", "store name",
					 * "version file", "file name" (the guess), or NULL */
	bool orin_only;			/* compat_orin: CUDA 13 for Orin */
	struct verdict verdict;		/* set by verdict_load(), or none */
	bool unknown;			/* set by decide(): the tables do not know it */
	bool needs_word;		/* set by decide(): the tables allow it, but a
					 * GPU here only the driver can judge */
	bool arch_refused;		/* set by decide(): a GPU's architecture ended at an older branch */
	bool usable;			/* set by decide() */
	char reason[320];		/* set by decide() */
};

/* Bounds on what one start may look at (cudaload(1), Bounds): packages
 * kept, directories listed to expand the patterns (a symbolic link to "."
 * under a wildcard would otherwise multiply the work at every level), and
 * the entries read from them in all (a directory of 40,000 leftovers cost
 * 130 MB and seconds per start when only the packages were bounded).
 * What is past them is said as a miss, once. */
#define COMPAT_MAX_CANDIDATES 256
#define COMPAT_MAX_LISTINGS 256
#define COMPAT_MAX_ENTRIES 16384

/* A configured place that gave no candidate, for --explain and the trace. */
#define COMPAT_MAX_MISSES 16
struct compat_miss {
	const char *entry;		/* as configured (not copied) */
	const char *origin;		/* "CUDALOAD_COMPAT_PATH", "config", "default" */
	const char *why;		/* "does not exist", "matched nothing", ... */
};

struct candidates {
	struct candidate *v;
	size_t n, cap;
	struct compat_miss miss[COMPAT_MAX_MISSES];
	int n_miss;
	bool full;			/* COMPAT_MAX_CANDIDATES reached, said once */
};

/* Read one directory into c (dir as on the target, looked up under root).
 * -1 only when out of memory (c->dir NULL then). */
int compat_examine(const char *root, const char *dir, const char *origin,
		   struct candidate *c);

/* (Re)settle c->cuda and c->cuda_from from the sources, most trusted
 * first; call again after setting c->stated_cuda. */
void compat_settle_cuda(const char *root, struct candidate *c);

/* Add the directory dir (as on the target) as a candidate unless it is one
 * already, by name or by identity.  1 added, 0 already there, not a
 * directory or past COMPAT_MAX_CANDIDATES, -1 out of memory. */
int compat_add(const char *root, const char *dir, const char *origin, struct candidates *out);

/* Candidates from explicit dirs first, then glob patterns; duplicates and
 * non-directories dropped.  -1 only when out of memory. */
int compat_discover(const char *root, const char *const *dirs, int n_dirs,
		    const char *const *patterns, int n_patterns, const char *pattern_origin,
		    struct candidates *out);

/* Drop the candidates from index n on (what reach added for one program). */
void compat_truncate(struct candidates *c, size_t n);

void compat_free(struct candidates *c);

/* What a note read despite its shape had amiss (a descriptor cut to its
 * section, a trailing comma), in words, into buf; NULL when nothing. */
const char *compat_note_remark(const struct candidate *c, char *buf, size_t cap);

/* Version of "cuda-X.Y" in a path, or 0. */
int compat_dir_cuda(const char *dir);

/* Version of a Nix store name in a path, "<hash>-cuda_compat-X.Y[.build]"
 * (nixpkgs' cuda_compat has no cuda-X.Y directory), or 0. */
int compat_store_cuda(const char *dir);

/* What the config states ("compat = DIR cuda=X.Y"): for each candidate that
 * matches patterns[i] with cuda[i] > 0 (the first such), that version as
 * stated_cuda, and the version settled again. */
void compat_apply_stated(const char *root, struct candidates *c, const char *const *patterns,
			 const int *cuda, int n);

#endif
