/*
 * interface.c -- see interface.h.  Reads 64-bit ELF files of the host's byte
 * order (what nvcc writes on Linux): the section headers, then .symtab (or,
 * when stripped, .dynsym) and its string table.
 */
#include "config.h"
#include "driver/interface.h"
#include "common/fsutil.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
interface_own_symbol(const char *name)
{
	/* _GLOBAL__N_: nvcc gives an anonymous namespace a name of the file's own,
	 * which no other object can define.  _ZT (vtables, VTTs, typeinfo and its
	 * names, thunks) and _ZGV (guard variables): what the compiler emits for a
	 * class or a variable the source declares, named after it. */
	return strstr(name, "egg_") != NULL || strstr(name, "__device_stub__") != NULL ||
	       strncmp(name, "__fatbinwrap_", 13) == 0 || strstr(name, "_GLOBAL__N_") != NULL ||
	       strncmp(name, "_ZT", 3) == 0 || strncmp(name, "_ZGV", 4) == 0;
}

struct elf_syms {
	struct strvec defined; /* defined global or weak symbols */
	struct strvec strong;  /* of which the strong (STB_GLOBAL) ones */
	int type;              /* e_type */
	int has_interp;        /* a PT_INTERP program header: an executable */
};

static int
in_bounds(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

/* 0, or -1 with a reason when the file is no ELF file this reader takes. */
static int
read_elf(const char *data, size_t len, struct elf_syms *out, struct strbuf *why)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
	if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
		strbuf_addstr(why, "not an ELF file");
		return -1;
	}
	unsigned short probe = 1;
	int little = *(unsigned char *)&probe == 1;
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != (little ? ELFDATA2LSB : ELFDATA2MSB)) {
		strbuf_addstr(why, "not a 64-bit ELF file of this machine's byte order");
		return -1;
	}
	out->type = eh->e_type;
	if (eh->e_phoff && eh->e_phentsize == sizeof(Elf64_Phdr) &&
	    in_bounds(len, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr))) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(data + eh->e_phoff);
		for (unsigned i = 0; i < eh->e_phnum; i++)
			if (ph[i].p_type == PT_INTERP)
				out->has_interp = 1;
	}
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_bounds(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr))) {
		strbuf_addstr(why, "its section headers do not fit the file");
		return -1;
	}
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(data + eh->e_shoff);
	const Elf64_Shdr *tab = NULL;
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			tab = &sh[i];
	for (unsigned i = 0; !tab && i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			tab = &sh[i];
	if (!tab) {
		strbuf_addstr(why, "it has no symbol table (stripped)");
		return -1;
	}
	if (tab->sh_link >= eh->e_shnum || tab->sh_entsize != sizeof(Elf64_Sym) ||
	    !in_bounds(len, tab->sh_offset, tab->sh_size) ||
	    !in_bounds(len, sh[tab->sh_link].sh_offset, sh[tab->sh_link].sh_size)) {
		strbuf_addstr(why, "its symbol table does not fit the file");
		return -1;
	}
	const char *str = data + sh[tab->sh_link].sh_offset;
	size_t str_len = sh[tab->sh_link].sh_size;
	const Elf64_Sym *sym = (const Elf64_Sym *)(data + tab->sh_offset);
	size_t n = tab->sh_size / sizeof *sym;
	for (size_t i = 1; i < n; i++) {
		int bind = ELF64_ST_BIND(sym[i].st_info);
		if (sym[i].st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK &&
		                                     bind != STB_GNU_UNIQUE))
			continue;
		if (sym[i].st_name >= str_len || !memchr(str + sym[i].st_name, '\0', str_len - sym[i].st_name))
			continue;
		const char *name = str + sym[i].st_name;
		if (!*name)
			continue;
		strvec_push(&out->defined, name);
		if (bind == STB_GLOBAL)
			strvec_push(&out->strong, name);
	}
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
sort_names(struct strvec *v)
{
	if (v->n > 1)
		qsort(v->v, v->n, sizeof *v->v, by_name);
}

static int
has_name(const struct strvec *sorted, const char *name)
{
	return sorted->n && bsearch(&name, sorted->v, sorted->n, sizeof *sorted->v, by_name) != NULL;
}

enum interface_verdict
interface_check(const char *path, const struct strvec *exports, const struct strvec *known,
                struct strbuf *why)
{
	char *data;
	size_t len;
	if (fs_read_file(path, 0, &data, &len) < 0) {
		strbuf_addf(why, "cannot read %s: %s", path, strerror(errno));
		return INTERFACE_UNCHECKED;
	}
	struct elf_syms s = { STRVEC_INIT, STRVEC_INIT, 0, 0 };
	enum interface_verdict v = INTERFACE_KEPT;
	if (read_elf(data, len, &s, why) < 0) {
		v = INTERFACE_UNCHECKED;
		goto out;
	}
	if (s.type != ET_REL && !(s.type == ET_DYN && !s.has_interp)) {
		strbuf_addstr(why, "a linked program (only objects and shared libraries are checked)");
		v = INTERFACE_UNCHECKED;
		goto out;
	}
	sort_names(&s.defined);
	for (size_t i = 0; i < exports->n; i++)
		if (!has_name(&s.defined, exports->v[i])) {
			strbuf_addf(why, "it does not define '%s', which the source defines", exports->v[i]);
			v = INTERFACE_CHANGED;
			goto out;
		}
	if (s.type != ET_REL)
		goto out;
	struct strvec k = STRVEC_INIT;
	for (size_t i = 0; i < known->n; i++)
		strvec_push(&k, known->v[i]);
	sort_names(&k);
	for (size_t i = 0; i < s.strong.n && v == INTERFACE_KEPT; i++) {
		const char *name = s.strong.v[i];
		if (!has_name(&k, name) && !interface_own_symbol(name)) {
			strbuf_addf(why, "it defines '%s', which the source does not declare", name);
			v = INTERFACE_CHANGED;
		}
	}
	strvec_clear(&k);
out:
	strvec_clear(&s.defined);
	strvec_clear(&s.strong);
	free(data);
	return v;
}
