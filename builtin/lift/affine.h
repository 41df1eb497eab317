/*
 * affine.h -- index expressions of a 2-D domain as affine forms in (row, col).
 *
 * The 2-D families (transposes, stencils, gathers) are told apart by the shape
 * of their indices, never by names: an index is a sum of terms k * [sym] * [var]
 * with k an integer, sym an invariant expression (a scalar of the launcher such
 * as `cols`) and var ROW, COL or nothing.  affine_classify compares a form with
 * the domain's extents:
 *   AFF_ROW_MAJOR   (row + dr) * cols + (col + dc): the element itself (0, 0) or a
 *                   neighbour at a constant offset (a stencil's taps);
 *   AFF_CLAMPED     clamp(row + dr) * cols + clamp(col + dc), each clamped to the
 *                   domain with min and max (a stencil's taps at a clamped border);
 *   AFF_TRANSPOSED  col * rows + row: the element in the other layout;
 *   AFF_ROW_ONLY    depends on the row only (a per-row operand);
 *   AFF_COL_ONLY    depends on the column only (a bias[col] broadcast);
 *   AFF_OTHER       anything else (data-dependent, nonlinear, other strides).
 *
 * Ownership: nothing is allocated for the caller; the expressions are borrowed.
 */
#ifndef EGG_BUILTIN_AFFINE_H
#define EGG_BUILTIN_AFFINE_H

#include "builtin/lift/ir.h"

enum affine_kind { AFF_ROW_MAJOR, AFF_TRANSPOSED, AFF_ROW_ONLY, AFF_COL_ONLY, AFF_OTHER, AFF_CLAMPED };

struct affine_access {
	enum affine_kind kind;
	long dr, dc; /* AFF_ROW_MAJOR, AFF_CLAMPED: the offset of the neighbour */
};

/* ix uses IR_ROW and IR_COL (not IR_I); rows and cols are the domain's extents. */
struct affine_access affine_classify(const struct ir_expr *ix, const struct ir_expr *rows,
                                     const struct ir_expr *cols);

#endif
