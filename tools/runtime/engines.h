/* SPDX-License-Identifier: MIT */
/*
 * engines: `cudaload-runtime configure` and `unconfigure`, which register
 * cudaload-runtime with a container engine the way `nvidia-ctk runtime
 * configure` registers NVIDIA's runtime (docs/containers.md).
 *
 *   configure   --runtime=docker|containerd|crio|podman [--config=FILE] [--set-as-default]
 *   unconfigure --runtime=docker|containerd|crio|podman [--config=FILE]
 *
 * FILE is the engine's main configuration file (its default where not
 * given).  Every edit keeps the admin's other settings, keeps a backup, is
 * written atomically (atomicfile.h), changes nothing when run twice, and
 * unconfigure gives the files back byte for byte; each run says which
 * service to restart.
 */
#ifndef CUDALOAD_RUNTIME_ENGINES_H
#define CUDALOAD_RUNTIME_ENGINES_H

/* argv[0] is "configure" or "unconfigure"; self is this cudaload-runtime's
 * absolute path (what the engine is told to run).  The exit status. */
int engines_main(int argc, char **argv, const char *self);

#endif
