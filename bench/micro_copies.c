/* Micro-measurements behind the mechanisms kept in two copies (docs/ARCHITECTURE.md,
 * "Where one mechanism still has several copies"): for each, the CPU's version against the
 * device's element operation run in a host loop, on the same data, and whether they agree.
 * White-box (the library's internal headers, the static library); one thread.
 *   build/bench/ozblas-micro-copies */
#include "crt/crt_internal.h"
#include "sum/sum.h"
#include "ozb_engine_ops.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

/* CRT residues: crt_residues.c (vectorised over a row) against ozb_op_crt_res_item per element */
static void residues(void)
{
  const int64_t rows=1024,k=4096; const int s=14;
  double *A=malloc(8*rows*k); for(int64_t i=0;i<rows*k;i++) A[i]=((double)rand()/RAND_MAX-0.5)*exp(((double)rand()/RAND_MAX-0.5)*4);
  rowscale_t *rs=calloc(rows,sizeof *rs); ozb_view v={A,k,1};
  ozb_crt_row_scales(&v,rows,k,rs,1);
  ozb_crt_consts cs; ozb_crt_consts_init(s,&cs); ozb_crt_set_factors(rs,rows,&cs);
  resconst_t rc; ozb_crt_resconst_init(0,s,&rc);
  int8_t *o1=malloc(s*rows*k), *o2=malloc(s*rows*k); double *tmp=malloc(8*(3*k+4*rows)*2);
  double *f1=malloc(8*rows),*f2=malloc(8*rows); for(int64_t i=0;i<rows;i++){f1[i]=rs[i].f1;f2[i]=rs[i].f2;}
  double best1=1e9,best2=1e9;
  for(int rep=0;rep<5;rep++){
    double t0=now(); ozb_crt_make_residues(&v,rs,0,rows,0,k,&rc,o1,tmp,1,0); double t1=now();
    ozb_op_side sd={A,k,1,0,rows,rows,k,k,1,ozb_op_nch(k,k)};
    for(int64_t w=0;w<rows*k;w++) ozb_op_crt_res_item(&sd,f1,f2,&rc,k,o2,w);
    double t2=now(); if(t1-t0<best1)best1=t1-t0; if(t2-t1<best2)best2=t2-t1; }
  printf("CRT residues, rows=%ld k=%ld s=%d: crt_residues.c (vectorised per row) %.1f ms, ozb_op_crt_res_item loop %.1f ms (%.2fx), same bytes: %s\n",(long)rows,(long)k,s,best1*1e3,best2*1e3,best2/best1, memcmp(o1,o2,(size_t)s*rows*k)?"NO":"yes");
}

/* CORRECTLY_ROUNDED sums of one element's terms: NearSum (the CPU's walk) against the long
 * accumulator alone (the device's walk) */
static void sums(void)
{
  /* CR GEMM terms of one element: 4x4 slice pairs of 26-bit digits over 2 k-blocks (32 terms) */
  enum { NE = 200000, NT = 32 };
  double *P = malloc(sizeof(double)*NE*NT); int32_t *E = malloc(4*NE*NT);
  srand(1);
  for (int e = 0; e < NE; e++) for (int q = 0; q < NT; q++) {
     int t = (q/4)%4, u = q%4;
     P[e*NT+q] = (double)((rand() % (1<<26)) - (1<<25)) * (double)(rand() % 4096);
     E[e*NT+q] = -26*(t+u) - 40;
  }
  double scratch[2*NT+4]; int64_t fb = 0; volatile double sink = 0;
  double b1 = 1e9, b2 = 1e9; int diff = 0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    for (int e = 0; e < NE; e++) sink += ozb_sum_nearest(P+e*NT, E+e*NT, NT, 1.0, 0.0, 0.0, 0, scratch, &fb);
    double t1 = now();
    for (int e = 0; e < NE; e++) sink += ozb_sum_exact(P+e*NT, E+e*NT, NT, 1.0, 0.0, 0.0, 0);
    double t2 = now();
    if (t1-t0 < b1) b1 = t1-t0; if (t2-t1 < b2) b2 = t2-t1;
  }
  for (int e = 0; e < NE; e++) { double a = ozb_sum_nearest(P+e*NT, E+e*NT, NT, 1.0, 0.0, 0.0, 0, scratch, &fb), b = ozb_sum_exact(P+e*NT, E+e*NT, NT, 1.0, 0.0, 0.0, 0); diff += memcmp(&a,&b,8)!=0; }
  printf("%d elements x %d terms: NearSum (CPU walk) %.1f ns/element, long accumulator (device walk) %.1f ns/element (%.2fx); differing results: %d\n", NE, NT, b1/NE*1e9, b2/NE*1e9, b2/b1, diff);
}

int main(void)
{
    residues();
    sums();
    return 0;
}
