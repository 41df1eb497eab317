// cublas_ref.cu -- the reference of bench/gemm: cuBLAS SGEMM (fp32 on the CUDA
// cores, no TF32) at one shape, timed as the check programs time a candidate
// (a warm-up, then the mean of 20 runs between CUDA events), alone and followed
// by the case's epilogue as a second kernel (what an unfused PyTorch layer runs).
//
//   cublas_ref NAME LAYOUT M N K BATCH EPILOGUE [PRECISION]
//
// LAYOUT nn: C = A B, A (M, K) and B (K, N) row-major; nt: C = A W^T, W (N, K)
// row-major (a linear layer's weight).  EPILOGUE none, bias, bias_relu or
// bias_gelu (tanh form).  PRECISION fp32 (default) or tf32 (TF32 tensor-op
// math, the reference of a precision(tf32) bundle).  Prints "CUBLAS NAME gemm_ms=T total_ms=T tflops=R".
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                            \
	do {                                                                             \
		if ((x) != 0) {                                                          \
			fprintf(stderr, "cublas_ref: %s failed at line %d\n", #x, __LINE__); \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

__global__ void fill(float *p, size_t n, unsigned seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		unsigned h = (unsigned)i * 2654435761u ^ seed;
		h ^= h >> 15;
		h *= 2246822519u;
		h ^= h >> 13;
		p[i] = (float)(h & 0xffffff) / 8388608.0f - 1.0f;
	}
}

__global__ void epilogue(float *c, const float *bias, size_t rows, int n, int kind)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * n; i += (size_t)gridDim.x * blockDim.x) {
		float x = c[i] + bias[i % n];
		if (kind == 2)
			x = x > 0.0f ? x : 0.0f;
		else if (kind == 3)
			x = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
		c[i] = x;
	}
}

int main(int argc, char **argv)
{
	if (argc != 8 && argc != 9) {
		fprintf(stderr, "usage: %s NAME nn|nt M N K BATCH none|bias|bias_relu|bias_gelu [fp32|tf32]\n", argv[0]);
		return 2;
	}
	const char *name = argv[1];
	const int nt = strcmp(argv[2], "nt") == 0;
	const long long M = atoll(argv[3]), N = atoll(argv[4]), K = atoll(argv[5]), batch = atoll(argv[6]);
	const char *e = argv[7];
	const int kind = !strcmp(e, "bias") ? 1 : !strcmp(e, "bias_relu") ? 2 : !strcmp(e, "bias_gelu") ? 3 : 0;
	float *a, *b, *c, *bias;
	CK(cudaMalloc(&a, batch * M * K * sizeof(float)));
	CK(cudaMalloc(&b, batch * K * N * sizeof(float)));
	CK(cudaMalloc(&c, batch * M * N * sizeof(float)));
	CK(cudaMalloc(&bias, N * sizeof(float)));
	fill<<<1024, 256>>>(a, batch * M * K, 1);
	fill<<<1024, 256>>>(b, batch * K * N, 2);
	fill<<<1024, 256>>>(bias, N, 3);
	cublasHandle_t h;
	CK(cublasCreate(&h));
	const int tf32 = argc == 9 && strcmp(argv[8], "tf32") == 0;
	/* fp32 FMA (no TF32), or TF32 tensor cores */
	CK(cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
	const float one = 1.0f, zero = 0.0f;
	/* row-major C (M, N) is column-major C^T (N, M) = op(B)^T-side first */
	auto gemm = [&]() {
		if (nt)
			CK(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, b, (int)K,
			                             K * N, a, (int)K, M * K, &zero, c, (int)N, M * N, (int)batch));
		else
			CK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, b, (int)N,
			                             K * N, a, (int)K, M * K, &zero, c, (int)N, M * N, (int)batch));
	};
	auto epi = [&]() {
		if (kind)
			epilogue<<<1024, 256>>>(c, bias, batch * M, (int)N, kind);
	};
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	float ms[2];
	for (int pass = 0; pass < 2; pass++) {
		gemm();
		if (pass)
			epi();
		CK(cudaDeviceSynchronize());
		CK(cudaEventRecord(e0));
		for (int r = 0; r < 20; r++) {
			gemm();
			if (pass)
				epi();
		}
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms[pass], e0, e1));
		ms[pass] /= 20;
	}
	CK(cudaGetLastError());
	printf("CUBLAS %s gemm_ms=%.4f total_ms=%.4f tflops=%.2f\n", name, ms[0], ms[1],
	       2.0 * batch * M * N * K / (ms[0] * 1e-3) / 1e12);
	return 0;
}
