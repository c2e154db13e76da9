#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
static int p4(int x){return (x+3)&~3;}
int main(void){
  cublasHandle_t h; if(cublasCreate(&h)){printf("create fail\n");return 1;}
  int ver; cublasGetVersion(h,&ver); printf("cublas %d\n",ver);
  void *A,*B,*C; cudaMalloc(&A,1<<24); cudaMalloc(&B,1<<24); cudaMalloc(&C,1<<26);
  int sz[]={1,2,3,4,5,6,7,8,9,12,13,16,17,32,33,40,65,77,301};
  int ns=sizeof sz/sizeof *sz; int32_t one=1,zero=0;
  for(int pc=0;pc<2;pc++)
  for(int ta=0;ta<2;ta++)for(int tb=0;tb<2;tb++){
    long fail=0,tot=0;
    for(int a=0;a<ns;a++)for(int b=0;b<ns;b++)for(int c=0;c<ns;c++){
      int m=sz[a],n=sz[b],k=sz[c];
      int lda=p4(ta?k:m), ldb=p4(tb?n:k), ldc=pc?p4(m):m;
      cublasStatus_t s=cublasGemmEx(h,ta?CUBLAS_OP_T:CUBLAS_OP_N,tb?CUBLAS_OP_T:CUBLAS_OP_N,m,n,k,&one,A,CUDA_R_8I,lda,B,CUDA_R_8I,ldb,&zero,C,CUDA_R_32I,ldc,CUBLAS_COMPUTE_32I,CUBLAS_GEMM_DEFAULT);
      tot++;
      if(s){fail++; printf("FAIL %d ldcpad=%d %c%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d\n",s,pc,ta?'T':'N',tb?'T':'N',m,n,k,lda,ldb,ldc);}
    }
    fprintf(stderr,"ldcpad=%d %c%c: %ld of %ld fail\n",pc,ta?'T':'N',tb?'T':'N',fail,tot);
  }
  cudaError_t e=cudaDeviceSynchronize(); printf("sync %d\n",(int)e);
  return 0;
}
