/*
 * fuse.h -- fusion across families on the lifted program (see fuse.c).
 */
#ifndef EGG_BUILTIN_FUSE_H
#define EGG_BUILTIN_FUSE_H

#include "builtin/lift/ir.h"

/* Folds element-wise maps into the row programs that consume their temp
 * buffers; returns how many maps were folded (the program is changed in place). */
int fuse_program(struct ir_program *p);

#endif
