#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

// stencils written the ways the blind indexing batch writes them
#define cudaCheck(e) (check_status((e), #e))
static void check_status(cudaError_t s, const char *what)
{
	if (s != cudaSuccess) {
		fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(s));
		exit(EXIT_FAILURE);
	}
}

// clamped edges written as selects and one-sided min/max, the column recomputed
// as t - r * cols; a grid-stride loop whose grid the launcher sizes from the SM count
__global__ void smooth5_clamped(float *dst, const float *src, int rows, int cols, float wc, float ws)
{
	const long long total = (long long)rows * cols;
	const long long step = (long long)gridDim.x * blockDim.x;
	for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += step) {
		const int r = (int)(t / cols), c = (int)(t - (long long)r * cols);
		const size_t above = (size_t)(r > 0 ? r - 1 : 0) * cols, below = (size_t)(r < rows - 1 ? r + 1 : rows - 1) * cols;
		const size_t here = (size_t)r * cols;
		float side = src[above + c] + src[below + c];
		side += src[here + max(c - 1, 0)] + src[here + min(c + 1, cols - 1)];
		dst[t] = wc * src[t] + ws * side;
	}
}

#pragma egg optimize in(src[rows * cols]) out(dst[rows * cols]) tolerance(rtol = 1e-5, atol = 1e-5) \
	workload(rows = 37, cols = 61, wc = 0.6, ws = 0.1) workload(rows = 1, cols = 5, wc = 0.2, ws = 0.2)
void smooth5_gridstride(float *dst, const float *src, int rows, int cols, float wc, float ws)
{
	int dev = 0, sms = 0;
	cudaCheck(cudaGetDevice(&dev));
	cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	smooth5_clamped<<<sms * 4, 256>>>(dst, src, rows, cols, wc, ws);
	cudaCheck(cudaGetLastError());
}

// a border kept by an early return before the interior's update, over a 2-D
// block of threads and blockIdx.z walking the planes: a map whose border is a select
__global__ void diffuse7(float *next, const float *cur, int nx, int ny, int nz, float k)
{
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y = blockIdx.y * blockDim.y + threadIdx.y;
	const int z = blockIdx.z;
	if (x >= nx || y >= ny)
		return;
	const size_t slab = (size_t)nx * ny;
	const size_t at = z * slab + (size_t)y * nx + x;
	if (z == 0 || z == nz - 1 || y == 0 || y == ny - 1 || x == 0 || x == nx - 1) {
		next[at] = cur[at];
		return;
	}
	const float sum6 = cur[at - slab] + cur[at + slab] + cur[at - nx] + cur[at + nx] + cur[at - 1] + cur[at + 1];
	next[at] = cur[at] + k * (sum6 - 6.0f * cur[at]);
}

#pragma egg optimize in(cur[nx * ny * nz]) out(next[nx * ny * nz]) tolerance(rtol = 1e-5, atol = 1e-5) \
	workload(nx = 19, ny = 7, nz = 5, k = 0.1) workload(nx = 3, ny = 3, nz = 3, k = 0.2)
void diffuse7_3d(float *next, const float *cur, int nx, int ny, int nz, float k)
{
	dim3 tb(16, 4);
	dim3 gr((nx + 15) / 16, (ny + 3) / 4, nz);
	diffuse7<<<gr, tb>>>(next, cur, nx, ny, nz, k);
}

// a 3x3 window of weights written as two small loops around taps at idx + dr * W + dc,
// the border set to a constant by an early return (a launcher naming the kernel in a
// message too)
__global__ void window3(const float *src, const float *taps, float *dst, int H, int W)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= H * W)
		return;
	int r = idx / W, c = idx % W;
	if (c == 0 || c == W - 1 || r == 0 || r == H - 1) {
		dst[idx] = -1.0f;
		return;
	}
	float s = 0.0f;
	for (int a = -1; a < 2; a++)
		for (int b = -1; b < 2; b++)
			s += taps[3 * a + b + 4] * src[idx + a * W + b];
	dst[idx] = s;
}

#pragma egg optimize in(src[H * W], taps[9]) out(dst[H * W]) tolerance(rtol = 1e-5, atol = 1e-5) \
	workload(H = 29, W = 47) workload(H = 3, W = 3)
void window3_flat(const float *src, const float *taps, float *dst, int H, int W)
{
	window3<<<(H * W + 127) / 128, 128>>>(src, taps, dst, H, W);
	check_status(cudaGetLastError(), "window3");
}

// a Dirichlet border copied by the launcher (cudaMemcpy device to device) before
// a kernel over a 2-D thread index that writes only the interior
__global__ void relax5(const float *a, float *b, int w, int h, float keep, float mix)
{
	int col = threadIdx.x + blockIdx.x * blockDim.x;
	int row = threadIdx.y + blockIdx.y * blockDim.y;
	if (col >= 1 && row >= 1 && col < w - 1 && row < h - 1) {
		int e = row * w + col;
		b[e] = keep * a[e] + mix * (a[e - w] + a[e + w] + a[e - 1] + a[e + 1]);
	}
}

#pragma egg optimize in(a[w * h]) out(b[w * h]) tolerance(rtol = 1e-5, atol = 1e-5) \
	workload(w = 45, h = 21, keep = 0.5, mix = 0.125) workload(w = 3, h = 2, keep = 0.6, mix = 0.1)
void relax5_dirichlet(const float *a, float *b, int w, int h, float keep, float mix)
{
	cudaCheck(cudaMemcpy(b, a, (size_t)w * h * sizeof(float), cudaMemcpyDeviceToDevice));
	dim3 t(16, 16);
	relax5<<<dim3((w + 15) / 16, (h + 15) / 16), t>>>(a, b, w, h, keep, mix);
}
