// First versions written by a helper that had seen neither the recipes nor the
// suite (modelled on KernelBench level 1), two of a batch of fourteen that the
// builtin generator did not lift before builtin-11: guards that also bound a
// plane of the grid (blockIdx.y or .z) by the grid's own extent, and a 2-D
// thread index around loops (a padded 3x3 convolution, its taps unrolled and
// their bounds checks as selects), and a pooling window of run-time size (two
// nested loops collapsed into one).
#include <cuda_runtime.h>

// torch.min(x, dim=1) values for x: [B, D1, D2] -> out: [B, D2]
__global__ void min_reduce_dim1_kernel(const float* x, float* out, int B, int D1, int D2)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // index in D2
    int b = blockIdx.y;                              // batch
    if (j >= D2 || b >= B) return;

    const float* base = x + (size_t)b * D1 * D2 + j;
    float m = base[0];
    for (int i = 1; i < D1; i++) {
        float v = base[(size_t)i * D2];
        m = fminf(m, v);
    }
    out[(size_t)b * D2 + j] = m;
}

#pragma egg optimize in(x[B*D1*D2]) out(out[B*D2]) workload(B = 3, D1 = 17, D2 = 29) workload(B = 16, D1 = 1024, D2 = 2048) tolerance(rtol = 1e-3, atol = 1e-3)
void min_reduce_dim1(const float* x, float* out, int B, int D1, int D2)
{
    dim3 block(256);
    dim3 grid((D2 + block.x - 1) / block.x, B);
    min_reduce_dim1_kernel<<<grid, block>>>(x, out, B, D1, D2);
}

#define KSIZE 3
#define PAD 1

// 3x3 convolution, stride 1, padding 1, with bias.
// input: [N, Cin, H, W], weight: [Cout, Cin, 3, 3], bias: [Cout], output: [N, Cout, H, W]
__global__ void conv2d_padded_kernel(const float* input, const float* weight,
                                     const float* bias, float* output,
                                     int N, int Cin, int Cout, int H, int W)
{
    int ow = blockIdx.x * blockDim.x + threadIdx.x;
    int oh = blockIdx.y * blockDim.y + threadIdx.y;
    int nc = blockIdx.z;               // n * Cout + co
    if (ow >= W || oh >= H || nc >= N * Cout) return;

    int n = nc / Cout;
    int co = nc % Cout;

    float acc = bias[co];
    for (int ci = 0; ci < Cin; ++ci) {
        const float* in_plane = input + ((size_t)n * Cin + ci) * H * W;
        const float* wk = weight + ((size_t)co * Cin + ci) * KSIZE * KSIZE;
        for (int kh = 0; kh < KSIZE; ++kh) {
            int ih = oh + kh - PAD;
            for (int kw = 0; kw < KSIZE; ++kw) {
                int iw = ow + kw - PAD;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
                    acc += in_plane[ih * W + iw] * wk[kh * KSIZE + kw];
                }
            }
        }
    }
    output[((size_t)nc * H + oh) * W + ow] = acc;
}

#pragma egg optimize in(input[N*Cin*H*W], weight[Cout*Cin*9], bias[Cout]) out(output[N*Cout*H*W]) \
    workload(N = 3, Cin = 5, Cout = 7, H = 11, W = 13) \
    workload(N = 16, Cin = 64, Cout = 64, H = 128, W = 128) \
    tolerance(rtol = 1e-3, atol = 1e-3)
void conv2d_padded(const float* input, const float* weight, const float* bias,
                   float* output, int N, int Cin, int Cout, int H, int W)
{
    dim3 block(16, 16);
    dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y, N * Cout);
    conv2d_padded_kernel<<<grid, block>>>(input, weight, bias, output, N, Cin, Cout, H, W);
}

__global__ void avg_pool2d_kernel(const float* in, float* out,
                                  int N, int C, int H, int W, int k)
{
    int OH = H / k;
    int OW = W / k;
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    int plane = blockIdx.z;   // n * C + c
    if (ox < OW && oy < OH) {
        const float* p = in + (size_t)plane * H * W;
        float sum = 0.0f;
        for (int i = 0; i < k; i++) {
            for (int j = 0; j < k; j++) {
                sum += p[(oy * k + i) * W + (ox * k + j)];
            }
        }
        out[((size_t)plane * OH + oy) * OW + ox] = sum / (float)(k * k);
    }
}

#pragma egg optimize in(in[N*C*H*W]) out(out[N*C*(H/k)*(W/k)]) workload(N = 2, C = 3, H = 13, W = 11, k = 2) workload(N = 32, C = 64, H = 128, W = 128, k = 2) tolerance(rtol = 1e-3, atol = 1e-3)
void avg_pool2d(const float* in, float* out, int N, int C, int H, int W, int k)
{
    int OH = H / k;
    int OW = W / k;
    dim3 block(32, 8);
    dim3 grid((OW + 31) / 32, (OH + 7) / 8, N * C);
    avg_pool2d_kernel<<<grid, block>>>(in, out, N, C, H, W, k);
}
