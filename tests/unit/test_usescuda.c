/* SPDX-License-Identifier: MIT */
/* The "uses CUDA" rule (tools/patch/elfpatch/usescuda.h): each sign, the order they are
 * looked for in, and what inspect makes of them. */
#include "helpers.h"

#include "front_elf.h"
#include "../../tools/patch/elfpatch.h"
#include "../../tools/patch/elfpatch/usescuda.h"

static const enum fe_sec with_fatbin[] = { FE_INTERP, FE_NOTE, FE_GNU_HASH, FE_DYNSYM, FE_DYNSTR,
					   FE_RODATA, FE_FATBIN, FE_END };

static int judge(const struct front_spec *s, unsigned checks, struct cuda_use *u)
{
	struct front_elf e;
	char why[256] = "";
	front_elf_build(&e, s);
	elfpatch_init();
	int r = usescuda_image(e.buf, e.len, checks, u, why, sizeof why);
	cr_assert_eq(r, 0, "%s", why);
	return r;
}

Test(usescuda, a_cuda_library_in_dt_needed)
{
	struct cuda_use u;
	judge(&(struct front_spec){ .needed = "libcudart.so.12" }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NEEDED);
	cr_assert_str_eq(u.why, "libcudart.so.12");
	/* read through PT_DYNAMIC: stripped section headers do not hide it */
	judge(&(struct front_spec){ .needed = "libcublasLt.so.12", .no_section_headers = true },
	      USESCUDA_NEEDED, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NEEDED);
	cr_assert_str_eq(u.why, "libcublasLt.so.12");
	judge(&(struct front_spec){ .needed = "libcudata.so" }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NONE, "a prefix of a name, not of a word");
	cr_assert_str_eq(u.why, "");
}

Test(usescuda, device_code)
{
	struct cuda_use u;
	judge(&(struct front_spec){ .order = with_fatbin }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_DEVICE_CODE);
	cr_assert_str_eq(u.why, "device code in .nv_fatbin");
	judge(&(struct front_spec){ .order = with_fatbin }, USESCUDA_NEEDED | USESCUDA_DLOPEN, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NONE, "only the signs asked for");
	judge(&(struct front_spec){ .order = with_fatbin, .no_section_headers = true }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NONE, "a section's name needs section headers");
}

Test(usescuda, the_driver_named_in_read_only_data)
{
	struct cuda_use u;
	judge(&(struct front_spec){ .rodata = "x libcuda.so.1 y" }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_DLOPEN);
	cr_assert_str_eq(u.why, "dlopens libcuda.so");
	judge(&(struct front_spec){ .rodata = "x libcuda.so.1 y" }, USESCUDA_NEEDED | USESCUDA_DEVICE_CODE, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NONE);
	/* with .rodata there, only .rodata counts: the name in .dynstr (of a
	 * DT_NEEDED, not asked for here) is not a dlopen */
	judge(&(struct front_spec){ .needed = "libcuda.so.1x" }, USESCUDA_DLOPEN, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NONE);
	/* without section headers, every read-only segment is read */
	judge(&(struct front_spec){ .needed = "libcuda.so.1x", .no_section_headers = true },
	      USESCUDA_DLOPEN, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_DLOPEN);
}

Test(usescuda, the_first_sign_is_the_answer)
{
	struct cuda_use u;
	judge(&(struct front_spec){ .order = with_fatbin, .needed = "libnccl.so.2",
				    .rodata = "libcuda.so" }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NEEDED);
	cr_assert_str_eq(u.why, "libnccl.so.2");
	judge(&(struct front_spec){ .order = with_fatbin, .rodata = "libcuda.so" }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_DEVICE_CODE);
	judge(&(struct front_spec){ 0 }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NONE);
}

Test(usescuda, a_long_name_is_cut_to_fit)
{
	static const char longname[] = "libcudart.so.12.this.name.goes.on.and.on.and.on.well.past.sixty.four";
	struct cuda_use u;
	judge(&(struct front_spec){ .needed = longname }, USESCUDA_ALL, &u);
	cr_assert_eq(u.sign, CUDA_SIGN_NEEDED);
	cr_assert_eq(strlen(u.why), sizeof u.why - 1);
	cr_assert_eq(strncmp(u.why, longname, sizeof u.why - 1), 0);
}

Test(usescuda, not_an_elf_file)
{
	struct cuda_use u;
	char why[256];
	unsigned char text[] = "#!/bin/sh\n";
	elfpatch_init();
	cr_assert_eq(usescuda_image(text, sizeof text - 1, USESCUDA_ALL, &u, why, sizeof why), -1);
	cr_assert_str_eq(why, "not an ELF file");
	cr_assert_eq(u.sign, CUDA_SIGN_NONE);
	struct front_elf e;
	front_elf_build(&e, &(struct front_spec){ 0 });
	cr_assert_eq(usescuda_image(e.buf, 40, USESCUDA_ALL, &u, why, sizeof why), -1);
	cr_assert_str_eq(why, "truncated ELF header");
}

/* What inspect reports: a program's own signs count, a library's only what
 * it links (it is never patched; a caller judging libraries asks itself). */
Test(usescuda, what_inspect_reports)
{
	struct front_elf e;
	struct elf_facts f;
	char why[256];
	elfpatch_init();
	front_elf_build(&e, &(struct front_spec){ .order = with_fatbin });
	cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), 0, "%s", why);
	cr_assert_eq(f.kind, FOUND_DYNAMIC);
	cr_assert(f.uses_cuda);
	cr_assert_str_eq(f.cuda_lib, "device code in .nv_fatbin");

	front_elf_build(&e, &(struct front_spec){ .order = with_fatbin, .no_interp = true, .type = ET_DYN });
	cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), 0, "%s", why);
	cr_assert_eq(f.kind, FOUND_LIBRARY);
	cr_assert(!f.uses_cuda);
	cr_assert_str_eq(f.cuda_lib, "");

	front_elf_build(&e, &(struct front_spec){ .no_interp = true, .type = ET_DYN, .needed = "libcudnn.so.9" });
	cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), 0, "%s", why);
	cr_assert(f.uses_cuda);
	cr_assert_str_eq(f.cuda_lib, "libcudnn.so.9");

	struct cuda_use u;
	front_elf_build(&e, &(struct front_spec){ .order = with_fatbin, .no_interp = true, .type = ET_DYN });
	cr_assert_eq(usescuda_image(e.buf, e.len, USESCUDA_ALL, &u, why, sizeof why), 0, "%s", why);
	cr_assert_eq(u.sign, CUDA_SIGN_DEVICE_CODE, "judged on its own, the library's device code counts");
}
