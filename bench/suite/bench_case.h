/*
 * bench_case.h -- the table a generated per-case glue file (casefile.py) fills in
 * for bench_main.cu.  Every number here was evaluated from the case's pragma by
 * the generator, so bench_main needs no expression evaluator: it allocates,
 * fills, runs, checks that outputs were written, dumps and times from this table.
 * All pointers point to static data of the glue file.
 */
#ifndef EGG_BENCH_CASE_H
#define EGG_BENCH_CASE_H

/* BT_BF16: __nv_bfloat16 storage (2 bytes); the driver handles it as bits */
enum bench_dtype { BT_F32, BT_F64, BT_I32, BT_I64, BT_U32, BT_U64, BT_I8, BT_U8, BT_BF16 };
enum bench_role { BR_IN, BR_OUT, BR_INOUT, BR_TEMP };

struct bench_buffer {
	const char *name;
	int dtype; /* enum bench_dtype */
	int role;  /* enum bench_role */
};

struct bench_workload {
	const double *scalars;     /* one per case scalar, in scalar order */
	const long long *extents;  /* elements, one per buffer */
	const double *range_lo;    /* per buffer: random inputs from [lo, hi) */
	const double *range_hi;
	double bytes;              /* minimum traffic: in + out + 2*inout, temp excluded */
	double flops;              /* from the case's "egg-bench: flops" formula */
};

struct bench_case {
	const char *name;
	const char *family;
	int nbuf;
	const struct bench_buffer *bufs;
	int nscalar;
	const char *const *scalar_names;
	int nwork;
	const struct bench_workload *work;
	/* calls the annotated launcher: bufs in buffer order, scalars in scalar order */
	void (*call)(void *const *bufs, const double *scalars);
};

extern const struct bench_case bench_this_case;

#endif
