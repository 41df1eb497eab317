// gemm_driver.cpp -- runs one builtin gemm candidate (CAND, made emulable from
// `egg generate` output) on the CPU stand-in for CUDA
// (builtin/tests/emu/cuda_runtime.h) against a float64 reference for the bundle
// named by CASE_*, on the sizes given on the command line; prints
// "vec=0|1 max_err=E OK|BAD" (vec=1: a 16-byte load ran) and exits 1 on a wrong
// or NaN result.
#include CAND

static float rnd() { return (float)rand() / RAND_MAX * 2 - 1; }
static void fill(std::vector<float> &v) { for (auto &x : v) x = rnd(); }
static double maxe;
static int bad; /* sticky: a NaN never compares */
static void expect(double want, float got)
{
	double e = fabs(want - got);
	if (!(e <= 1e-3))
		bad = 1;
	if (e > maxe)
		maxe = e;
}

int main(int argc, char **argv)
{
	int a1 = atoi(argv[1]), a2 = atoi(argv[2]), a3 = atoi(argv[3]), a4 = argc > 4 ? atoi(argv[4]) : 0;
#if defined(CASE_AW) /* M N K offset: C = A B, row-major; offset misaligns every pointer */
	int M = a1, N = a2, K = a3, off = a4;
	std::vector<float> Ab(M * K + 8), Bb(K * N + 8), Cb(M * N + 8, NAN), A0(M * K), B0(K * N);
	fill(A0), fill(B0);
	float *A = Ab.data() + off, *B = Bb.data() + off, *C = Cb.data() + off;
	memcpy(A, A0.data(), A0.size() * 4), memcpy(B, B0.data(), B0.size() * 4);
	gemm_awkward(A, B, C, M, N, K);
	for (int r = 0; r < M; r++)
		for (int c = 0; c < N; c++) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += (double)A[r * K + k] * B[k * N + c];
			expect(s, C[r * N + c]);
		}
#elif defined(CASE_TN) /* M N K: C = 1.5 A^T B - 0.5 C, A stored K x M */
	int M = a1, N = a2, K = a3;
	std::vector<float> A(K * M), B(K * N), C(M * N);
	fill(A), fill(B), fill(C);
	std::vector<float> C0 = C;
	gemm_tn_alpha_beta(A.data(), B.data(), C.data(), M, N, K, 1.5f, -0.5f);
	for (int r = 0; r < M; r++)
		for (int c = 0; c < N; c++) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += (double)A[k * M + r] * B[k * N + c];
			expect(1.5 * s - 0.5 * C0[r * N + c], C[r * N + c]);
		}
#elif defined(CASE_LIN) /* rows out in: y = gelu(x w^T + bias) + res */
	int rows = a1, out = a2, in = a3;
	std::vector<float> x(rows * in), w(out * in), bias(out), res(rows * out), y(rows * out, NAN);
	fill(x), fill(w), fill(bias), fill(res);
	linear_gelu_odd(x.data(), w.data(), bias.data(), res.data(), y.data(), rows, in, out);
	for (int r = 0; r < rows; r++)
		for (int o = 0; o < out; o++) {
			double s = bias[o];
			for (int i = 0; i < in; i++)
				s += (double)x[r * in + i] * w[o * in + i];
			expect(0.5 * s * (1 + erf(s * 0.70710678)) + res[r * out + o], y[r * out + o]);
		}
#elif defined(CASE_FLAT) /* M N K: C = tanh(A B^T), B stored N x K */
	int M = a1, N = a2, K = a3;
	std::vector<float> A(M * K), B(N * K), C(M * N, NAN);
	fill(A), fill(B);
	gemm_flat_nt(A.data(), B.data(), C.data(), M, N, K);
	for (int r = 0; r < M; r++)
		for (int c = 0; c < N; c++) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += (double)A[r * K + k] * B[c * K + k];
			expect(tanh(s), C[r * N + c]);
		}
#elif defined(CASE_BMM) /* batch m n k */
	int batch = a1, m = a2, n = a3, k = a4;
	std::vector<float> a(batch * m * k), b(batch * k * n), c(batch * m * n, NAN);
	fill(a), fill(b);
	bmm_odd(a.data(), b.data(), c.data(), batch, m, n, k);
	for (int z = 0; z < batch; z++)
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++) {
				double s = 0;
				for (int p = 0; p < k; p++)
					s += (double)a[z * m * k + i * k + p] * b[z * k * n + p * n + j];
				expect(s, c[z * m * n + i * n + j]);
			}
#endif
	printf("vec=%d max_err=%g %s\n", egg_emu_vec_loads > 0, maxe, bad ? "BAD" : "OK");
	return bad;
}
