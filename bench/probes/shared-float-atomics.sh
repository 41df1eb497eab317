#!/bin/bash
# shared-float-atomics.sh -- what sm_90 compiles a shared-memory atomicAdd to: ATOMS.POPC.INC for an int,
# an ATOMS.CAST.SPIN compare-and-swap loop for a float (there is no shared float add). Needs nvcc and cuobjdump.
# Output on 2026-12-02 (CUDA 13.0, the device tool's H200 machine):
#   		Function : _Z2kiPKiPii
#           /*0120*/                   ATOMS.POPC.INC.32 RZ, [R0+URZ] ;                         /* 0x0000000000ff7f8c */
#           /*01d0*/                   REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5 ;             /* 0x000000050200798e */
#   		Function : _Z1kPKiPKfPfi
#           /*0170*/                   ATOMS.CAST.SPIN R3, [R0], R2, R3 ;                       /* 0x000000020003738d */
#           /*0240*/                   REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR6][R2.64], R5 ;  /* 0x00000005020079a6 */
cd /tmp && cat > sa.cu <<'X'
__global__ void k(const int *b, const float *w, float *h, int n){ extern __shared__ float s[]; int i=threadIdx.x+blockIdx.x*blockDim.x; if(i<n) atomicAdd(&s[b[i]], w[i]); __syncthreads(); if(threadIdx.x<1000) atomicAdd(&h[threadIdx.x], s[threadIdx.x]);}
__global__ void ki(const int *b, int *h, int n){ extern __shared__ int si[]; int i=threadIdx.x+blockIdx.x*blockDim.x; if(i<n) atomicAdd(&si[b[i]], 1); __syncthreads(); if(threadIdx.x<1000) atomicAdd(&h[threadIdx.x], si[threadIdx.x]);}
X
nvcc -arch=sm_90 -cubin -o sa.cubin sa.cu && cuobjdump -sass sa.cubin | grep -E "Function|ATOM|RED|CAS" 
