// Windows written as two nested loops of constant trip counts inside the loop a
// thread reduces over (a pooling window's rows and columns, a filter's taps
// inside the channel loop of a direct 2-D convolution), for the builtin
// generator: the inner constant loop is unrolled, the outer one is the column loop.
#include <cuda_runtime.h>
#include <math.h>

#define KS 3

// 3x3 max pooling, stride 2, no padding: in [planes, H, W] -> out [planes, OH, OW]
__global__ void maxpool3_k(const float *in, float *out, int H, int W, int OH, int OW)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	int p = blockIdx.y;
	if (idx >= OH * OW)
		return;
	int oy = idx / OW, ox = idx % OW;
	const float *plane = in + (size_t)p * H * W;
	float m = -INFINITY;
	for (int kh = 0; kh < KS; kh++) {
		for (int kw = 0; kw < KS; kw++) {
			float v = plane[(oy * 2 + kh) * W + ox * 2 + kw];
			m = fmaxf(m, v);
		}
	}
	out[(size_t)p * OH * OW + idx] = m;
}

#pragma egg optimize in(in[planes * H * W]) out(out[planes * ((H - 3) / 2 + 1) * ((W - 3) / 2 + 1)]) \
	workload(planes = 3, H = 33, W = 65) workload(planes = 256, H = 224, W = 224)
void maxpool3(const float *in, float *out, int planes, int H, int W)
{
	int OH = (H - 3) / 2 + 1, OW = (W - 3) / 2 + 1;
	dim3 grid((OH * OW + 255) / 256, planes);
	maxpool3_k<<<grid, 256>>>(in, out, H, W, OH, OW);
}

// Direct 3x3 convolution, stride 1, no padding: x [B, CI, H, W], w [CO, CI, 3, 3],
// y [B, CO, H - 2, W - 2]; one flat index over the outputs, taps -1..1 around
// the centre (kh <= 1)
__global__ void conv3x3_k(const float *x, const float *w, float *y, int B, int CI, int CO, int H, int W)
{
	int OH = H - 2, OW = W - 2;
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= B * CO * OH * OW)
		return;
	int ow = idx % OW;
	int oh = (idx / OW) % OH;
	int oc = (idx / (OW * OH)) % CO;
	int b = idx / (OW * OH * CO);
	float acc = 0.0f;
	for (int ci = 0; ci < CI; ci++)
		for (int kh = -1; kh <= 1; kh++)
			for (int kw = -1; kw <= 1; kw++)
				acc += x[((b * CI + ci) * H + oh + 1 + kh) * W + ow + 1 + kw] *
				       w[((oc * CI + ci) * 3 + kh + 1) * 3 + kw + 1];
	y[idx] = acc;
}

#pragma egg optimize in(x[B * CI * H * W], w[CO * CI * 9]) out(y[B * CO * (H - 2) * (W - 2)]) \
	workload(B = 2, CI = 3, CO = 4, H = 17, W = 19) workload(B = 8, CI = 32, CO = 32, H = 66, W = 66) \
	tolerance(rtol = 1e-4, atol = 1e-4)
void conv3x3(const float *x, const float *w, float *y, int B, int CI, int CO, int H, int W)
{
	int total = B * CO * (H - 2) * (W - 2);
	conv3x3_k<<<(total + 255) / 256, 256>>>(x, w, y, B, CI, CO, H, W);
}
