// 5-point Jacobi step on a 2-D grid, written with a 2-D thread index: x and y
// from .x and .y, a guard that keeps the threads on the interior, and a
// kernel that writes only the interior. The boundary of the result is the
// boundary of the input (Dirichlet), copied by the launcher first.
// egg-bench: family = stencil
// egg-bench: flops = 6 * nx * ny
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t status_ = (call);                                           \
        if (status_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(status_));                               \
            std::exit(1);                                                       \
        }                                                                       \
    } while (0)

__global__ void jacobi5(const float *u, float *v, int nx, int ny, float c0, float c1)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
        v[y * nx + x] = c0 * u[y * nx + x] +
                        c1 * (u[y * nx + x - 1] + u[y * nx + x + 1] +
                              u[(y - 1) * nx + x] + u[(y + 1) * nx + x]);
    }
}

#pragma egg optimize in(u[nx * ny]) out(v[nx * ny]) tolerance(rtol = 1e-5, atol = 1e-5) \
        workload(nx = 8192, ny = 8192, c0 = 0.5, c1 = 0.125) \
        workload(nx = 67, ny = 29, c0 = 0.6, c1 = 0.1)
void stencil5_xy(const float *u, float *v, int nx, int ny, float c0, float c1)
{
    CUDA_CHECK(cudaMemcpy(v, u, sizeof(float) * nx * ny, cudaMemcpyDeviceToDevice));
    dim3 block(32, 8);
    dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
    jacobi5<<<grid, block>>>(u, v, nx, ny, c0, c1);
    CUDA_CHECK(cudaGetLastError());
}
