/*
 * hostsim_cases.cpp -- host implementations of three suite launchers, for the CPU
 * test of bench_main (tests/suites/bench_suite.bash).  With -DHOSTSIM_WRONG each
 * gets one deliberate defect (an unwritten element, a wrong count, a wrong sign),
 * so the test proves that the checks can fail.
 */
#include <stdint.h>

void relu_forward(const float *x, float *y, int n)
{
	for (int i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
#ifdef HOSTSIM_WRONG
	y[n - 1] = *(const float *)"\xff\xff\xff\xff"; /* left as the poison */
#endif
}

void histogram(const int *keys, int *bins, int n, int nbins)
{
	for (int b = 0; b < nbins; b++)
		bins[b] = 0;
	for (int i = 0; i < n; i++)
		bins[keys[i]]++;
#ifdef HOSTSIM_WRONG
	bins[0]++;
#endif
}

void scale_residual_relu(const float *x, const float *residual, float *y, float *tmp, float alpha, int n)
{
	for (int i = 0; i < n; i++)
		tmp[i] = alpha * x[i];
	for (int i = 0; i < n; i++) {
		float v = tmp[i] + residual[i];
#ifdef HOSTSIM_WRONG
		v = -v;
#endif
		y[i] = v > 0.0f ? v : 0.0f;
	}
}
