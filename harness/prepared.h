/*
 * prepared.h -- the reference's objects (ref.o, ref64.o, main.o), kept under the
 * GPU cache directory and reused by every evaluation of the same bundle with the
 * same toolchain (see prepared.c for the key and the secret entry name), and the
 * runtime's object (runtime.o), reused by every evaluation with that toolchain.
 *
 * Use: prepared_begin with the sources generated under a placeholder entry name
 * (it gives the nonce the real sources are then generated with); write them;
 * prepared_lookup: 1, fetch the objects with prepared_fetch; 0, compile them
 * with nvcc -MD (STEM.d beside each object) and prepared_store; any failure of
 * begin, compile and keep nothing.  prepared_release in every case.
 */
#ifndef EGG_HARNESS_PREPARED_H
#define EGG_HARNESS_PREPARED_H

#include <stddef.h>

struct prepared {
	char *root;    /* CACHE/prepared */
	char *pre_key; /* of the sources, toolchain and flags: the entry's name */
	char *nonce;   /* 16 hex digits: the reference's entry point name (a bundle's) */
	char *entry;   /* root/pre_key */
	const char *const *files; /* what the entry holds */
	const char *const *stems; /* whose STEM.d the manifest is made of */
	int min_rules;            /* of those, how many must have been written */
};

/* 0 with p->nonce set, or -1 (no cache directory, no salt). */
int prepared_begin(struct prepared *p, const char *cache, const char *nvcc,
                   char *const *flags, size_t n_flags, const char *arch,
                   const char *ref0, const char *main0, const char *ref64_0);
/* The same for the runtime's object (runtime.o and runtime.log, compiled from
 * the source runtime): 0, or -1.  Lookup, fetch (have_f64 NULL), store (its
 * have_f64 ignored) and release as for a bundle's. */
int prepared_begin_runtime(struct prepared *p, const char *cache, const char *nvcc,
                           char *const *flags, size_t n_flags, const char *arch,
                           const char *runtime);
/* 1 a complete entry whose included files are unchanged, 0 none (store one
 * after compiling). */
int prepared_lookup(struct prepared *p);
/* Where a bundle's float64 twin is: none (it does not compile, or the bundle
 * has none), ref64.o, or compiled into ref.o (the file ref64.in-ref marks it). */
enum { PREPARED_F64_NONE, PREPARED_F64_OBJECT, PREPARED_F64_IN_REF };

/* Copies the entry's objects and logs into dir; *have_f64 (PREPARED_F64_*) says
 * where the twin is (a bundle's entry).  0, or -1 (compile them then). */
int prepared_fetch(struct prepared *p, const char *dir, int *have_f64);
/* Keeps dir's ref.o, main.o (and, as have_f64 says, ref64.o or the mark) with
 * their logs and the files their .d files name; nothing where those cannot be
 * read. */
void prepared_store(struct prepared *p, const char *dir, int have_f64);
void prepared_release(struct prepared *p);

/* The secret of the directory root (root/salt, 0600, 64 random hex digits),
 * created on first use; NULL if it cannot be read or made.  Caller frees. */
char *prepared_salt(const char *root);

#endif
