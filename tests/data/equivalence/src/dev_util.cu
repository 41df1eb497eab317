// dev_util.cu -- a device function called from another translation unit (-rdc).
__device__ float dev_scale(float v)
{
	return v * 3.0f + 1.0f;
}
