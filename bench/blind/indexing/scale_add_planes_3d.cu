// A stack of D planes of H x W: every plane scaled by its own factor, plus
// one H x W plane shared by all (a broadcast over the first dimension).
// 3-D launch: blockIdx.z is the plane.
// egg-bench: family = elementwise
// egg-bench: flops = 2 * D * H * W
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(e) do { cudaError_t r_ = (e); if (r_ != cudaSuccess) { \
    std::printf("[CUDA ERROR] %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(r_)); std::exit(EXIT_FAILURE); } } while (0)

__global__ void scale_add_plane(float *out, const float *in, const float *scale, const float *plane,
                                int H, int W)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x < W && y < H) {
        size_t hw = (size_t)y * W + x;
        size_t idx = (size_t)z * H * W + hw;
        out[idx] = in[idx] * scale[z] + plane[hw];
    }
}

#pragma egg optimize in(in[D * H * W], scale[D], plane[H * W]) out(out[D * H * W]) \
        workload(D = 64, H = 1024, W = 1024) workload(D = 3, H = 17, W = 45)
void scale_add_planes(float *out, const float *in, const float *scale, const float *plane, int D, int H, int W)
{
    const dim3 block(32, 8, 1);
    const dim3 grid((W + 31) / 32, (H + 7) / 8, D);
    scale_add_plane<<<grid, block>>>(out, in, scale, plane, H, W);
    cudaCheck(cudaGetLastError());
}
