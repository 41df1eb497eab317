/*
 * interface.h -- the rewritten object must have the interface of the user's
 * source: every strong external symbol the source defines, with the same name,
 * linkage and mangling, and no strong external symbol the source does not
 * declare except egg's own (egg_...), nvcc's (__device_stub__...,
 * __fatbinwrap_...) and those of anonymous namespaces.  The expected names come from the planner (libclang's
 * mangling of the original translation unit: analyzer/symbols.c); the names the
 * object defines are read from its ELF symbol table.
 *
 * libc only: egg-cc links this.
 */
#ifndef EGG_INTERFACE_H
#define EGG_INTERFACE_H

#include "common/strbuf.h"
#include "common/strvec.h"

enum interface_verdict {
	INTERFACE_KEPT,      /* every export defined, no foreign symbol added */
	INTERFACE_CHANGED,   /* why says which symbol was lost or added */
	INTERFACE_UNCHECKED, /* not an ELF object or shared library egg can read (why says so) */
};

/* Checks the file at path against the source's exports and known names.  A
 * relocatable object (-c) is checked both ways; a shared library only for the
 * exports (it holds other inputs' symbols and the C runtime's too); anything
 * else (an executable, an archive, PTX) is left unchecked. */
enum interface_verdict interface_check(const char *path, const struct strvec *exports,
                                       const struct strvec *known, struct strbuf *why);

/* 1 when a symbol of that name may be added by egg's rewrite: egg's own names,
 * the ones nvcc generates for the winner's kernels, names in an anonymous
 * namespace (nvcc makes them unique to the file), and the compiler's own symbols
 * for declared classes and variables (vtables, typeinfo, guard variables). */
int interface_own_symbol(const char *name);

#endif
