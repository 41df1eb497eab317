/* @LABEL@: consecutive launches of @KERNEL@ whose accesses stay at i and
 * i ^ (@OFFSET@) are queued on the host; while the offset is below @TILE@ every
 * access of element i stays inside i's aligned tile of @TILE@ elements, so a run
 * of up to @P@_cap launches is applied by one launch that loads each tile into
 * shared memory once, runs every queued step's body there (the original body,
 * one call per element a launch covered, a barrier between steps) and stores it
 * once.  Other launches flush the queue and run the original kernel.  When the
 * body does nothing for an element whose partner lies below it (@LOWER@), only
 * the lower element of each pair is visited. */
@KERNEL_COPY@
/* the buffer as the body sees it: element x of the tile that starts at base */
struct @P@_tile {
	@T@ *egg_s;
	long long egg_base;
	__device__ __forceinline__ @T@ &operator[](long long x) const { return egg_s[x - egg_base]; }
};

static __device__ __forceinline__ void @P@_body(@BODY_PARAMS@, @INDEX_PARAMS@)
@BODY@
/* a step: the launch's arguments but the buffer, and its 1-D geometry */
struct @P@_args {
@FIELDS@
	unsigned egg_grid, egg_block;
	int egg_hb; /* the offset's highest set bit (5 for 0), below log2(@TILE@) */
};
enum { @P@_cap = 3072 / sizeof(struct @P@_args) < 64 ? (int)(3072 / sizeof(struct @P@_args)) : 64 };
struct @P@_steps {
	struct @P@_args s[@P@_cap];
};
struct @P@_queue {
	@T@ *buf;
	long long extent, cover;
	int n;
	struct @P@_steps steps;
};

__global__ void __launch_bounds__(@TPB@) @P@_fused(@T@ *__restrict__ egg_buf, long long egg_extent, int egg_n, const struct @P@_steps egg_steps)
{
	__shared__ @T@ egg_s[@TILE@];
	const long long egg_base = (long long)blockIdx.x * @TILE@;
#pragma unroll
	for (int egg_r = 0; egg_r < @TILE@ / @TPB@; egg_r++) {
		const int egg_e = threadIdx.x + egg_r * @TPB@;
		if (egg_base + egg_e < egg_extent)
			egg_s[egg_e] = egg_buf[egg_base + egg_e];
	}
	__syncthreads();
	const struct @P@_tile egg_t = { egg_s, egg_base };
	for (int egg_k = 0; egg_k < egg_n; egg_k++) {
		const struct @P@_args egg_a = egg_steps.s[egg_k];
		const long long egg_cover = (long long)egg_a.egg_grid * egg_a.egg_block;
		if (@LOWER@) {
			/* the body does nothing for an element whose partner lies below it:
			 * slot e takes the e-th lower element, e with a 0 inserted at bit hb */
#pragma unroll
			for (int egg_r = 0; egg_r < (@TILE@ / 2 + @TPB@ - 1) / @TPB@; egg_r++) {
				const int egg_e = threadIdx.x + egg_r * @TPB@;
				const int egg_lo = egg_e & ((1 << egg_a.egg_hb) - 1);
				const long long egg_x = egg_base + (((egg_e - egg_lo) << 1) | egg_lo);
				if (egg_e < @TILE@ / 2 && egg_x < egg_cover)
					@P@_body(@BODY_ARGS@, @INDEX_ARGS@);
			}
		} else {
#pragma unroll
			for (int egg_r = 0; egg_r < @TILE@ / @TPB@; egg_r++) {
				const int egg_e = threadIdx.x + egg_r * @TPB@;
				/* slot e takes element x, a permutation of the tile (the threads of a
				 * launch run in any order): bits 5 and hb of e swapped, so that the 32
				 * slots of a warp (bit 5 fixed) hold only lower or only upper partners
				 * and the body's test of the partner does not split the warp */
				const int egg_d = ((egg_e >> egg_a.egg_hb) ^ (egg_e >> 5)) & 1;
				const long long egg_x = egg_base + (egg_e ^ (egg_d << egg_a.egg_hb) ^ (egg_d << 5));
				if (egg_x < egg_cover)
					@P@_body(@BODY_ARGS@, @INDEX_ARGS@);
			}
		}
		__syncthreads();
	}
#pragma unroll
	for (int egg_r = 0; egg_r < @TILE@ / @TPB@; egg_r++) {
		const int egg_e = threadIdx.x + egg_r * @TPB@;
		if (egg_base + egg_e < egg_extent)
			egg_buf[egg_base + egg_e] = egg_s[egg_e];
	}
}

static void @P@_flush(struct @P@_queue *egg_q)
{
	if (egg_q->n == 0)
		return;
	const long long lim = egg_q->cover < egg_q->extent ? egg_q->cover : egg_q->extent;
	if (lim > 0)
		@P@_fused<<<(unsigned)((lim + @TILE@ - 1) / @TILE@), @TPB@>>>(egg_q->buf, egg_q->extent, egg_q->n, egg_q->steps);
	egg_q->n = 0;
	egg_q->cover = 0;
}

/* a launch of @KERNEL@ on a buffer of egg_extent elements: queued, or run as written */
static void @P@_step(struct @P@_queue *egg_q, long long egg_extent, dim3 egg_grid, dim3 egg_block, @STEP_PARAMS@)
{
	const long long egg_off = (long long)(@OFFSET@);
	if (egg_off < 0 || egg_off >= @TILE@ || egg_grid.x == 0 || egg_grid.y != 1 || egg_grid.z != 1 ||
	    egg_block.x == 0 || egg_block.x > 1024 || egg_block.y != 1 || egg_block.z != 1) {
		@P@_flush(egg_q);
		@P@_@KERNEL@<<<egg_grid, egg_block>>>(@LAUNCH_ARGS@);
		return;
	}
	if (egg_q->n == @P@_cap || (egg_q->n > 0 && (egg_q->buf != @BUF@ || egg_q->extent != egg_extent)))
		@P@_flush(egg_q);
	egg_q->buf = @BUF@;
	egg_q->extent = egg_extent;
	struct @P@_args *egg_a = &egg_q->steps.s[egg_q->n++];
@STORES@
	egg_a->egg_grid = egg_grid.x;
	egg_a->egg_block = egg_block.x;
	egg_a->egg_hb = egg_off ? -1 : 5;
	for (long long egg_o = egg_off; egg_o; egg_o >>= 1)
		egg_a->egg_hb++;
	const long long egg_cover = (long long)egg_grid.x * egg_block.x;
	if (egg_cover > egg_q->cover)
		egg_q->cover = egg_cover;
}
