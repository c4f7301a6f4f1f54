/* SPDX-License-Identifier: MIT */
/* The "uses CUDA" rule (usescuda.h): DT_NEEDED names, device code
 * sections, the driver's name in read-only data. */
#include "internal.h"

#include <elf.h>
#include <string.h>

/* DT_NEEDED prefixes that mark a file as using CUDA. */
static const char *const cuda_libs[] = {
	"libcuda.so", "libcudart.so", "libcublas", "libcudnn", "libcufft", "libcurand",
	"libcusparse", "libcusolver", "libnvrtc", "libnvinfer", "libnvonnxparser",
	"libnvparsers", "libnccl", "libnvjpeg", "libnpp", "libcupti", "libcudla",
	"libnvToolsExt", "libtorch_cuda", "libonnxruntime_providers_cuda",
};

/* What a program that dlopens the driver holds in its read-only data. */
#define DLOPEN_MARK "libcuda.so"

bool elfpatch_needed_is_cuda(const char *name)
{
	for (size_t i = 0; i < sizeof cuda_libs / sizeof cuda_libs[0]; i++)
		if (strncmp(name, cuda_libs[i], strlen(cuda_libs[i])) == 0)
			return true;
	return false;
}

static bool found(struct cuda_use *out, enum cuda_sign sign, const char *what, const char *name)
{
	out->sign = sign;
	snprintf(out->why, sizeof out->why, "%s%s", what, name);
	return true;
}

/* The first DT_NEEDED that names a CUDA library, through PT_DYNAMIC (works
 * on files whose section headers were stripped). */
static bool cuda_needed(const unsigned char *img, size_t len, const struct loaded *l,
			struct cuda_use *out)
{
	if (l->dynamic < 0)
		return false;
	const GElf_Phdr *d = &l->ph[l->dynamic];
	if (!in_image(len, d->p_offset, d->p_filesz))
		return false;
	Elf_Data *data = elf_getdata_rawchunk(l->elf, (int64_t)d->p_offset, d->p_filesz, ELF_T_DYN);
	size_t entsize = gelf_fsize(l->elf, ELF_T_DYN, 1, EV_CURRENT);
	if (!data || !entsize)
		return false;
	size_t n = d->p_filesz / entsize;
	uint64_t strtab = 0, strsz = 0, str_off;
	GElf_Dyn dyn;
	for (size_t i = 0; i < n && gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag != DT_NULL; i++) {
		if (dyn.d_tag == DT_STRTAB)
			strtab = dyn.d_un.d_ptr;
		else if (dyn.d_tag == DT_STRSZ)
			strsz = dyn.d_un.d_val;
	}
	if (!strtab || !vaddr_to_off(l, strtab, &str_off) || !in_image(len, str_off, strsz))
		return false;
	for (size_t i = 0; i < n && gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag != DT_NULL; i++) {
		if (dyn.d_tag != DT_NEEDED || dyn.d_un.d_val >= strsz)
			continue;
		const char *name = (const char *)img + str_off + dyn.d_un.d_val;
		if (memchr(name, '\0', strsz - dyn.d_un.d_val) && elfpatch_needed_is_cuda(name))
			return found(out, CUDA_SIGN_NEEDED, "", name);
	}
	return false;
}

/* Device code that static cudart (cuda-samples, CMake's default) embeds:
 * needs section headers. */
static bool cuda_device_code(const struct loaded *l, struct cuda_use *out)
{
	size_t shnum = 0, shstrndx;
	if (elf_getshdrnum(l->elf, &shnum) != 0 || !shnum || elf_getshdrstrndx(l->elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(l->elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(l->elf, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".nv_fatbin") == 0 || strcmp(name, ".nvFatBinSegment") == 0)
			return found(out, CUDA_SIGN_DEVICE_CODE, "device code in ", name);
	}
	return false;
}

/* The driver's name in read-only data: .rodata* with section headers, else
 * every read-only, non-executable PT_LOAD. */
static bool cuda_dlopen(const unsigned char *img, size_t len, const struct loaded *l,
			struct cuda_use *out)
{
	size_t shnum = 0, shstrndx;
	bool have_rodata = false;
	if (elf_getshdrnum(l->elf, &shnum) == 0 && shnum && elf_getshdrstrndx(l->elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(l->elf, scn));) {
			GElf_Shdr sh;
			const char *name;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(name = elf_strptr(l->elf, shstrndx, sh.sh_name)) || strncmp(name, ".rodata", 7) != 0)
				continue;
			have_rodata = true;
			if (in_image(len, sh.sh_offset, sh.sh_size) &&
			    memmem(img + sh.sh_offset, sh.sh_size, DLOPEN_MARK, sizeof DLOPEN_MARK - 1))
				return found(out, CUDA_SIGN_DLOPEN, "dlopens ", DLOPEN_MARK);
		}
	}
	if (have_rodata)
		return false;
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type != PT_LOAD || (p->p_flags & (PF_W | PF_X)) || !in_image(len, p->p_offset, p->p_filesz))
			continue;
		if (memmem(img + p->p_offset, p->p_filesz, DLOPEN_MARK, sizeof DLOPEN_MARK - 1))
			return found(out, CUDA_SIGN_DLOPEN, "dlopens ", DLOPEN_MARK);
	}
	return false;
}

void usescuda_loaded(const unsigned char *img, size_t len, const struct loaded *l,
		     unsigned checks, struct cuda_use *out)
{
	memset(out, 0, sizeof *out);
	if ((checks & USESCUDA_NEEDED) && cuda_needed(img, len, l, out))
		return;
	if ((checks & USESCUDA_DEVICE_CODE) && cuda_device_code(l, out))
		return;
	if (checks & USESCUDA_DLOPEN)
		cuda_dlopen(img, len, l, out);
}

int usescuda_image(unsigned char *img, size_t len, unsigned checks, struct cuda_use *out,
		   char *why, size_t whycap)
{
	struct loaded l;
	memset(out, 0, sizeof *out);
	if (len < SELFMAG || memcmp(img, ELFMAG, SELFMAG) != 0)
		return why_fail(why, whycap, "not an ELF file");
	int r = loaded_read(img, len, &l, why, whycap);
	if (r == 0)
		usescuda_loaded(img, len, &l, checks, out);
	loaded_free(&l);
	return r;
}
