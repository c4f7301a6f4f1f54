/* SPDX-License-Identifier: MIT */
/*
 * ocihook: `cudaload --oci-hook`, an OCI createContainer hook (podman's
 * hooks.d, a CDI spec's hooks; docs/containers.md).
 *
 * For a container nobody patched, it judges the image's compat packages
 * against the live host with the judgement a start makes, then makes the
 * container's dynamic loader agree: the chosen package first (an
 * ld.so.conf.d entry that sorts before the others, and ld.so.cache made
 * anew by the host's static ldconfig run inside the image), every other
 * package hidden under an empty read-only tmpfs mounted over its directory
 * in the container's mount namespace, whatever names it there
 * (ld.so.conf.d, ld.so.cache, LD_LIBRARY_PATH, a RUNPATH).  What it found
 * and did goes into the container's /run/cudaload/oci-hook.
 *
 * Inputs: the OCI state on stdin (bundle, id), the bundle's config.json
 * (root.path, linux.devices' /dev/nvidiaN nodes: the container's GPUs,
 * else those in its /dev, else all; process.env's LD_LIBRARY_PATH,
 * CONDA_PREFIX, CUDA_HOME, CUDA_PATH), the host as a start sees it
 * (CUDALOAD_ROOT fakes it), the hook's CUDALOAD_* settings unless its
 * environment is the container's (a hook entry that names no env, under
 * runc).  Both JSON files are read whole within bounds by jsonread.h.
 *
 * The image is data: nothing of it runs.  It is read by children that
 * pivot into it, in a mount namespace of their own, with no capability but
 * reading, bounded in memory and time (image.h); the hook itself reaches
 * the image only through inroot.h, and writes or mounts only on the
 * image's own mount, never where a mount would propagate out of the
 * container.  The parts: bundle.h (what the runtime hands over), image.h
 * (the image and the children that read it), child.h (the judgement),
 * word.h (the judgement's word to the hook), edits.h (what the hook does,
 * and its undo).
 *
 * Never worse: whatever goes wrong (unreadable state, an image it cannot
 * judge, a hostile one, a mount or ldconfig that fails), what it did is
 * undone, one line says why on stderr, and it exits 0, so the container
 * starts as without it.  Only run as a command: a start never comes here.
 */
#ifndef CUDALOAD_OCIHOOK_H
#define CUDALOAD_OCIHOOK_H

/* The hook: 0 always (a hook's failure would stop the container). */
int ocihook_run(char **envp);

#endif
