/* SPDX-License-Identifier: MIT */
/* cudaload-patch's ELF checks and edits.  Beyond not crashing, one property:
 * whatever it agrees to patch, it restores byte for byte. */
#include "../../tools/patch/elfpatch.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready) {
		elfpatch_init();
		ready = 1;
	}
	unsigned char *img = malloc(size ? size : 1);
	struct elf_facts f;
	struct patch_plan plan;
	char why[256];
	if (!img)
		return 0;
	memcpy(img, data, size);
	if (elfpatch_inspect(img, size, &f, why, sizeof why) == 0 && f.kind == FOUND_DYNAMIC &&
	    !f.recorded[0] && elfpatch_plan_patch(img, size, "/usr/bin/cudaload", &plan, why, sizeof why) == 0) {
		size_t plen = (size_t)patch_plan_size(&plan);
		/* a poked bss can ask for tens of MiB of padding: legitimate, slow */
		unsigned char *patched = plen < (8u << 20) ? patch_plan_render(img, &plan) : NULL;
		patch_plan_free(&plan);
		if (patched && plen != size) {
			struct patch_plan back;
			if (elfpatch_plan_restore(patched, plen, &back, why, sizeof why) != 0)
				abort();	/* a patch we cannot undo */
			unsigned char *restored = patch_plan_render(patched, &back);
			if (!restored || patch_plan_size(&back) != size || memcmp(restored, data, size) != 0)
				abort();	/* an undo that is not byte for byte */
			patch_plan_free(&back);
			free(restored);
		}
		free(patched);
	}
	if (elfpatch_plan_restore(img, size, &plan, why, sizeof why) == 0)
		patch_plan_free(&plan);
	if (elfpatch_plan_force_restore(img, size, &plan, why, sizeof why) == 0) {
		unsigned char *forced = patch_plan_render(img, &plan);
		struct elf_facts ff;
		/* the original interpreter is back and nothing is recorded */
		if (forced && (elfpatch_inspect(forced, size, &ff, why, sizeof why) != 0 ||
			       ff.recorded[0] || strcmp(ff.interp, f.recorded) != 0))
			abort();
		free(forced);
		patch_plan_free(&plan);
	}
	free(img);
	return 0;
}
