/* SPDX-License-Identifier: MIT */
#include "elfpatch.h"

#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../common/elfread.h"
#include "../common/identity.h"
#include "../common/record.h"

#define TRAILER_MAGIC "CLREST01"	/* 8 bytes */
#define TRAILER_MAGIC_LEN 8
#define MAX_PADDING (64u << 20)		/* growing past a huge bss is refused */
#define DEFAULT_ALIGN 0x1000

/* DT_NEEDED prefixes that mark a program as a CUDA program. */
static const char *const cuda_libs[] = {
	"libcuda.so", "libcudart.so", "libcublas", "libcudnn", "libcufft", "libcurand",
	"libcusparse", "libcusolver", "libnvrtc", "libnvinfer", "libnvonnxparser",
	"libnvparsers", "libnccl", "libnvjpeg", "libnpp", "libcupti", "libcudla",
	"libnvToolsExt", "libtorch_cuda", "libonnxruntime_providers_cuda",
};

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -1;
}

void elfpatch_init(void)
{
	elf_version(EV_CURRENT);
}

bool elfpatch_needed_is_cuda(const char *name)
{
	for (size_t i = 0; i < sizeof cuda_libs / sizeof cuda_libs[0]; i++)
		if (strncmp(name, cuda_libs[i], strlen(cuda_libs[i])) == 0)
			return true;
	return false;
}

/* ---- the restore trailer -------------------------------------------------
 * "CLREST01" u64 orig_size u64 orig_hash u32 n { u64 off u32 len bytes[len] }*n
 * u64 start "CLREST01", all little-endian whatever the ELF's byte order.
 * orig_hash (FNV-1a) lets --restore prove it gives back the original. */

#define HEAD_LEN (TRAILER_MAGIC_LEN + 20)	/* magic, size, hash, count */

#define FNV_START 0xcbf29ce484222325ULL

/* Hash of the file a plan produces, without producing it. */
static uint64_t plan_hash(const unsigned char *img, const struct patch_plan *plan);

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* FNV-1a over 64-bit little-endian words (then the odd bytes): as strong a
 * check as byte-wise FNV for this purpose, eight times fewer multiplies.
 * Pieces hashed in turn must split at multiples of 8 to give the same sum,
 * so plan_hash feeds it through a small carry buffer. */
static uint64_t fnv1a_words(uint64_t h, const unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		h = (h ^ get_le(p + i, 8)) * 0x100000001b3ULL;
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

struct hasher {
	uint64_t h;
	unsigned char carry[8];
	size_t nc;
};

static void hash_feed(struct hasher *hs, const unsigned char *p, size_t n)
{
	while (n && hs->nc) {	/* complete a word left over from the last piece */
		hs->carry[hs->nc++] = *p++;
		n--;
		if (hs->nc == 8) {
			hs->h = fnv1a_words(hs->h, hs->carry, 8);
			hs->nc = 0;
		}
	}
	if (hs->nc)
		return;	/* the piece was used up completing the carried word */
	size_t whole = n & ~(size_t)7;
	hs->h = fnv1a_words(hs->h, p, whole);
	memcpy(hs->carry, p + whole, n - whole);
	hs->nc = n - whole;
}

static uint64_t hash_end(struct hasher *hs)
{
	return fnv1a_words(hs->h, hs->carry, hs->nc);
}
/* Parse the trailer; fills plan edits (copies) when plan is not NULL. */
static int trailer_read(const unsigned char *img, size_t len, uint64_t *orig_size,
			uint64_t *start_out, struct patch_plan *plan)
{
	if (len < 16 + HEAD_LEN ||
	    memcmp(img + len - TRAILER_MAGIC_LEN, TRAILER_MAGIC, TRAILER_MAGIC_LEN) != 0)
		return -1;
	uint64_t start = get_le(img + len - 16, 8);
	if (start > len - 16 - HEAD_LEN ||
	    memcmp(img + start, TRAILER_MAGIC, TRAILER_MAGIC_LEN) != 0)
		return -1;
	const unsigned char *p = img + start + TRAILER_MAGIC_LEN, *end = img + len - 16;
	uint64_t orig = get_le(p, 8);
	if (plan)
		plan->orig_hash = get_le(p + 8, 8);
	uint32_t n = (uint32_t)get_le(p + 16, 4);
	p += 20;
	if (orig > start || n > PLAN_MAX_EDITS)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (end - p < 12)
			return -1;
		uint64_t off = get_le(p, 8);
		uint32_t elen = (uint32_t)get_le(p + 8, 4);
		p += 12;
		if ((uint64_t)(end - p) < elen || off > orig || elen > orig - off)
			return -1;
		if (plan) {
			struct plan_edit *e = &plan->edits[plan->n_edits];
			e->bytes = malloc(elen ? elen : 1);
			if (!e->bytes)
				return -1;
			memcpy(e->bytes, p, elen);
			e->off = off;
			e->len = elen;
			plan->n_edits++;
		}
		p += elen;
	}
	if (p != end)
		return -1;
	*orig_size = orig;
	if (start_out)
		*start_out = start;
	return 0;
}

/* A trailer recording the original bytes under each edit. */
static unsigned char *trailer_make(const unsigned char *img, uint64_t orig_size,
				   const struct patch_plan *plan, uint64_t start, size_t *out_len)
{
	size_t n = HEAD_LEN + 8 + TRAILER_MAGIC_LEN;
	for (int i = 0; i < plan->n_edits; i++)
		n += 12 + plan->edits[i].len;
	unsigned char *t = malloc(n), *p = t;
	if (!t)
		return NULL;
	memcpy(p, TRAILER_MAGIC, TRAILER_MAGIC_LEN);
	put_le(p + 8, orig_size, 8);
	struct hasher hs = { FNV_START, { 0 }, 0 };
	hash_feed(&hs, img, orig_size);
	put_le(p + 16, hash_end(&hs), 8);
	put_le(p + 24, (uint64_t)plan->n_edits, 4);
	p += HEAD_LEN;
	for (int i = 0; i < plan->n_edits; i++) {
		put_le(p, plan->edits[i].off, 8);
		put_le(p + 8, plan->edits[i].len, 4);
		memcpy(p + 12, img + plan->edits[i].off, plan->edits[i].len);
		p += 12 + plan->edits[i].len;
	}
	put_le(p, start, 8);
	memcpy(p + 8, TRAILER_MAGIC, TRAILER_MAGIC_LEN);
	*out_len = n;
	return t;
}

/* ---- reading ------------------------------------------------------------ */

struct loaded {
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Phdr *ph;
	size_t phnum;
	int interp;	/* index of PT_INTERP or -1 */
	int dynamic;
};

static void loaded_free(struct loaded *l)
{
	free(l->ph);
	if (l->elf)
		elf_end(l->elf);
	memset(l, 0, sizeof *l);
}

static bool in_image(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

static int load(unsigned char *img, size_t len, struct loaded *l, char *why, size_t cap)
{
	memset(l, 0, sizeof *l);
	l->interp = l->dynamic = -1;
	/* what libelf would only call "invalid", said precisely */
	if (len < EI_NIDENT)
		return fail(why, cap, "truncated ELF header");
	if (img[EI_CLASS] != ELFCLASS32 && img[EI_CLASS] != ELFCLASS64)
		return fail(why, cap, "unknown ELF class %u", img[EI_CLASS]);
	if (img[EI_DATA] != ELFDATA2LSB && img[EI_DATA] != ELFDATA2MSB)
		return fail(why, cap, "unknown ELF byte order %u", img[EI_DATA]);
	if (len < (img[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return fail(why, cap, "truncated ELF header");
	l->elf = elf_memory((char *)img, len);
	if (!l->elf || elf_kind(l->elf) != ELF_K_ELF)
		return fail(why, cap, "not a valid ELF file (%s)", elf_errmsg(-1));
	if (!gelf_getehdr(l->elf, &l->eh))
		return fail(why, cap, "truncated or bad ELF header (%s)", elf_errmsg(-1));
	/* libelf quietly drops tables it cannot read; check the raw header first */
	if (l->eh.e_phnum && l->eh.e_phnum != PN_XNUM &&
	    !in_image(len, l->eh.e_phoff, (uint64_t)l->eh.e_phnum * l->eh.e_phentsize))
		return fail(why, cap, "program headers lie outside the file");
	if ((!l->eh.e_shoff && l->eh.e_shnum) ||	/* a count without a table */
	    (l->eh.e_shoff &&
	    (l->eh.e_shentsize != gelf_fsize(l->elf, ELF_T_SHDR, 1, EV_CURRENT) ||
	     !in_image(len, l->eh.e_shoff, (uint64_t)(l->eh.e_shnum ? l->eh.e_shnum : 1) * l->eh.e_shentsize))))
		return fail(why, cap, "section headers lie outside the file or have a bad size");
	if (elf_getphdrnum(l->elf, &l->phnum) != 0)
		return fail(why, cap, "bad program header count (%s)", elf_errmsg(-1));
	/* Section headers are rewritten too (.interp): they must be sound. */
	size_t shnum;
	if (elf_getshdrnum(l->elf, &shnum) != 0)
		return fail(why, cap, "bad section header count (%s)", elf_errmsg(-1));
	size_t shentsize = gelf_fsize(l->elf, ELF_T_SHDR, 1, EV_CURRENT);
	if (shnum && (l->eh.e_shentsize != shentsize ||
		      !in_image(len, l->eh.e_shoff, (uint64_t)shnum * shentsize)))
		return fail(why, cap, "section headers lie outside the file or have a bad size");
	if (l->phnum == 0)
		return 0;
	size_t entsize = gelf_fsize(l->elf, ELF_T_PHDR, 1, EV_CURRENT);
	if (l->eh.e_phentsize != entsize)
		return fail(why, cap, "program header entry size %u, expected %zu",
			    (unsigned)l->eh.e_phentsize, entsize);
	if (!in_image(len, l->eh.e_phoff, (uint64_t)l->phnum * entsize))
		return fail(why, cap, "program headers lie outside the file");
	l->ph = calloc(l->phnum, sizeof *l->ph);
	if (!l->ph)
		return fail(why, cap, "out of memory");
	for (size_t i = 0; i < l->phnum; i++) {
		if (!gelf_getphdr(l->elf, (int)i, &l->ph[i]))
			return fail(why, cap, "cannot read program header %zu (%s)", i, elf_errmsg(-1));
		if (l->ph[i].p_type == PT_LOAD && !in_image(len, l->ph[i].p_offset, l->ph[i].p_filesz))
			return fail(why, cap, "segment %zu lies outside the file (truncated?)", i);
		if (l->ph[i].p_type == PT_INTERP && l->interp < 0)
			l->interp = (int)i;
		if (l->ph[i].p_type == PT_DYNAMIC && l->dynamic < 0)
			l->dynamic = (int)i;
	}
	return 0;
}

static bool vaddr_to_off(const struct loaded *l, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr && vaddr - p->p_vaddr < p->p_filesz) {
			*off = p->p_offset + (vaddr - p->p_vaddr);
			return true;
		}
	}
	return false;
}

/* First DT_NEEDED that names a CUDA library, through PT_DYNAMIC (works on
 * files whose section headers were stripped). */
static void find_cuda_needed(const unsigned char *img, size_t len, const struct loaded *l,
			     struct elf_facts *out)
{
	const GElf_Phdr *d = &l->ph[l->dynamic];
	if (!in_image(len, d->p_offset, d->p_filesz))
		return;
	Elf_Data *data = elf_getdata_rawchunk(l->elf, (int64_t)d->p_offset, d->p_filesz, ELF_T_DYN);
	size_t entsize = gelf_fsize(l->elf, ELF_T_DYN, 1, EV_CURRENT);
	if (!data || !entsize)
		return;
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
		return;
	for (size_t i = 0; i < n && gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag != DT_NULL; i++) {
		if (dyn.d_tag != DT_NEEDED || dyn.d_un.d_val >= strsz)
			continue;
		const char *name = (const char *)img + str_off + dyn.d_un.d_val;
		if (!memchr(name, '\0', strsz - dyn.d_un.d_val))
			continue;
		if (elfpatch_needed_is_cuda(name)) {
			out->uses_cuda = true;
			snprintf(out->cuda_lib, sizeof out->cuda_lib, "%s", name);
			return;
		}
	}
}

/* Is this cudaload itself (its identity note, see identity.h)? */
static bool is_cudaload(const unsigned char *img, size_t len, const struct loaded *l)
{
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type != PT_NOTE || !in_image(len, p->p_offset, p->p_filesz))
			continue;
		Elf_Data *data = elf_getdata_rawchunk(l->elf, (int64_t)p->p_offset, p->p_filesz, ELF_T_NHDR);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off, next;
		while (data && off < data->d_size &&
		       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == IDENTITY_NOTE_TYPE && nh.n_namesz == sizeof IDENTITY_NOTE_OWNER &&
			    memcmp((const char *)data->d_buf + name_off, IDENTITY_NOTE_OWNER,
				   sizeof IDENTITY_NOTE_OWNER) == 0)
				return true;
			off = next;
		}
	}
	(void)img;
	return false;
}

/* Programs with no CUDA library in DT_NEEDED: static cudart (cuda-samples,
 * CMake's default) embeds device code in .nv_fatbin / .nvFatBinSegment;
 * a program that only dlopens the driver holds the name in read-only data.
 * Read-only data is .rodata* with section headers, else every read-only,
 * non-executable PT_LOAD. */
#define DLOPEN_MARK "libcuda.so"

static void find_cuda_other(const unsigned char *img, size_t len, const struct loaded *l,
			    struct elf_facts *out)
{
	size_t shnum = 0, shstrndx;
	bool have_rodata = false;
	if (elf_getshdrnum(l->elf, &shnum) == 0 && shnum && elf_getshdrstrndx(l->elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(l->elf, scn));) {
			GElf_Shdr sh;
			const char *name;
			if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(l->elf, shstrndx, sh.sh_name)))
				continue;
			if (strcmp(name, ".nv_fatbin") == 0 || strcmp(name, ".nvFatBinSegment") == 0) {
				out->uses_cuda = true;
				snprintf(out->cuda_lib, sizeof out->cuda_lib, "device code in %s", name);
				return;
			}
		}
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(l->elf, scn));) {
			GElf_Shdr sh;
			const char *name;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(name = elf_strptr(l->elf, shstrndx, sh.sh_name)) || strncmp(name, ".rodata", 7) != 0)
				continue;
			have_rodata = true;
			if (in_image(len, sh.sh_offset, sh.sh_size) &&
			    memmem(img + sh.sh_offset, sh.sh_size, DLOPEN_MARK, sizeof DLOPEN_MARK - 1)) {
				out->uses_cuda = true;
				snprintf(out->cuda_lib, sizeof out->cuda_lib, "dlopens %s", DLOPEN_MARK);
				return;
			}
		}
	}
	if (have_rodata)
		return;
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type != PT_LOAD || (p->p_flags & (PF_W | PF_X)) || !in_image(len, p->p_offset, p->p_filesz))
			continue;
		if (memmem(img + p->p_offset, p->p_filesz, DLOPEN_MARK, sizeof DLOPEN_MARK - 1)) {
			out->uses_cuda = true;
			snprintf(out->cuda_lib, sizeof out->cuda_lib, "dlopens %s", DLOPEN_MARK);
			return;
		}
	}
}

static int inspect_loaded(unsigned char *img, size_t len, struct loaded *l,
			  struct elf_facts *out, char *why, size_t cap)
{
	memset(out, 0, sizeof *out);
	memset(l, 0, sizeof *l);
	if (len >= 2 && img[0] == '#' && img[1] == '!') {
		out->kind = FOUND_SCRIPT;
		return 0;
	}
	if (len < SELFMAG || memcmp(img, ELFMAG, SELFMAG) != 0) {
		out->kind = FOUND_NOT_ELF;
		return 0;
	}
	if (load(img, len, l, why, cap) < 0)
		return -1;
	out->cls = gelf_getclass(l->elf);
	out->machine = l->eh.e_machine;
	if (l->interp >= 0) {
		const GElf_Phdr *p = &l->ph[l->interp];
		if (p->p_filesz < 2 || p->p_filesz > CL_PATH_MAX || !in_image(len, p->p_offset, p->p_filesz))
			return fail(why, cap, "PT_INTERP has a bad size or lies outside the file");
		const char *s = (const char *)img + p->p_offset;
		if (s[p->p_filesz - 1] != '\0' ||
		    elf_split_interp(s, p->p_filesz, out->interp, sizeof out->interp,
				     out->recorded, sizeof out->recorded) < 0)
			return fail(why, cap, "PT_INTERP is not NUL-terminated");
		if (!out->interp[0])
			return fail(why, cap, "PT_INTERP names no interpreter");
	}
	switch (l->eh.e_type) {
	case ET_EXEC:
	case ET_DYN:
		if (l->phnum == 0)
			return fail(why, cap, "no program headers (a damaged file?)");
		out->kind = l->interp >= 0 ? FOUND_DYNAMIC
			  : is_cudaload(img, len, l) ? FOUND_CUDALOAD
			  : l->eh.e_type == ET_EXEC ? FOUND_STATIC : FOUND_LIBRARY;
		break;
	default:
		out->kind = FOUND_OBJECT;
		return 0;
	}
	if (l->dynamic >= 0)
		find_cuda_needed(img, len, l, out);
	if (!out->uses_cuda && out->kind == FOUND_DYNAMIC)
		find_cuda_other(img, len, l, out);
	uint64_t orig;
	out->patched = out->recorded[0] && trailer_read(img, len, &orig, NULL, NULL) == 0;
	return 0;
}

int elfpatch_inspect(unsigned char *img, size_t len, struct elf_facts *out,
		     char *why, size_t whycap)
{
	struct loaded l;
	memset(&l, 0, sizeof l);
	int r = inspect_loaded(img, len, &l, out, why, whycap);
	loaded_free(&l);
	return r;
}

/* ---- encoding through libelf (class and byte order) ---------------------- */

static int encode(Elf *e, Elf_Type type, const void *mem, size_t memsize,
		  unsigned char *dst, size_t dstsize, unsigned encoding)
{
	Elf_Data src = { .d_buf = (void *)mem, .d_type = type, .d_size = memsize,
			 .d_version = EV_CURRENT };
	Elf_Data out = { .d_buf = dst, .d_size = dstsize, .d_version = EV_CURRENT };
	return gelf_xlatetof(e, &out, &src, encoding) ? 0 : -1;
}

static int encode_phdrs(Elf *e, const GElf_Phdr *ph, size_t n, unsigned char *dst,
			size_t dstsize, unsigned enc)
{
	int r;
	if (gelf_getclass(e) == ELFCLASS64) {
		Elf64_Phdr *m = calloc(n, sizeof *m);
		if (!m)
			return -1;
		for (size_t i = 0; i < n; i++)
			m[i] = (Elf64_Phdr){ ph[i].p_type, ph[i].p_flags, ph[i].p_offset, ph[i].p_vaddr,
					     ph[i].p_paddr, ph[i].p_filesz, ph[i].p_memsz, ph[i].p_align };
		r = encode(e, ELF_T_PHDR, m, n * sizeof *m, dst, dstsize, enc);
		free(m);
	} else {
		Elf32_Phdr *m = calloc(n, sizeof *m);
		if (!m)
			return -1;
		for (size_t i = 0; i < n; i++)
			m[i] = (Elf32_Phdr){ ph[i].p_type, (Elf32_Off)ph[i].p_offset, (Elf32_Addr)ph[i].p_vaddr,
					     (Elf32_Addr)ph[i].p_paddr, (Elf32_Word)ph[i].p_filesz,
					     (Elf32_Word)ph[i].p_memsz, ph[i].p_flags, (Elf32_Word)ph[i].p_align };
		r = encode(e, ELF_T_PHDR, m, n * sizeof *m, dst, dstsize, enc);
		free(m);
	}
	return r;
}

static int encode_ehdr(Elf *e, const GElf_Ehdr *h, unsigned char *dst, size_t dstsize)
{
	unsigned enc = h->e_ident[EI_DATA];
	if (gelf_getclass(e) == ELFCLASS64) {
		Elf64_Ehdr m;
		memcpy(m.e_ident, h->e_ident, EI_NIDENT);
		m.e_type = h->e_type, m.e_machine = h->e_machine, m.e_version = h->e_version;
		m.e_entry = h->e_entry, m.e_phoff = h->e_phoff, m.e_shoff = h->e_shoff;
		m.e_flags = h->e_flags, m.e_ehsize = h->e_ehsize, m.e_phentsize = h->e_phentsize;
		m.e_phnum = h->e_phnum, m.e_shentsize = h->e_shentsize, m.e_shnum = h->e_shnum;
		m.e_shstrndx = h->e_shstrndx;
		return encode(e, ELF_T_EHDR, &m, sizeof m, dst, dstsize, enc);
	}
	Elf32_Ehdr m;
	memcpy(m.e_ident, h->e_ident, EI_NIDENT);
	m.e_type = h->e_type, m.e_machine = h->e_machine, m.e_version = h->e_version;
	m.e_entry = (Elf32_Addr)h->e_entry, m.e_phoff = (Elf32_Off)h->e_phoff;
	m.e_shoff = (Elf32_Off)h->e_shoff, m.e_flags = h->e_flags, m.e_ehsize = h->e_ehsize;
	m.e_phentsize = h->e_phentsize, m.e_phnum = h->e_phnum, m.e_shentsize = h->e_shentsize;
	m.e_shnum = h->e_shnum, m.e_shstrndx = h->e_shstrndx;
	return encode(e, ELF_T_EHDR, &m, sizeof m, dst, dstsize, enc);
}

static int encode_shdr(Elf *e, const GElf_Shdr *s, unsigned char *dst, size_t dstsize, unsigned enc)
{
	if (gelf_getclass(e) == ELFCLASS64) {
		Elf64_Shdr m = { s->sh_name, s->sh_type, s->sh_flags, s->sh_addr, s->sh_offset,
				 s->sh_size, s->sh_link, s->sh_info, s->sh_addralign, s->sh_entsize };
		return encode(e, ELF_T_SHDR, &m, sizeof m, dst, dstsize, enc);
	}
	Elf32_Shdr m = { s->sh_name, s->sh_type, (Elf32_Word)s->sh_flags, (Elf32_Addr)s->sh_addr,
			 (Elf32_Off)s->sh_offset, (Elf32_Word)s->sh_size, s->sh_link, s->sh_info,
			 (Elf32_Word)s->sh_addralign, (Elf32_Word)s->sh_entsize };
	return encode(e, ELF_T_SHDR, &m, sizeof m, dst, dstsize, enc);
}

/* ---- planning ------------------------------------------------------------ */

static struct plan_edit *add_edit(struct patch_plan *plan, uint64_t off, uint32_t len)
{
	if (plan->n_edits >= PLAN_MAX_EDITS)
		return NULL;
	struct plan_edit *e = &plan->edits[plan->n_edits];
	e->bytes = calloc(1, len ? len : 1);
	if (!e->bytes)
		return NULL;
	e->off = off;
	e->len = len;
	plan->n_edits++;
	return e;
}

/* The .interp section header, if the file still has one for the old string. */
static Elf_Scn *interp_section(Elf *e, const GElf_Phdr *interp, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		if (!gelf_getshdr(scn, sh))
			return NULL;
		const char *name = elf_strptr(e, shstrndx, sh->sh_name);
		if (name && strcmp(name, ".interp") == 0 && sh->sh_offset == interp->p_offset)
			return scn;
	}
	return NULL;
}

/* The PT_LOAD segments at a glance: the first, the largest alignment (at
 * least a page), where the highest one's memory ends, and the last's index. */
struct load_span {
	const GElf_Phdr *first;
	uint64_t align, maxend;
	int last;
};

static void load_span(const struct loaded *l, struct load_span *s)
{
	*s = (struct load_span){ .align = DEFAULT_ALIGN, .last = -1 };
	for (size_t i = 0; i < l->phnum; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (p->p_type != PT_LOAD)
			continue;
		if (!s->first)
			s->first = p;
		if (p->p_align > s->align)
			s->align = p->p_align;
		if (p->p_vaddr + p->p_memsz > s->maxend)
			s->maxend = p->p_vaddr + p->p_memsz;
		s->last = (int)i;
	}
}

static int plan_grow(unsigned char *img, size_t len, struct loaded *l, const unsigned char *nb,
		     size_t nblen, struct patch_plan *plan, char *why, size_t cap)
{
	struct load_span span;
	load_span(l, &span);
	const GElf_Phdr *first = span.first;
	uint64_t align = span.align, maxend = span.maxend;
	int last_load = span.last;
	if (!first)
		return fail(why, cap, "no PT_LOAD segment to place the new interpreter after");
	if (first->p_vaddr < first->p_offset || (first->p_vaddr - first->p_offset) % align != 0)
		return fail(why, cap, "cannot grow: the first PT_LOAD's address and offset are not congruent");
	uint64_t delta = first->p_vaddr - first->p_offset;
	if (l->phnum + 1 >= PN_XNUM)
		return fail(why, cap, "too many program headers to add one");

	/* The new segment starts past the file and past every segment's memory. */
	uint64_t start = len > maxend - delta ? len : maxend - delta;
	uint64_t x = (start + align - 1) / align * align;
	if (x - len > MAX_PADDING)
		return fail(why, cap, "cannot grow: %llu MiB of padding needed past the bss",
			    (unsigned long long)((x - len) >> 20));
	size_t entsize = l->eh.e_phentsize, n = l->phnum + 1;
	size_t table = n * entsize;

	GElf_Phdr *ph = calloc(n, sizeof *ph);
	if (!ph)
		return fail(why, cap, "out of memory");
	for (size_t i = 0, k = 0; i < l->phnum; i++) {
		ph[k] = l->ph[i];
		if (ph[k].p_type == PT_PHDR) {
			ph[k].p_offset = x;
			ph[k].p_vaddr = ph[k].p_paddr = x + delta;
			ph[k].p_filesz = ph[k].p_memsz = table;
		} else if (ph[k].p_type == PT_INTERP) {
			ph[k].p_offset = x + table;
			ph[k].p_vaddr = ph[k].p_paddr = x + table + delta;
			ph[k].p_filesz = ph[k].p_memsz = nblen;
		}
		k++;
		if ((int)i == last_load) {	/* PT_LOADs stay in address order */
			ph[k] = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = x,
					     .p_vaddr = x + delta, .p_paddr = x + delta,
					     .p_filesz = table + nblen, .p_memsz = table + nblen,
					     .p_align = align };
			k++;
		}
	}

	unsigned enc = l->eh.e_ident[EI_DATA];
	plan->pad = x - len;	/* zeros, written as a hole */
	plan->tail = calloc(1, table + nblen);
	if (!plan->tail || encode_phdrs(l->elf, ph, n, plan->tail, table, enc) < 0) {
		free(ph);
		return fail(why, cap, "cannot encode the new program headers (%s)", elf_errmsg(-1));
	}
	free(ph);
	memcpy(plan->tail + table, nb, nblen);
	plan->tail_len = table + nblen;

	GElf_Ehdr eh = l->eh;
	eh.e_phoff = x;
	eh.e_phnum = (uint16_t)n;
	size_t ehsize = gelf_fsize(l->elf, ELF_T_EHDR, 1, EV_CURRENT);
	struct plan_edit *e = add_edit(plan, 0, (uint32_t)ehsize);
	if (!e || encode_ehdr(l->elf, &eh, e->bytes, ehsize) < 0)
		return fail(why, cap, "cannot encode the ELF header (%s)", elf_errmsg(-1));

	GElf_Shdr sh;
	Elf_Scn *scn = interp_section(l->elf, &l->ph[l->interp], &sh);
	if (scn) {
		size_t shentsize = gelf_fsize(l->elf, ELF_T_SHDR, 1, EV_CURRENT);
		uint64_t off = l->eh.e_shoff + elf_ndxscn(scn) * (uint64_t)shentsize;
		if (!in_image(len, off, shentsize))
			return fail(why, cap, "section headers lie outside the file");
		sh.sh_offset = x + table;
		sh.sh_addr = x + table + delta;
		sh.sh_size = nblen;
		e = add_edit(plan, off, (uint32_t)shentsize);
		if (!e || encode_shdr(l->elf, &sh, e->bytes, shentsize, enc) < 0)
			return fail(why, cap, "cannot encode the .interp section header");
	}
	plan->grew = true;
	(void)img;
	return 0;
}

static bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

/* Does the string share bytes with the headers?  (Only a crafted file does;
 * rewriting it in place would then rewrite them too.) */
static bool overlaps_tables(const struct loaded *l, const GElf_Phdr *pi)
{
	size_t ehsize = gelf_fsize(l->elf, ELF_T_EHDR, 1, EV_CURRENT);
	return overlap(pi->p_offset, pi->p_filesz, 0, ehsize) ||
	       overlap(pi->p_offset, pi->p_filesz, l->eh.e_phoff,
		       (uint64_t)l->phnum * l->eh.e_phentsize) ||
	       overlap(pi->p_offset, pi->p_filesz, l->eh.e_shoff,
		       (uint64_t)l->eh.e_shnum * l->eh.e_shentsize);
}

/* ---- growing the strip-safe way -------------------------------------------
 * binutils (strip, objcopy) and elfutils rewrite a file from its section
 * headers and always put the program header table right after the ELF
 * header: bytes that only a segment covers are lost or moved.  So, like
 * patchelf --set-interpreter, the table stays where it is and grows by one
 * entry into the space of the sections that follow it (.interp, notes, hash
 * tables ...); those move, byte for byte, into the new PT_LOAD at the end,
 * followed by the new .interp.  Every byte of that segment belongs to a
 * section, so the rewriting tools keep it (docs/design.md §9).
 * Returns 1 when the file does not have that shape (the caller then appends
 * a table instead), 0 when planned, -1 on an error. */

#define MOVE_MAX 64

struct moved {
	size_t index;		/* section index, or 0 for a segment-only block */
	uint64_t off, size;
};

/* Section types whose address only program headers and dynamic tags hold:
 * safe to move (code never refers to them). */
static bool movable_type(uint32_t type)
{
	switch (type) {
	case SHT_NOTE: case SHT_HASH: case SHT_GNU_HASH: case SHT_DYNSYM:
	case SHT_STRTAB: case SHT_GNU_versym: case SHT_GNU_verneed: case SHT_GNU_verdef:
	case SHT_RELA: case SHT_REL: case 19 /* SHT_RELR */:
		return true;
	default:
		return false;
	}
}

/* Dynamic tags that hold the address of one of those sections. */
static bool pointer_tag(int64_t tag)
{
	switch (tag) {
	case DT_HASH: case DT_GNU_HASH: case DT_STRTAB: case DT_SYMTAB: case DT_RELA:
	case DT_REL: case DT_JMPREL: case DT_VERSYM: case DT_VERNEED: case DT_VERDEF:
	case 36 /* DT_RELR */:
		return true;
	default:
		return false;
	}
}

static int encode_dyn(Elf *e, const GElf_Dyn *d, size_t n, unsigned char *dst, size_t dstsize,
		      unsigned enc)
{
	int r;
	if (gelf_getclass(e) == ELFCLASS64) {
		r = encode(e, ELF_T_DYN, d, n * sizeof *d, dst, dstsize, enc);	/* GElf_Dyn is Elf64_Dyn */
	} else {
		Elf32_Dyn *m = calloc(n ? n : 1, sizeof *m);
		if (!m)
			return -1;
		for (size_t i = 0; i < n; i++)
			m[i] = (Elf32_Dyn){ (Elf32_Sword)d[i].d_tag, { (Elf32_Word)d[i].d_un.d_val } };
		r = encode(e, ELF_T_DYN, m, n * sizeof *m, dst, dstsize, enc);
		free(m);
	}
	return r;
}

static int encode_sym(Elf *e, const GElf_Sym *s, unsigned char *dst, size_t dstsize, unsigned enc)
{
	if (gelf_getclass(e) == ELFCLASS64)
		return encode(e, ELF_T_SYM, s, sizeof *s, dst, dstsize, enc);	/* GElf_Sym is Elf64_Sym */
	Elf32_Sym m = { s->st_name, (Elf32_Addr)s->st_value, (Elf32_Word)s->st_size, s->st_info,
			s->st_other, s->st_shndx };
	return encode(e, ELF_T_SYM, &m, sizeof m, dst, dstsize, enc);
}

static bool is_moved(const struct moved *mv, size_t n, size_t index)
{
	for (size_t i = 0; i < n; i++)
		if (mv[i].index == index)
			return true;
	return false;
}

/* Edits must not overlap (a crafted file can make its tables share bytes):
 * each original byte is recorded once, so restore stays exact. */
static bool edits_disjoint(const struct patch_plan *plan, size_t len)
{
	for (int i = 0; i < plan->n_edits; i++) {
		const struct plan_edit *a = &plan->edits[i];
		if (!in_image(len, a->off, a->len))
			return false;
		for (int k = i + 1; k < plan->n_edits; k++)
			if (overlap(a->off, a->len, plan->edits[k].off, plan->edits[k].len))
				return false;
	}
	return true;
}

static int plan_grow_front(unsigned char *img, size_t len, struct loaded *l,
			   const unsigned char *nb, size_t nblen, struct patch_plan *plan,
			   char *why, size_t cap)
{
	Elf *elf = l->elf;
	size_t ehsize = gelf_fsize(elf, ELF_T_EHDR, 1, EV_CURRENT);
	size_t entsize = l->eh.e_phentsize, n = l->phnum + 1;
	unsigned enc = l->eh.e_ident[EI_DATA];
	if (l->eh.e_phoff != ehsize || l->phnum + 1 >= PN_XNUM)
		return 1;
	uint64_t phend = ehsize + l->phnum * entsize, need = ehsize + n * entsize;

	struct load_span span;
	load_span(l, &span);
	const GElf_Phdr *first = span.first;
	uint64_t align = span.align, maxend = span.maxend;
	int last_load = span.last;
	if (!first || first->p_offset != 0 || first->p_filesz < need ||
	    first->p_vaddr < first->p_offset || (first->p_vaddr - first->p_offset) % align != 0)
		return 1;
	uint64_t delta = first->p_vaddr;

	/* What follows the table, up to where the bigger table ends: with
	 * section headers, the sections there; without, the segments that
	 * describe bytes there (PT_INTERP, notes), the rest must be zero. */
	struct moved mv[MOVE_MAX];
	size_t nmv = 0, shnum = 0;
	uint64_t lo = need, hi = phend;
	if (elf_getshdrnum(elf, &shnum) != 0)
		shnum = 0;
	for (bool grew = true; grew;) {
		grew = false;
		uint64_t want_hi = hi > need ? hi : need;
		for (size_t i = 1; i < shnum; i++) {
			GElf_Shdr sh;
			Elf_Scn *scn = elf_getscn(elf, i);
			if (!scn || !gelf_getshdr(scn, &sh))
				return fail(why, cap, "cannot read section header %zu", i);
			if (sh.sh_type == SHT_NOBITS || !sh.sh_size || is_moved(mv, nmv, i) ||
			    !overlap(sh.sh_offset, sh.sh_size, phend, want_hi - phend))
				continue;
			bool interp = l->interp >= 0 && sh.sh_offset == l->ph[l->interp].p_offset;
			if (sh.sh_offset < phend || !(sh.sh_flags & SHF_ALLOC) ||
			    (sh.sh_flags & (SHF_WRITE | SHF_EXECINSTR)) ||
			    (!interp && !movable_type(sh.sh_type)) || nmv == MOVE_MAX)
				return 1;	/* something we cannot move follows the table */
			mv[nmv++] = (struct moved){ i, sh.sh_offset, sh.sh_size };
			grew = true;
		}
		/* a segment over moved bytes moves whole: its other sections too */
		for (size_t i = 0; i < nmv; i++) {
			if (mv[i].off < lo)
				lo = mv[i].off, grew = true;
			if (mv[i].off + mv[i].size > hi)
				hi = mv[i].off + mv[i].size, grew = true;
		}
		for (size_t i = 0; i < l->phnum; i++) {
			const GElf_Phdr *p = &l->ph[i];
			if (p->p_type == PT_LOAD || p->p_type == PT_PHDR || !p->p_filesz)
				continue;
			if (!overlap(p->p_offset, p->p_filesz, phend, want_hi - phend))
				continue;
			if (p->p_offset < phend)
				return 1;
			if (p->p_offset < lo)
				lo = p->p_offset, grew = true;
			if (p->p_offset + p->p_filesz > hi)
				hi = p->p_offset + p->p_filesz, grew = true;
		}
	}
	if (lo < phend || hi <= lo)
		return 1;	/* nothing there to move: a table we cannot grow this way */
	if (!shnum) {
		/* no section headers: bytes between phend and need must be ours */
		for (uint64_t o = phend; o < lo && o < need; o++)
			if (img[o])
				return 1;
		if (hi < need)
			for (uint64_t o = hi; o < need; o++)
				if (img[o])
					return 1;
	}
	if (first->p_filesz < hi)
		return 1;
	uint64_t zero_end = hi > need ? hi : need;

	/* The new segment: past the file and past every segment's memory, at
	 * the same offset within a page as the bytes it takes over, so every
	 * alignment holds. */
	uint64_t start = len > maxend - delta ? len : maxend - delta;
	uint64_t page = (start + align - 1) / align * align;
	uint64_t x = page + lo % align;
	if (x - len > MAX_PADDING)
		return fail(why, cap, "cannot grow: %llu MiB of padding needed past the bss",
			    (unsigned long long)((x - len) >> 20));
	uint64_t dm = x - lo;			/* how far the moved bytes go */
	uint64_t block = hi - lo, interp_at = x + block;
	uint64_t seg_size = block + nblen;

	plan->pad = x - len;
	plan->tail = calloc(1, seg_size);
	if (!plan->tail)
		return fail(why, cap, "out of memory");
	memcpy(plan->tail, img + lo, block);
	memcpy(plan->tail + block, nb, nblen);
	plan->tail_len = seg_size;
	const GElf_Phdr *pi = &l->ph[l->interp];
	if (pi->p_offset >= lo && pi->p_offset + pi->p_filesz <= hi)
		memset(plan->tail + (pi->p_offset - lo), 0, pi->p_filesz);	/* the old string's hole */

	/* the header, the bigger table, zeros where the moved bytes were */
	struct plan_edit *e = add_edit(plan, 0, (uint32_t)zero_end);
	if (!e)
		return fail(why, cap, "out of memory");
	GElf_Ehdr eh = l->eh;
	eh.e_phnum = (uint16_t)n;
	if (encode_ehdr(elf, &eh, e->bytes, ehsize) < 0)
		return fail(why, cap, "cannot encode the ELF header (%s)", elf_errmsg(-1));
	GElf_Phdr *ph = calloc(n, sizeof *ph);
	if (!ph)
		return fail(why, cap, "out of memory");
	for (size_t i = 0, k = 0; i < l->phnum; i++, k++) {
		ph[k] = l->ph[i];
		GElf_Phdr *p = &ph[k];
		if (p->p_type == PT_PHDR) {
			p->p_filesz = p->p_memsz = n * entsize;
		} else if ((int)i == l->interp) {
			p->p_offset = interp_at;
			p->p_vaddr = p->p_paddr = interp_at + delta;
			p->p_filesz = p->p_memsz = nblen;
		} else if (p->p_type != PT_LOAD && p->p_filesz && p->p_offset >= lo &&
			   p->p_offset + p->p_filesz <= hi) {
			p->p_offset += dm;
			p->p_vaddr += dm;
			p->p_paddr += dm;
		}
		if ((int)i == last_load)	/* PT_LOADs stay in address order */
			ph[++k] = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = x,
					       .p_vaddr = x + delta, .p_paddr = x + delta,
					       .p_filesz = seg_size, .p_memsz = seg_size,
					       .p_align = align };
	}
	int r = encode_phdrs(elf, ph, n, e->bytes + ehsize, n * entsize, enc);
	free(ph);
	if (r < 0)
		return fail(why, cap, "cannot encode the new program headers (%s)", elf_errmsg(-1));

	/* Section headers: what moved goes to the end of the table, so that
	 * the table stays in file order (patchelf, for one, walks it in index
	 * order from the start); links, the string table index and symbols
	 * follow the new numbering.  .interp now names the new string. */
	size_t *newidx = NULL;
	if (shnum) {
		size_t shentsize = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT);
		if (!in_image(len, l->eh.e_shoff, shnum * shentsize) ||
		    overlap(l->eh.e_shoff, shnum * shentsize, 0, zero_end) || shnum >= SHN_LORESERVE)
			return 1;
		newidx = calloc(shnum, sizeof *newidx);
		if (!newidx)
			return fail(why, cap, "out of memory");
		/* .interp moves too when it was not in the way: its header
		 * must name the new string, whose bytes strip copies */
		size_t interp_idx = 0;
		for (size_t i = 1; i < shnum && !interp_idx; i++) {
			GElf_Shdr sh;
			if (gelf_getshdr(elf_getscn(elf, i), &sh) && (sh.sh_flags & SHF_ALLOC) &&
			    sh.sh_type != SHT_NOBITS && sh.sh_offset == pi->p_offset && sh.sh_size == pi->p_filesz)
				interp_idx = i;
		}
		if (interp_idx && !is_moved(mv, nmv, interp_idx)) {
			if (nmv == MOVE_MAX) {
				free(newidx);
				return 1;
			}
			mv[nmv++] = (struct moved){ interp_idx, pi->p_offset, pi->p_filesz };
		}
		/* numbered in file order: the moved block, then .interp after it */
		size_t k = 1;
		for (size_t i = 1; i < shnum; i++)
			if (!is_moved(mv, nmv, i))
				newidx[i] = k++;
		for (size_t i = 0; i < nmv; i++)
			if (mv[i].index != interp_idx)
				newidx[mv[i].index] = k++;
		if (interp_idx)
			newidx[interp_idx] = k++;
		e = add_edit(plan, l->eh.e_shoff, (uint32_t)(shnum * shentsize));
		if (!e) {
			free(newidx);
			return fail(why, cap, "out of memory");
		}
		for (size_t i = 0; i < shnum; i++) {
			GElf_Shdr sh;
			if (!gelf_getshdr(elf_getscn(elf, i), &sh)) {
				free(newidx);
				return fail(why, cap, "cannot read section header %zu", i);
			}
			if (sh.sh_type == SHT_GROUP || sh.sh_type == SHT_SYMTAB_SHNDX) {
				free(newidx);
				return 1;	/* index tables we do not renumber */
			}
			if (i && is_moved(mv, nmv, i)) {
				if (sh.sh_offset == pi->p_offset && sh.sh_size == pi->p_filesz) {
					sh.sh_offset = interp_at;
					sh.sh_addr = interp_at + delta;
					sh.sh_size = nblen;
				} else {
					sh.sh_offset += dm;
					sh.sh_addr += dm;
				}
			}
			if (sh.sh_link && sh.sh_link < shnum)
				sh.sh_link = (GElf_Word)newidx[sh.sh_link];
			if (sh.sh_info && sh.sh_info < shnum &&
			    ((sh.sh_flags & SHF_INFO_LINK) || sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA))
				sh.sh_info = (GElf_Word)newidx[sh.sh_info];
			if (encode_shdr(elf, &sh, e->bytes + newidx[i] * shentsize, shentsize, enc) < 0) {
				free(newidx);
				return fail(why, cap, "cannot encode a section header");
			}
		}
		/* the ELF header, encoded above, names the string table by index */
		if (l->eh.e_shstrndx && l->eh.e_shstrndx < shnum) {
			eh.e_shstrndx = (uint16_t)newidx[l->eh.e_shstrndx];
			if (encode_ehdr(elf, &eh, plan->edits[0].bytes, ehsize) < 0) {
				free(newidx);
				return fail(why, cap, "cannot encode the ELF header (%s)", elf_errmsg(-1));
			}
		}
	}

	/* dynamic tags that point at moved bytes */
	if (l->dynamic >= 0) {
		const GElf_Phdr *d = &l->ph[l->dynamic];
		size_t dent = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
		Elf_Data *data = in_image(len, d->p_offset, d->p_filesz) && !overlap(d->p_offset, d->p_filesz, 0, zero_end)
			? elf_getdata_rawchunk(elf, (int64_t)d->p_offset, d->p_filesz, ELF_T_DYN) : NULL;
		size_t nd = data ? d->p_filesz / dent : 0;
		GElf_Dyn *dyn = calloc(nd ? nd : 1, sizeof *dyn);
		bool changed = false;
		if (!dyn) {
			free(newidx);
			return fail(why, cap, "out of memory");
		}
		for (size_t i = 0; i < nd; i++) {
			if (!gelf_getdyn(data, (int)i, &dyn[i])) {
				nd = i;
				break;
			}
			if (pointer_tag(dyn[i].d_tag) && dyn[i].d_un.d_ptr >= lo + delta &&
			    dyn[i].d_un.d_ptr < hi + delta) {
				dyn[i].d_un.d_ptr += dm;
				changed = true;
			}
		}
		if (changed) {
			e = add_edit(plan, d->p_offset, (uint32_t)(nd * dent));
			if (!e || encode_dyn(elf, dyn, nd, e->bytes, nd * dent, enc) < 0) {
				free(dyn);
				free(newidx);
				return fail(why, cap, "cannot encode the dynamic section");
			}
		}
		free(dyn);
	}

	/* Symbols: section indices renumbered, and the values of those defined
	 * in moved sections (__abi_tag, section symbols) moved with them.  A
	 * moved table is fixed in the copy, another by an edit of the table. */
	for (size_t i = 1; i < shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !in_image(len, sh.sh_offset, sh.sh_size) || sh.sh_size > UINT32_MAX)
			continue;
		Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)sh.sh_offset, sh.sh_size, ELF_T_SYM);
		size_t ns = data ? sh.sh_size / sh.sh_entsize : 0;
		bool moved_table = is_moved(mv, nmv, i);
		unsigned char *table = NULL;
		for (size_t k = 0; k < ns; k++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)k, &sym))
				break;
			if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_shndx >= shnum)
				continue;
			GElf_Sym was = sym;
			sym.st_shndx = (uint16_t)newidx[sym.st_shndx];
			if (is_moved(mv, nmv, was.st_shndx)) {
				GElf_Shdr target;
				if (gelf_getshdr(elf_getscn(elf, was.st_shndx), &target) &&
				    target.sh_offset == pi->p_offset)
					sym.st_value = sym.st_value - target.sh_addr + interp_at + delta;
				else
					sym.st_value += dm;
			}
			if (sym.st_shndx == was.st_shndx && sym.st_value == was.st_value)
				continue;
			if (!table) {
				if (moved_table) {
					table = plan->tail + (sh.sh_offset - lo);
				} else if ((e = add_edit(plan, sh.sh_offset, (uint32_t)sh.sh_size))) {
					table = e->bytes;
					memcpy(table, img + sh.sh_offset, sh.sh_size);
				} else {
					free(newidx);
					return fail(why, cap, "out of memory");
				}
			}
			if (encode_sym(elf, &sym, table + k * sh.sh_entsize, sh.sh_entsize, enc) < 0) {
				free(newidx);
				return fail(why, cap, "cannot encode a symbol");
			}
		}
	}
	free(newidx);
	if (!edits_disjoint(plan, len))
		return 1;
	plan->grew = true;
	return 0;
}

int elfpatch_plan_patch(unsigned char *img, size_t len, const char *interp,
			struct patch_plan *plan, char *why, size_t whycap)
{
	struct loaded l;
	struct elf_facts f;
	int r = -1;

	memset(plan, 0, sizeof *plan);
	memset(&l, 0, sizeof l);
	plan->keep = len;
	if (inspect_loaded(img, len, &l, &f, why, whycap) < 0)
		goto out;
	if (f.kind != FOUND_DYNAMIC) {
		fail(why, whycap, "not a dynamically linked executable");
		goto out;
	}
	if (f.recorded[0]) {
		fail(why, whycap, "already patched (original interpreter %s)", f.recorded);
		goto out;
	}
	if (strcmp(f.interp, interp) == 0) {
		r = 0;	/* nothing to change: the plan keeps the file as it is */
		goto out;
	}

	/* "<interp>\0cudaload-orig:<original>\0" */
	size_t il = strlen(interp), ml = strlen(RECORD_MAGIC), ol = strlen(f.interp);
	size_t nblen = il + 1 + ml + ol + 1;
	if (il == 0 || nblen > CL_PATH_MAX) {
		fail(why, whycap, "the new interpreter path is empty or too long");
		goto out;
	}
	unsigned char nb[CL_PATH_MAX];
	memcpy(nb, interp, il + 1);
	memcpy(nb + il + 1, RECORD_MAGIC, ml);
	memcpy(nb + il + 1 + ml, f.interp, ol + 1);

	const GElf_Phdr *pi = &l.ph[l.interp];
	if (nblen <= pi->p_filesz && !overlaps_tables(&l, pi)) {
		/* fits: rewrite the string where it is, the rest of it zeroed */
		struct plan_edit *e = add_edit(plan, pi->p_offset, (uint32_t)pi->p_filesz);
		if (!e) {
			fail(why, whycap, "out of memory");
			goto out;
		}
		memcpy(e->bytes, nb, nblen);
	} else {
		int g = plan_grow_front(img, len, &l, nb, nblen, plan, why, whycap);
		if (g > 0) {	/* an unusual shape: a new table at the end instead */
			patch_plan_free(plan);
			plan->keep = len;
			g = plan_grow(img, len, &l, nb, nblen, plan, why, whycap);
		}
		if (g < 0)
			goto out;
	}

	size_t tlen;
	unsigned char *t = trailer_make(img, len, plan, len + plan->pad + plan->tail_len, &tlen);
	unsigned char *tail = t ? realloc(plan->tail, plan->tail_len + tlen) : NULL;
	if (!tail) {
		free(t);
		fail(why, whycap, "out of memory");
		goto out;
	}
	memcpy(tail + plan->tail_len, t, tlen);
	free(t);
	plan->tail = tail;
	plan->tail_len += tlen;
	r = 0;
out:
	loaded_free(&l);
	if (r < 0)
		patch_plan_free(plan);
	return r;
}

int elfpatch_plan_restore(unsigned char *img, size_t len, struct patch_plan *plan,
			  char *why, size_t whycap)
{
	struct elf_facts f;
	uint64_t orig;

	memset(plan, 0, sizeof *plan);
	if (elfpatch_inspect(img, len, &f, why, whycap) < 0)
		return -1;
	if (!f.recorded[0])
		return fail(why, whycap, "not patched by cudaload-patch");
	if (trailer_read(img, len, &orig, NULL, plan) < 0) {
		patch_plan_free(plan);
		return fail(why, whycap, "cannot restore byte for byte: the restore record is missing "
				      "or damaged (the file was rewritten after patching, by strip, "
				      "objcopy or patchelf?); --restore --force sets the original "
				      "interpreter back");
	}
	plan->keep = orig;
	if (plan_hash(img, plan) != plan->orig_hash) {
		patch_plan_free(plan);
		return fail(why, whycap, "cannot restore byte for byte: the file was changed after "
				      "patching (by strip, objcopy or patchelf?); --restore --force sets "
				      "the original interpreter back");
	}
	return 0;
}

int elfpatch_plan_force_restore(unsigned char *img, size_t len, struct patch_plan *plan,
				char *why, size_t whycap)
{
	struct loaded l;
	struct elf_facts f;
	int r = -1;

	memset(plan, 0, sizeof *plan);
	plan->keep = len;
	if (inspect_loaded(img, len, &l, &f, why, whycap) < 0)
		goto out;
	if (f.kind != FOUND_DYNAMIC || !f.recorded[0]) {
		fail(why, whycap, "not patched by cudaload-patch");
		goto out;
	}
	/* the original string where the record was, NUL padded: it is shorter */
	const GElf_Phdr *pi = &l.ph[l.interp];
	size_t ol = strlen(f.recorded);
	struct plan_edit *e = ol + 1 <= pi->p_filesz && !overlaps_tables(&l, pi)
		? add_edit(plan, pi->p_offset, (uint32_t)pi->p_filesz) : NULL;
	if (!e) {
		fail(why, whycap, "cannot write the original interpreter back");
		goto out;
	}
	memcpy(e->bytes, f.recorded, ol + 1);
	r = 0;
out:
	loaded_free(&l);
	if (r < 0)
		patch_plan_free(plan);
	return r;
}

uint64_t patch_plan_size(const struct patch_plan *plan)
{
	return plan->keep + plan->pad + plan->tail_len;
}

unsigned char *patch_plan_render(const unsigned char *img, const struct patch_plan *plan)
{
	unsigned char *out = malloc(patch_plan_size(plan) + 1);
	if (!out)
		return NULL;
	memcpy(out, img, plan->keep);
	for (int i = 0; i < plan->n_edits; i++)
		memcpy(out + plan->edits[i].off, plan->edits[i].bytes, plan->edits[i].len);
	memset(out + plan->keep, 0, plan->pad);
	if (plan->tail_len)
		memcpy(out + plan->keep + plan->pad, plan->tail, plan->tail_len);
	return out;
}


/* Visit the planned file piece by piece: kept bytes between edits, the edits,
 * the tail.  Stops at the first non-zero return of fn. */
static int plan_walk(const unsigned char *img, const struct patch_plan *plan,
		     int (*fn)(void *ctx, const unsigned char *p, size_t n), void *ctx)
{
	int order[PLAN_MAX_EDITS], r;
	uint64_t pos = 0;
	for (int i = 0; i < plan->n_edits; i++)
		order[i] = i;
	for (int i = 1; i < plan->n_edits; i++)	/* by offset */
		for (int k = i; k > 0 && plan->edits[order[k]].off < plan->edits[order[k - 1]].off; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (int i = 0; i < plan->n_edits; i++) {
		const struct plan_edit *e = &plan->edits[order[i]];
		if (e->off < pos || e->off + e->len > plan->keep)
			return -EINVAL;	/* edits never overlap; refuse rather than guess */
		if ((r = fn(ctx, img + pos, e->off - pos)) != 0 || (r = fn(ctx, e->bytes, e->len)) != 0)
			return r;
		pos = e->off + e->len;
	}
	if ((r = fn(ctx, img + pos, plan->keep - pos)) != 0)
		return r;
	if (plan->pad && (r = fn(ctx, NULL, plan->pad)) != 0)	/* NULL: that many zeros */
		return r;
	return plan->tail_len ? fn(ctx, plan->tail, plan->tail_len) : 0;
}

static int hash_piece(void *ctx, const unsigned char *p, size_t n)
{
	static const unsigned char zeros[4096];
	while (!p && n) {
		size_t k = n < sizeof zeros ? n : sizeof zeros;
		hash_feed(ctx, zeros, k);
		n -= k;
	}
	if (p)
		hash_feed(ctx, p, n);
	return 0;
}

static uint64_t plan_hash(const unsigned char *img, const struct patch_plan *plan)
{
	struct hasher hs = { FNV_START, { 0 }, 0 };
	return plan_walk(img, plan, hash_piece, &hs) == 0 ? hash_end(&hs) : 0;
}

/* The pieces go out in one writev (a plan has at most 2 * edits + 2), the
 * padding as a hole (lseek), so a large bss costs no disk. */
struct gather {
	int fd;
	struct iovec iov[2 * PLAN_MAX_EDITS + 2];
	int n;
};

static int gather_flush(struct gather *g)
{
	for (int i = 0; i < g->n;) {
		ssize_t w = writev(g->fd, g->iov + i, g->n - i);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		while (i < g->n && (size_t)w >= g->iov[i].iov_len)
			w -= (ssize_t)g->iov[i++].iov_len;
		if (i < g->n) {	/* a short write: go on from inside this piece */
			g->iov[i].iov_base = (char *)g->iov[i].iov_base + w;
			g->iov[i].iov_len -= (size_t)w;
		}
	}
	g->n = 0;
	return 0;
}

static int gather_piece(void *ctx, const unsigned char *p, size_t n)
{
	struct gather *g = ctx;
	if (!p) {
		int r = gather_flush(g);
		return r ? r : lseek(g->fd, (off_t)n, SEEK_CUR) < 0 ? -errno : 0;
	}
	if (n) {
		g->iov[g->n].iov_base = (void *)p;
		g->iov[g->n].iov_len = n;
		g->n++;
	}
	return 0;
}

int patch_plan_write(int fd, const unsigned char *img, const struct patch_plan *plan)
{
	struct gather g = { .fd = fd, .n = 0 };
	int r = plan_walk(img, plan, gather_piece, &g);
	return r ? r : gather_flush(&g);
}

void patch_plan_free(struct patch_plan *plan)
{
	for (int i = 0; i < plan->n_edits; i++)
		free(plan->edits[i].bytes);
	free(plan->tail);
	memset(plan, 0, sizeof *plan);
}
