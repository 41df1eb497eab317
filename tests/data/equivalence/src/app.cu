// app.cu -- a program built from .cu, .cpp and .c inputs; runs without a GPU.
#include <cstdio>
int host_helper(int v);
extern "C" int c_helper(int v);

__global__ void touch(int *p) { *p = 1; }

int main(int argc, char **argv)
{
	std::printf("app: %d %d\n", host_helper(20), c_helper(1));
	for (int i = 1; i < argc; i++)
		std::printf("arg %d: %s\n", i, argv[i]);
	return 0;
}
