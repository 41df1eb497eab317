// One explicit step of the heat equation on a 3-D grid (7-point Laplacian):
// a 2-D block of threads per (x, y) tile and blockIdx.z walking the planes.
// Boundary points keep their value.
// egg-bench: family = stencil
// egg-bench: flops = 9 * nx * ny * nz
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t err = (x); if (err != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(err), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void heat7(float *out, const float *in, int nx, int ny, int nz, float alpha)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z;
    if (i >= nx || j >= ny)
        return;
    size_t plane = (size_t)nx * ny;
    size_t p = k * plane + (size_t)j * nx + i;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        out[p] = in[p];
        return;
    }
    float lap = in[p - 1] + in[p + 1] + in[p - nx] + in[p + nx] + in[p - plane] + in[p + plane]
                - 6.0f * in[p];
    out[p] = in[p] + alpha * lap;
}

#pragma egg optimize in(in[nx * ny * nz]) out(out[nx * ny * nz]) tolerance(rtol = 1e-5, atol = 1e-5) \
        workload(nx = 400, ny = 400, nz = 400, alpha = 0.1) \
        workload(nx = 13, ny = 11, nz = 7, alpha = 0.15)
void stencil7_3d(float *out, const float *in, int nx, int ny, int nz, float alpha)
{
    dim3 threads(32, 4, 1);
    dim3 blocks((nx + threads.x - 1) / threads.x, (ny + threads.y - 1) / threads.y, nz);
    heat7<<<blocks, threads>>>(out, in, nx, ny, nz, alpha);
    CK(cudaGetLastError());
}
