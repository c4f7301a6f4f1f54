/* SPDX-License-Identifier: MIT */
/*
 * closure: does anything a program loads use CUDA?
 *
 * Resolves a program's DT_NEEDED closure the way glibc's ld.so would, but
 * inside an image root (a Jetson root file system, or "/"): a name with a
 * slash as it is; else the DT_RPATH of the needing object and of the ones
 * that loaded it (each only without a DT_RUNPATH, and only when the needing
 * object has none), its DT_RUNPATH, the directories of the image's
 * etc/ld.so.conf (and what it includes: what ld.so.cache would hold), then
 * the default directories for the machine.  $ORIGIN, $LIB and $PLATFORM are
 * expanded; symbolic links resolve inside the root; a library of another
 * class or machine is passed over, as ld.so does.  LD_LIBRARY_PATH is not
 * looked at: it is the environment of a run, not of the image.
 *
 * Each library is judged once per closure object by the caller's rule (a
 * cache of resolved paths), so a walk over an image reads each library
 * once; the program itself is not (its caller judged it already).  What a library's closure holds is kept from the first program
 * that reached it (a DT_RPATH inherited from another loader could in
 * principle find other files: rare, and only ever adds a library).
 */
#ifndef CUDALOAD_CLOSURE_H
#define CUDALOAD_CLOSURE_H

#include <stddef.h>

/* The caller's rule for one library, an open file at path (as on this
 * machine, root joined): 1 it uses CUDA, with what says so in why
 * ("dlopens libcuda.so", "libcudart.so.12"); 0 it does not; -1 it cannot
 * be read as ELF. */
typedef int (*closure_judge)(void *ctx, int fd, const char *path, char *why, size_t cap);

struct closure;

/* root "" or "/" for this machine.  NULL when out of memory. */
struct closure *closure_new(const char *root, closure_judge judge, void *ctx);
void closure_free(struct closure *c);

/* Does a library in the closure of the program at path (as on this
 * machine, under the root) use CUDA?  1 with the chain in why ("through
 * libbar.so.1 > libavutil.so.57 (dlopens libcuda.so)"), 0 no (also when
 * the program cannot be read: the caller judged it already), -1 out of
 * memory. */
int closure_uses_cuda(struct closure *c, const char *path, char *why, size_t cap);

/* Libraries read so far (for -v and the benchmark). */
size_t closure_libraries(const struct closure *c);

/* path in the image (absolute, below the root) resolved through symbolic
 * links inside the root into out, as the image names it.  0, or -errno. */
int closure_resolve(const char *root, const char *path, char *out, size_t cap);

#endif
