/*
 * fuse.h -- fusion across families on the lifted program (see fuse.c).
 */
#ifndef EGG_BUILTIN_FUSE_H
#define EGG_BUILTIN_FUSE_H

#include "builtin/lift/ir.h"

/* Folds element-wise maps into the row programs that consume their temp
 * buffers, maps after a row program into it, and row programs over the same
 * rows into one (what the first stored forwarded to the second); then stops
 * storing the temps nothing reads any more.  Returns how many stages were
 * folded (the program is changed in place). */
int fuse_program(struct ir_program *p);

#endif
