/*
 * ozblas-bench: timer, median and names.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* v[0..n-1] in ascending order (the ratio programs' medians and ranges) */
void bench_sort(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
}

/* Median of v[0..n-1] (v is left unchanged); *argmed receives the index of the
 * sample that is the median (the lower one of the two middle samples for even n,
 * the reported value is the mean of both). */
double bench_median(double *v, int n, int *argmed)
{
    int *idx = malloc((size_t)n * sizeof *idx);
    double med;
    int i, j;
    if (!idx || n <= 0) {
        free(idx);
        if (argmed) *argmed = 0;
        return n > 0 ? v[0] : 0.0;
    }
    for (i = 0; i < n; i++) idx[i] = i;
    /* insertion sort of the indices: n is small */
    for (i = 1; i < n; i++) {
        int t = idx[i];
        for (j = i - 1; j >= 0 && v[idx[j]] > v[t]; j--) idx[j + 1] = idx[j];
        idx[j + 1] = t;
    }
    if (n % 2) {
        med = v[idx[n / 2]];
        if (argmed) *argmed = idx[n / 2];
    } else {
        med = 0.5 * (v[idx[n / 2 - 1]] + v[idx[n / 2]]);
        if (argmed) *argmed = idx[n / 2 - 1];
    }
    free(idx);
    return med;
}

const char *bench_routine_name(int routine)
{
    switch (routine) {
    case RT_DOT: return "dot";
    case RT_GEMV: return "gemv";
    case RT_GEMM: return "gemm";
    default: return "?";
    }
}

const char *bench_mode_name(int mode)
{
    switch (mode) {
    case OZBLAS_MODE_DOUBLE: return "double";
    case OZBLAS_MODE_CORRECTLY_ROUNDED: return "cr";
    case OZBLAS_MODE_FIXED: return "fixed";
    default: return "?";
    }
}

const char *bench_sum_name(ozblas_summation_t s)
{
    switch (s) {
    case OZBLAS_SUM_DOUBLE: return "double";
    case OZBLAS_SUM_NEARSUM: return "nearsum";
    default: return "?";
    }
}

/* The CPU's model and the vector features that choose ozblas's kernels and the INT8 products'
 * route (from /proc/cpuinfo; "unknown" elsewhere): results files record them with every run. */
void bench_cpu_features(char *buf, size_t len)
{
    static const char *want[] = {"avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512_vnni", "avx_vnni",
                                 "amx_int8"};
    char line[8192], model[256] = "unknown";
    int have[sizeof want / sizeof *want] = {0};
    FILE *f = fopen("/proc/cpuinfo", "r");
    buf[0] = '\0';
    if (f) {
        int flags_seen = 0;
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10) && !strcmp(model, "unknown")) {
                const char *c = strchr(line, ':');
                if (c) { snprintf(model, sizeof model, "%s", c + 2); model[strcspn(model, "\n")] = '\0'; }
            }
            if (!strncmp(line, "flags", 5) && !flags_seen) {
                flags_seen = 1;
                for (char *t = strtok(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \n"); t; t = strtok(NULL, " \n"))
                    for (size_t w = 0; w < sizeof want / sizeof *want; w++)
                        if (!strcmp(t, want[w])) have[w] = 1;
            }
        }
        fclose(f);
    }
    size_t o = (size_t)snprintf(buf, len, "%s;", model);
    for (size_t w = 0; w < sizeof want / sizeof *want && o < len; w++)
        if (have[w]) o += (size_t)snprintf(buf + o, len - o, " %s", want[w]);
}
