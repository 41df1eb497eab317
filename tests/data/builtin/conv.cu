// Direct convolutions written as a first version usually is: a thread per
// output, a loop over input channels with a loop over the taps inside it (or the
// other way round), for the builtin generator's contraction family.
#include <cuda_runtime.h>

// 1-D convolution, 3 taps, stride 1, no padding.  x: [batch, cin, len],
// w: [cout, cin, 3], y: [batch, cout, len - 2].  The output channel is blockIdx.y
// (the grid gives its extent: there is no guard on it) and the batch blockIdx.z.
__global__ void conv_taps3(const float *x, const float *w, float *y, int cin, int cout, int len)
{
	int olen = len - 2;
	int t = threadIdx.x + blockIdx.x * blockDim.x;
	int oc = blockIdx.y;
	int b = blockIdx.z;
	if (t < olen) {
		float acc = 0.0f;
		for (int ic = 0; ic < cin; ic++) {
			const float *xr = x + ((long)b * cin + ic) * len;
			const float *wr = w + (oc * cin + ic) * 3;
			for (int k = 0; k < 3; k++)
				acc += wr[k] * xr[t + k];
		}
		y[((long)b * cout + oc) * olen + t] = acc;
	}
}

#pragma egg optimize in(x[batch * cin * len], w[cout * cin * 3]) out(y[batch * cout * (len - 2)]) \
	workload(batch = 3, cin = 5, cout = 7, len = 257) workload(batch = 8, cin = 64, cout = 64, len = 8192) \
	tolerance(rtol = 1e-4, atol = 1e-4)
void conv1d_taps3(const float *x, const float *w, float *y, int batch, int cin, int cout, int len)
{
	int olen = len - 2;
	dim3 grid((olen + 127) / 128, cout, batch);
	conv_taps3<<<grid, 128>>>(x, w, y, cin, cout, len);
}

// 1-D convolution with a run-time kernel size, the taps outer and the channels
// inner, bias and ReLU after.  x: [batch, cin, len], w: [cout, cin, ks],
// y: [batch, cout, len - ks + 1].
__global__ void conv_ks_relu(const float *x, const float *w, const float *bias, float *y, int cin,
                             int cout, int len, int ks)
{
	int olen = len - ks + 1;
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int oc = blockIdx.y * blockDim.y + threadIdx.y;
	int b = blockIdx.z;
	if (t >= olen || oc >= cout)
		return;
	float s = bias[oc];
	for (int k = 0; k < ks; k++)
		for (int c = 0; c < cin; c++)
			s += x[((size_t)b * cin + c) * len + t + k] * w[(oc * cin + c) * ks + k];
	y[((size_t)b * cout + oc) * olen + t] = s > 0.0f ? s : 0.0f;
}

#pragma egg optimize in(x[batch * cin * len], w[cout * cin * ks], bias[cout]) \
	out(y[batch * cout * (len - ks + 1)]) \
	workload(batch = 2, cin = 3, cout = 5, len = 131, ks = 5) \
	workload(batch = 4, cin = 32, cout = 48, len = 4099, ks = 7) \
	tolerance(rtol = 1e-4, atol = 1e-4)
void conv1d_ks_relu(const float *x, const float *w, const float *bias, float *y, int batch, int cin,
                    int cout, int len, int ks)
{
	dim3 block(64, 4);
	dim3 grid((len - ks + 1 + 63) / 64, (cout + 3) / 4, batch);
	conv_ks_relu<<<grid, block>>>(x, w, bias, y, cin, cout, len, ks);
}

// The same with one flat index over every output, split into its three digits
// (time, output channel, batch), and the guard's bound a local.
__global__ void conv_flat(const float *x, const float *w, float *y, int B, int CI, int CO, int L, int K)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	int OL = L - K + 1;
	int total = B * CO * OL;
	if (idx >= total)
		return;
	int t = idx % OL;
	int oc = (idx / OL) % CO;
	int b = idx / OL / CO;
	float sum = 0.0f;
	for (int ci = 0; ci < CI; ++ci) {
		for (int k = 0; k < K; ++k) {
			sum += x[(b * CI + ci) * L + t + k] * w[(oc * CI + ci) * K + k];
		}
	}
	y[idx] = sum;
}

#pragma egg optimize in(x[B * CI * L], w[CO * CI * K]) out(y[B * CO * (L - K + 1)]) \
	workload(B = 2, CI = 3, CO = 5, L = 101, K = 3) workload(B = 8, CI = 32, CO = 64, L = 8192, K = 5) \
	tolerance(rtol = 1e-4, atol = 1e-4)
void conv1d_flat(const float *x, const float *w, float *y, int B, int CI, int CO, int L, int K)
{
	int total = B * CO * (L - K + 1);
	conv_flat<<<(total + 255) / 256, 256>>>(x, w, y, B, CI, CO, L, K);
}
