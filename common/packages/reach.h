/* SPDX-License-Identifier: MIT */
/*
 * reach: every other libcuda.so.1 the process can reach, judged as a
 * candidate or known for the system driver (docs/design.md §5).
 *
 * compat.c finds packages where they are configured (CUDALOAD_COMPAT_PATH,
 * the config, /usr/local/cuda-*).  Packages also live where people install
 * them, and whatever the process could load must be judged or held (pin.h).
 * This adds, in this order (on a tie in CUDA version the earlier wins):
 *
 * - the program's own environment: PREFIX/cuda-compat for a program in
 *   PREFIX/bin (conda-forge's cuda-compat: conda, mamba, micromamba, pixi);
 * - CONDA_PREFIX's cuda-compat, unless the program lives in an environment
 *   of its own (PREFIX/conda-meta): each program gets its own environment's;
 * - each directory that names a libcuda.so.1 for ld.so, in ld.so's order:
 *   the program's DT_RPATH, LD_LIBRARY_PATH, its DT_RUNPATH, and
 *   ld.so.cache's libcuda.so.1 entries (ldcache.h);
 * - the toolkit the program uses: compat/ beside the lib or lib64 of a
 *   libcudart that LD_LIBRARY_PATH or the RUNPATH reaches (Spack, Lmod,
 *   EasyBuild toolkits outside /usr/local), and CUDA_HOME's (else
 *   CUDA_PATH's) compat/.  The libcudart is the libcudart.so.N the program
 *   needs (a runtime install has no libcudart.so development link), else,
 *   for a program that needs none itself, that link;
 * - with conf, each directory an ld.so.conf line names, whose libcuda.so.1
 *   the next ldconfig puts into the cache;
 * - NGC's compat/lib.real in place of a compat/ without libcuda.so.1 (the
 *   image's start-up script links compat/lib to it, or not).
 *
 * A search-path or cache directory whose libcuda.so.1 links into another
 * directory (an environment's lib/ linked to its cuda-compat/) stands for
 * the package there: one package, one candidate, whatever names reach it.
 *
 * A directory whose libcuda is the system driver is no candidate: a host
 * driver or library directory, or one whose libcuda.so.1 is
 * libcuda.so.<the kernel module's version> (Apptainer's /.singularity.d/libs,
 * the toolkit's /usr/local/nvidia/lib64, a driver named only in
 * LD_LIBRARY_PATH).  Such a directory that holds only NVIDIA's files becomes
 * a host driver directory, and so its own pin.
 *
 * Called only where there is a driver to protect: a host without one pays
 * nothing.  In secure mode the caller passes no environment (ld.so ignores
 * LD_LIBRARY_PATH there, and a user must not steer a set-id program).
 */
#ifndef CUDALOAD_REACH_H
#define CUDALOAD_REACH_H

#include <stdbool.h>
#include <stddef.h>

#include "compat.h"
#include "../host/probe.h"

struct reach {
	const char *root;
	int machine;			/* the program's */
	const char *program;		/* absolute, as on this machine, or NULL */
	const char *own_name;		/* under a root: the name the program was run
					 * by, as written, for its own environment (as
					 * on the target, where the host's links are
					 * not); NULL: program */
	const char *rpath, *runpath;	/* the program's, or NULL */
	const char *cudart;		/* the libcudart.so.N it needs, or NULL */
	const char *llp;		/* LD_LIBRARY_PATH; NULL in secure mode */
	const char *conda_prefix;	/* NULL in secure mode or unset */
	const char *cuda_home;		/* CUDA_HOME, else CUDA_PATH; NULL likewise */
	const char *cuda_home_from;	/* which of the two */
	bool explain;			/* also find the ld.so.conf file of a cache entry */
	bool conf;			/* also what each ld.so.conf line names: what
					 * the next ldconfig puts into the cache (an
					 * image judged before its ldconfig runs) */
};

/* Add what r reaches to c; system driver directories found on the way go
 * into h->driver_dirs.  -1 only when out of memory. */
int reach_discover(const struct reach *r, struct host *h, struct candidates *c);

/* reach_discover for a program as it lies in a root (path as on the
 * target): its own environment, its DT_RPATH and DT_RUNPATH read from the
 * file, ld.so.cache; no environment, as for a program of cudaload-patch's
 * record, which runs who knows how (--status, --verify). */
int reach_discover_program(const char *root, int machine, const char *path, struct host *h,
			   struct candidates *c);

/* The program's own environment's package: PREFIX/cuda-compat (as on the
 * target) into out for a program in PREFIX/bin; false for one elsewhere,
 * or when it does not fit. */
bool reach_own_env(const char *program, char *out, size_t cap);

/* Does the directory (as on the target) hold NVIDIA's driver files only
 * (libcuda*, libnvidia-* ...): a driver or package directory, which
 * nothing else needs? */
bool reach_nvidia_only(const char *root, const char *dir);

/* Where a candidate was found, said for people: "from LD_LIBRARY_PATH". */
const char *reach_origin_text(const char *origin);

/* The program's DT_RPATH and DT_RUNPATH from its image as the kernel mapped
 * it (phdr: its program headers in memory), and the first DT_NEEDED that
 * is a libcudart.so.N (cudart may be NULL): pointers into the image, or
 * NULL when it has none.  -1 when the image cannot tell (no PT_PHDR, a
 * table outside the mapped segments). */
int reach_paths_from_memory(const void *phdr, size_t phnum, size_t phent, const char **rpath,
			    const char **runpath, const char **cudart);

/* The newest GLIBC_2.N the program's DT_VERNEED asks of libc.so.6, from its
 * image as the kernel mapped it: N, or 0 when it asks none or the image
 * cannot tell.  The glibc that runs the program is at least that new, and
 * its ld.so with it (one build); from LDSO_ARGV0_GLIBC_MINOR on it takes
 * --argv0 (ldso.h), which exec mode then knows without reading the
 * loader's file. */
int reach_glibc_floor(const void *phdr, size_t phnum, size_t phent);

/* Room for a libcudart soname ("libcudart.so.11.0"); a longer one is none. */
#define REACH_CUDART_MAX 32

/* The same from the program's file, into rpath and runpath (cap bytes
 * each) and cudart (REACH_CUDART_MAX bytes, "" for none; may be NULL).  -1
 * when it cannot be read. */
int reach_paths_from_file(const char *program, char *rpath, char *runpath, char *cudart,
			  size_t cap);

#endif
