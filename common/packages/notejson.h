/* SPDX-License-Identifier: MIT */
/*
 * notejson: the JSON descriptor of NVIDIA's .note.cuda.fwd_compatibility,
 * and the CUDA version in a toolkit's version.json.
 *
 *   {"format":1,"CUDA version":"12.9","driver":[535,550,570],"device":[...]}
 *
 * A small strict parser for one object: keys are matched ignoring case,
 * unknown keys and nested values are skipped, depth and lengths are bounded.
 * Anything that is not well-formed JSON is rejected with a reason, but for
 * one comma after the note's last member (NVIDIA shipped an Orin CUDA 13.2
 * note so): taken, and trailing_comma set for the caller to say.
 */
#ifndef CUDALOAD_NOTEJSON_H
#define CUDALOAD_NOTEJSON_H

#include <stdbool.h>
#include <stddef.h>

#define NOTE_MAX_DRIVERS 64

struct compat_note {
	int format;			/* 0 when absent */
	int cuda;			/* "CUDA version", version.h encoding; 0 when absent */
	bool has_drivers;		/* a "driver" list was present */
	int drivers[NOTE_MAX_DRIVERS];	/* host driver branches the compat supports */
	int n_drivers;
	bool has_devices;		/* a "device" list of numbers was present */
	int devices[NOTE_MAX_DRIVERS];	/* NVML brand numbers (tables_gpu_brand) */
	int n_devices;
	bool trailing_comma;		/* the object ended in ",}" (taken) */
};

/* Parse len bytes of text.  0, or -1 with a reason in why. */
int notejson_parse(const char *text, size_t len, struct compat_note *out,
		   char *why, size_t whycap);

/* The CUDA version of a toolkit's version.json,
 *   {"cuda": {"name": "CUDA SDK", "version": "12.2.140"}, "cuda_cccl": ...}
 * read with the same strict parser: a file that is not one whole JSON
 * object (cut short by a full disk or an interrupted copy) gives no version.
 * The version (version.h encoding), 0 when a well-formed file names none,
 * -1 with a reason in why when it is malformed. */
int notejson_version_file(const char *text, size_t len, char *why, size_t whycap);

#endif
