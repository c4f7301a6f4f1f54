/* SPDX-License-Identifier: MIT */
/*
 * pysite: is a Python interpreter a CUDA program?
 *
 * On a Jetson the CUDA workload is usually a Python script: the program
 * started is python3.X, and CUDA comes from the packages it imports
 * (NVIDIA's PyTorch wheel with torch/lib/libtorch_cuda.so, the nvidia-*
 * wheels' cudart and cuBLAS, cupy, jaxlib's CUDA plugins, tensorrt).  So an
 * interpreter counts as a CUDA program when a site directory it imports
 * from holds a shared library that uses CUDA by the caller's rule:
 *
 *   /usr/lib/python3/dist-packages, /usr/lib/python3.X/{site,dist}-packages,
 *   /usr/local/lib/python3.X/{site,dist}-packages, its own prefix's
 *   PREFIX/lib/python3.X/site-packages for PREFIX/bin/python3.X (conda,
 *   mamba, micromamba and pixi environments, other prefixes), and the
 *   site-packages of every virtual environment whose pyvenv.cfg names this
 *   interpreter's directory as its home with the same version: those
 *   given by pysite_add_venv and, in an image (a root other than "/"),
 *   every one in it, searched once.
 *
 * Each directory is scanned once (sorted, a few levels deep, *.so and
 * *.so.N files only) and its answer kept.  Paths are in the image: the
 * root is joined for reading.
 */
#ifndef CUDALOAD_PYSITE_H
#define CUDALOAD_PYSITE_H

#include <stdbool.h>
#include <stddef.h>

#include "closure.h"

struct pysite;

struct pysite *pysite_new(const char *root, closure_judge judge, void *ctx);
void pysite_free(struct pysite *p);

/* Is path (any directory) named like a Python interpreter: "python3" or
 * "python3.12"?  The version ("3.12", or "3" alone) into version. */
bool pysite_is_python(const char *path, char *version, size_t cap);

/* A pyvenv.cfg met in a walk (as on this machine, under the root): its
 * home and version are kept for the interpreters it names.  0, or -1 when
 * out of memory (a file that says neither is passed over). */
int pysite_add_venv(struct pysite *p, const char *cfg);

/* Does the interpreter at path (as on this machine, under the root) import
 * from a directory holding a CUDA library?  1 with it in why ("through
 * /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so
 * (libcudart.so.12)"), 0 no, -1 out of memory. */
int pysite_uses_cuda(struct pysite *p, const char *path, char *why, size_t cap);

#endif
