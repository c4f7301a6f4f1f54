/* SPDX-License-Identifier: MIT */
/* ELF files as cudaload reads them: header, program headers, PT_INTERP and
 * its record, the compat note, and the loader's symbol versions. */
#include <sys/mman.h>
#include <unistd.h>

#include "../../common/packages/compat.h"
#include "../../common/elf/elfread.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0)
		fd = memfd_create("fuzz-elf", 0);
	if (fd < 0 || ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	struct elf_file ef;
	struct elf_program prog;
	char why[128], desc[4096];
	unsigned past;
	if (elfread_open_fd(&ef, fd, why, sizeof why) == 0) {
		/* a descriptor is cut only a few bytes, and only one that is read */
		long got = elfread_find_note(&ef, COMPAT_NOTE_SECTION, COMPAT_NOTE_OWNER, desc, sizeof desc,
					     &past, why, sizeof why);
		if (past > 3 || (past && got <= 0))
			abort();
		if (elfread_read_program(&ef, &prog, why, sizeof why) == 0) {
			if (prog.n > ELF_MAX_PHDRS)
				abort();
			elfread_glibc_minor(&ef, prog.ph, prog.n);
			elfread_has_segment_note(&ef, prog.ph, prog.n, "cudaload", 0x434c);
		}
	}
	elfread_release(&ef);

	/* As the loader reads ld.so (a 1 KiB head) and libcuda (its header
	 * alone): what lies past the head is read on demand, within bounds. */
	unsigned char small[64], map[1024];
	struct elf_phdr ph[16];
	unsigned n;
	if (elfread_open_fd_head(&ef, fd, small, sizeof small, why, sizeof why) == 0)
		elfread_find_note(&ef, COMPAT_NOTE_SECTION, COMPAT_NOTE_OWNER, desc, sizeof desc, NULL, why, sizeof why);
	if (elfread_open_fd_head(&ef, fd, map, sizeof map, why, sizeof why) == 0 &&
	    elfread_read_phdrs(&ef, ph, 16, &n, why, sizeof why) == 0) {
		elfread_has_segment_note(&ef, ph, n, "cudaload", 0x434c);
		elfread_glibc_minor(&ef, ph, n);
	}
	return 0;
}
