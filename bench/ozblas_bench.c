/*
 * ozblas-bench: benchmark and demonstration of ozblas.
 *
 * For each routine (DOT, GEMV, GEMM), input distribution phi and accuracy mode it
 * runs ozblas and OpenBLAS on the same inputs and reports the slices ozblas used,
 * the error of both against the exact (MPFR) result, whether ozblas is bitwise
 * reproducible across 1, 2 and 4 threads, and median wall-clock times.
 *
 * With no arguments: DOT n=2^20, GEMV n=2048, GEMM n=512, phi=1, modes DOUBLE,
 * CORRECTLY_ROUNDED and FIXED (split 3, fast mode).  See --help.
 *
 * Exit status: 0 all fine; 1 an ozblas call failed, a CORRECTLY_ROUNDED result
 * differed from RN(exact) on a sampled element, or a result was not bitwise
 * identical across thread counts; 2 bad command line; 3 out of memory.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "bench.h"
#include "ozref.h"

static const int repro_threads[BENCH_REPRO_THREADS] = {1, 2, 4};

/* ------------------------------------------------------------------------- */
/* Command line                                                              */
/* ------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: ozblas-bench [options]\n"
            "\n"
            "Runs ozblas and OpenBLAS on the same random inputs and prints, per routine,\n"
            "size, phi and mode: the slices ozblas used, the number of slice GEMMs, the max\n"
            "error in ulps of both against the exact MPFR result (on <= %d sampled output\n"
            "elements), whether ozblas is bitwise identical on 1, 2 and 4 threads, and the\n"
            "median wall-clock time of both.  With no options: DOT n=2^20, GEMV n=2048,\n"
            "GEMM n=512, phi=1, modes double, cr and fixed (split 3, fast mode on).\n"
            "\n"
            "Options (--opt VALUE or --opt=VALUE):\n"
            "  --routine R    dot|gemv|gemm|all, or a comma list (default all)\n"
            "  --n N          size: vector length for dot, square size for gemv/gemm\n"
            "                 (defaults 1048576, 2048, 512); N may be written 2^K\n"
            "  --m M          rows of A for gemv and of op(A) for gemm (default N)\n"
            "  --k K          inner dimension for gemm (default N)\n"
            "  --phi X        input spread: entries (rand-0.5)*exp(X*randn); repeatable or\n"
            "                 a comma list (default 1)\n"
            "  --mode M       double|cr|fixed|all, or a comma list (default all)\n"
            "  --engine E     slice format: fp64|fp16|int8|crt|all, or a comma list (default fp64);\n"
            "                 crt = Ozaki scheme II (CRT_INT8)\n"
            "  --split S      split count for fixed mode (default 3)\n"
            "  --crt-scaling fast|accurate  scaling of the crt format (default fast)\n"
            "  --backend B    cpu (default: against OpenBLAS) or cuda: a CUDA handle on GPU 0\n"
            "                 against cuBLAS, CUDA-event medians of >= 10 runs, GPU results\n"
            "                 checked bit for bit against a CPU handle (exit status 4 if no GPU)\n"
            "  --fast 0|1     fast mode for fixed mode (default 1)\n"
            "  --sum S        double|nearsum: summation for fixed mode (default nearsum)\n"
            "  --threads T    threads for ozblas and for OpenBLAS in the timed runs\n"
            "                 (default: number of online cores)\n"
            "  --reps R       timed repetitions, the median is reported (default 5)\n"
            "  --warmup W     untimed warm-up runs (default 2)\n"
            "  --trans X      n|t for gemv; n|t|nn|nt|tn|tt for gemm (default n)\n"
            "  --structure S  general (default) or upper: the stored A (and GEMM's B)\n"
            "                 upper triangular, as LAPACK's factors and inverses\n"
            "  --llc MIB      last-level cache size in MiB; dot/gemv inputs larger than\n"
            "                 this are rotated between two copies (default 32)\n"
            "  --mpi          the MPI benchmark (run with mpirun; its own options --n N[,N],\n"
            "                 --reps R, --mode double|cr|fixed): libozblas_mpi against ScaLAPACK\n"
            "                 and MPI_Allreduce of local results (bench_mpi.c)\n"
            "  --no-check     skip the MPFR error and thread-reproducibility checks (and, with\n"
            "                 --backend cuda, the comparison with a CPU handle)\n"
            "  --csv          machine-readable output: one header line, then one row per case\n"
            "  --help         this text\n"
            "\n"
            "Exit status: 0 ok; 1 an ozblas call failed, a cr result is not RN(exact) on a\n"
            "sampled element, or a result differs across thread counts; 2 bad options;\n"
            "3 out of memory; 4 --backend cuda without a CUDA device.\n",
            BENCH_MAX_SAMPLES);
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    long long v;
    if (!s || !*s) return -1;
    errno = 0;
    if (s[0] == '2' && s[1] == '^') {
        long long e = strtoll(s + 2, &end, 10);
        if (errno || *end || end == s + 2 || e < 0 || e > 62) return -1;
        v = 1LL << e;
    } else {
        v = strtoll(s, &end, 10);
        if (errno || *end || end == s) return -1;
    }
    if (v < lo || v > hi) return -1;
    *out = (int64_t)v;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    int64_t v;
    if (parse_i64(s, lo, hi, &v)) return -1;
    *out = (int)v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    double v;
    if (!s || !*s) return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Splits a comma list in place and calls f on every item; returns -1 on the first
 * bad item. */
static int for_each_item(char *list, int (*f)(bench_config_t *, const char *), bench_config_t *cfg)
{
    char *save = NULL, *tok;
    int any = 0;
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (f(cfg, tok)) return -1;
        any = 1;
    }
    return any ? 0 : -1;
}

static int add_routine(bench_config_t *cfg, const char *s)
{
    if (!strcmp(s, "all")) {
        cfg->routines[RT_DOT] = cfg->routines[RT_GEMV] = cfg->routines[RT_GEMM] = 1;
    } else if (!strcmp(s, "dot")) {
        cfg->routines[RT_DOT] = 1;
    } else if (!strcmp(s, "gemv")) {
        cfg->routines[RT_GEMV] = 1;
    } else if (!strcmp(s, "gemm")) {
        cfg->routines[RT_GEMM] = 1;
    } else {
        return -1;
    }
    return 0;
}

static const char *engine_name(int e)
{
    return e == OZBLAS_ENGINE_CRT_INT8 ? "crt" : e == OZBLAS_ENGINE_INT8 ? "int8" : e == OZBLAS_ENGINE_FP16 ? "fp16" : "fp64";
}

static int add_engine(bench_config_t *cfg, const char *s)
{
    if (!strcmp(s, "all")) cfg->engines[0] = cfg->engines[1] = cfg->engines[2] = cfg->engines[3] = 1;
    else if (!strcmp(s, "fp64")) cfg->engines[OZBLAS_ENGINE_FP64] = 1;
    else if (!strcmp(s, "fp16")) cfg->engines[OZBLAS_ENGINE_FP16] = 1;
    else if (!strcmp(s, "int8")) cfg->engines[OZBLAS_ENGINE_INT8] = 1;
    else if (!strcmp(s, "crt")) cfg->engines[OZBLAS_ENGINE_CRT_INT8] = 1;
    else return -1;
    return 0;
}

static int add_mode(bench_config_t *cfg, const char *s)
{
    if (!strcmp(s, "all")) {
        cfg->modes[0] = cfg->modes[1] = cfg->modes[2] = 1;
    } else if (!strcmp(s, "double")) {
        cfg->modes[OZBLAS_MODE_DOUBLE] = 1;
    } else if (!strcmp(s, "cr") || !strcmp(s, "correctly_rounded")) {
        cfg->modes[OZBLAS_MODE_CORRECTLY_ROUNDED] = 1;
    } else if (!strcmp(s, "fixed")) {
        cfg->modes[OZBLAS_MODE_FIXED] = 1;
    } else {
        return -1;
    }
    return 0;
}

static int add_phi(bench_config_t *cfg, const char *s)
{
    double v;
    if (parse_double(s, &v) || cfg->nphi >= (int)(sizeof cfg->phis / sizeof cfg->phis[0])) return -1;
    cfg->phis[cfg->nphi++] = v;
    return 0;
}

static int bad_option(const char *opt, const char *val, const char *why)
{
    if (val)
        fprintf(stderr, "ozblas-bench: bad value '%s' for %s%s%s\n", val, opt, why ? ": " : "", why ? why : "");
    else
        fprintf(stderr, "ozblas-bench: %s%s%s\n", opt, why ? ": " : "", why ? why : "");
    fprintf(stderr, "Try 'ozblas-bench --help'.\n");
    return 2;
}

/* 1 if the option takes a value, 0 if it is a flag, -1 if it is unknown. */
static int option_kind(const char *name)
{
    static const char *const with_value[] = {"--routine", "--mode", "--engine", "--phi",  "--n",      "--m",
                                             "--k",       "--split", "--fast", "--sum",   "--threads",
                                             "--reps",    "--warmup", "--llc", "--trans", "--crt-scaling", "--structure",
                                             "--backend"};
    static const char *const flags[] = {"--no-check", "--csv", "--help"};
    size_t i;
    for (i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (!strcmp(name, with_value[i])) return 1;
    for (i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strcmp(name, flags[i])) return 0;
    return -1;
}

/* Returns 0 to run, 1 if --help was printed, 2 on a bad command line. */
static int parse_args(int argc, char **argv, bench_config_t *cfg)
{
    int any_routine = 0, any_mode = 0, any_engine = 0, i;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

    memset(cfg, 0, sizeof *cfg);
    cfg->split = 3;
    cfg->fast = 1;
    cfg->sum = OZBLAS_SUM_NEARSUM;
    cfg->threads = ncpu > 0 ? (int)(ncpu > 1024 ? 1024 : ncpu) : 1;
    cfg->reps = 5;
    cfg->warmup = 2;
    cfg->check = 1;
    cfg->llc_bytes = 32.0 * 1024 * 1024;
    cfg->min_sample_s = 0.01;

    for (i = 1; i < argc; i++) {
        char name[64];
        const char *arg = argv[i], *val = NULL, *eq;
        size_t len;
        int takes_value;
        char buf[1024];

        if (strncmp(arg, "--", 2) != 0) return bad_option(arg, NULL, "unexpected argument");
        eq = strchr(arg, '=');
        len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name) return bad_option(arg, NULL, "unknown option");
        memcpy(name, arg, len);
        name[len] = '\0';

        takes_value = option_kind(name);
        if (takes_value < 0) return bad_option(name, NULL, "unknown option");
        if (takes_value) {
            if (eq) {
                val = eq + 1;
            } else if (i + 1 < argc) {
                val = argv[++i];
            } else {
                return bad_option(name, NULL, "missing value");
            }
            if (strlen(val) >= sizeof buf) return bad_option(name, val, "too long");
            strcpy(buf, val);
        } else if (eq) {
            return bad_option(name, NULL, "takes no value");
        }

        if (!strcmp(name, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(name, "--no-check")) {
            cfg->check = 0;
        } else if (!strcmp(name, "--csv")) {
            cfg->csv = 1;
        } else if (!strcmp(name, "--routine")) {
            if (for_each_item(buf, add_routine, cfg)) return bad_option(name, val, "expected dot|gemv|gemm|all");
            any_routine = 1;
        } else if (!strcmp(name, "--mode")) {
            if (for_each_item(buf, add_mode, cfg)) return bad_option(name, val, "expected double|cr|fixed|all");
            any_mode = 1;
        } else if (!strcmp(name, "--engine")) {
            if (for_each_item(buf, add_engine, cfg)) return bad_option(name, val, "expected fp64, fp16, int8, crt or all");
            any_engine = 1;
        } else if (!strcmp(name, "--phi")) {
            if (for_each_item(buf, add_phi, cfg)) return bad_option(name, val, "expected finite numbers");
        } else if (!strcmp(name, "--n")) {
            if (parse_i64(val, 1, INT_MAX, &cfg->n)) return bad_option(name, val, "expected 1..2^31-1");
        } else if (!strcmp(name, "--m")) {
            if (parse_i64(val, 1, INT_MAX, &cfg->m)) return bad_option(name, val, "expected 1..2^31-1");
        } else if (!strcmp(name, "--k")) {
            if (parse_i64(val, 1, INT_MAX, &cfg->k)) return bad_option(name, val, "expected 1..2^31-1");
        } else if (!strcmp(name, "--split")) {
            if (parse_int(val, 1, 64, &cfg->split)) return bad_option(name, val, "expected 1..64");
        } else if (!strcmp(name, "--backend")) {
            if (!strcmp(val, "cpu")) cfg->backend = 0;
            else if (!strcmp(val, "cuda")) cfg->backend = 1;
            else return bad_option(name, val, "expected cpu or cuda");
        } else if (!strcmp(name, "--crt-scaling")) {
            if (!strcmp(val, "fast")) cfg->crt_accurate = 0;
            else if (!strcmp(val, "accurate")) cfg->crt_accurate = 1;
            else return bad_option(name, val, "expected fast or accurate");
        } else if (!strcmp(name, "--fast")) {
            if (parse_int(val, 0, 1, &cfg->fast)) return bad_option(name, val, "expected 0 or 1");
        } else if (!strcmp(name, "--sum")) {
            if (!strcmp(val, "double"))
                cfg->sum = OZBLAS_SUM_DOUBLE;
            else if (!strcmp(val, "nearsum"))
                cfg->sum = OZBLAS_SUM_NEARSUM;
            else
                return bad_option(name, val, "expected double|nearsum");
        } else if (!strcmp(name, "--threads")) {
            if (parse_int(val, 1, 1024, &cfg->threads)) return bad_option(name, val, "expected 1..1024");
        } else if (!strcmp(name, "--reps")) {
            if (parse_int(val, 1, 100000, &cfg->reps)) return bad_option(name, val, "expected 1..100000");
        } else if (!strcmp(name, "--warmup")) {
            if (parse_int(val, 0, 1000, &cfg->warmup)) return bad_option(name, val, "expected 0..1000");
        } else if (!strcmp(name, "--structure")) {
            if (!strcmp(val, "general")) cfg->upper = 0;
            else if (!strcmp(val, "upper")) cfg->upper = 1;
            else return bad_option(name, val, "expected general or upper");
        } else if (!strcmp(name, "--llc")) {
            double mib;
            if (parse_double(val, &mib) || mib < 0) return bad_option(name, val, "expected MiB >= 0");
            cfg->llc_bytes = mib * 1024 * 1024;
        } else if (!strcmp(name, "--trans")) {
            if (!strcmp(val, "n") || !strcmp(val, "N") || !strcmp(val, "nn") || !strcmp(val, "NN")) {
                cfg->transa = cfg->transb = 0;
            } else if (!strcmp(val, "t") || !strcmp(val, "T") || !strcmp(val, "tt") || !strcmp(val, "TT")) {
                cfg->transa = cfg->transb = 1;
            } else if (!strcmp(val, "nt") || !strcmp(val, "NT")) {
                cfg->transa = 0;
                cfg->transb = 1;
            } else if (!strcmp(val, "tn") || !strcmp(val, "TN")) {
                cfg->transa = 1;
                cfg->transb = 0;
            } else {
                return bad_option(name, val, "expected n|t|nn|nt|tn|tt");
            }
        } else {
            return bad_option(name, NULL, "unknown option");
        }
    }
    if (!any_routine) add_routine(cfg, "all");
    if (!any_mode) add_mode(cfg, "all");
    if (!any_engine) add_engine(cfg, "fp64");
    if (cfg->nphi == 0) cfg->phis[cfg->nphi++] = 1.0;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Running one case                                                          */
/* ------------------------------------------------------------------------- */

static void set_blas_threads(int t)
{
    openblas_set_num_threads(t);
}

/* How many calls one timed sample makes, so that a sample lasts about
 * min_sample_s (tiny calls are otherwise below the timer's useful resolution). */
static int calls_per_sample(double one_call_s, double min_sample_s)
{
    double c;
    if (!(one_call_s > 0)) return 1000;
    if (one_call_s >= min_sample_s) return 1;
    c = ceil(min_sample_s / one_call_s);
    return c > 10000 ? 10000 : (int)c;
}

/* Time OpenBLAS: warm-up, then the median of cfg->reps samples. */
static double time_openblas(const problem_t *p, const bench_config_t *cfg, double *out, int *iters_out)
{
    double *t = malloc((size_t)cfg->reps * sizeof *t);
    double w = 0, med;
    int copy = 0, r, it, iters;
    if (!t) return NAN;
    set_blas_threads(cfg->threads);
    for (r = 0; r < cfg->warmup || r < 1; r++) {
        double t0 = bench_now();
        problem_run_openblas(p, copy, out);
        w = bench_now() - t0;
        copy = (copy + 1) % p->ncopies;
    }
    iters = calls_per_sample(w, cfg->min_sample_s);
    for (r = 0; r < cfg->reps; r++) {
        double t0 = bench_now();
        for (it = 0; it < iters; it++) {
            problem_run_openblas(p, copy, out);
            copy = (copy + 1) % p->ncopies;
        }
        t[r] = (bench_now() - t0) / iters;
    }
    med = bench_median(t, cfg->reps, NULL);
    free(t);
    *iters_out = iters;
    return med;
}

static int row_fail(row_t *row, ozblas_status_t st, const char *call)
{
    if (row->status == OZBLAS_STATUS_SUCCESS) {
        row->status = st;
        row->failed_call = call;
    }
    return -1;
}

#define OZ_TRY_NAMED(row, call, name)                                        \
    do {                                                                     \
        ozblas_status_t st_ = (call);                                        \
        if (st_ != OZBLAS_STATUS_SUCCESS) return row_fail((row), st_, name); \
    } while (0)
#define OZ_TRY(row, call) OZ_TRY_NAMED(row, call, #call)

static const char *oz_routine_call(int routine)
{
    switch (routine) {
    case RT_DOT: return "ozblas_ddot";
    case RT_GEMV: return "ozblas_dgemv";
    default: return "ozblas_dgemm";
    }
}

/* Runs ozblas in one mode on problem p.  Returns 0, -1 if an ozblas call failed
 * (row->status says which), -3 if out of memory. */
static int run_mode(const problem_t *p, const bench_config_t *cfg, int mode, ozblas_handle_t h, double *out,
                    double *out_t, row_t *row)
{
    double *t = NULL, w = 0;
    ozblas_info_t *infos = NULL;
    int copy = 0, r, it, iters, argmed = 0, s;

    OZ_TRY(row, ozblas_set_mode(h, (ozblas_mode_t)mode));
    OZ_TRY(row, ozblas_set_engine(h, (ozblas_engine_t)row->engine));
    OZ_TRY(row, ozblas_set_crt_scaling(h, cfg->crt_accurate ? OZBLAS_CRT_SCALING_ACCURATE : OZBLAS_CRT_SCALING_FAST));
    if (mode == OZBLAS_MODE_FIXED) {
        OZ_TRY(row, ozblas_set_split_count(h, cfg->split));
        OZ_TRY(row, ozblas_set_fast_mode(h, cfg->fast));
        OZ_TRY(row, ozblas_set_summation(h, cfg->sum));
    }
    OZ_TRY(row, ozblas_set_num_threads(h, cfg->threads));

    /* The checked result, at the timed thread count. */
    OZ_TRY_NAMED(row, problem_run_ozblas(h, p, 0, out), oz_routine_call(p->routine));
    OZ_TRY(row, ozblas_get_info(h, &row->info));
    row->products = row->info.gemm_calls == 0 ? "error-free sums" : ozblas_products_name(h, row->info.engine);
    if (!row->products) row->products = "";

    if (cfg->check) {
        row->err_oz = problem_max_ulps(p, out);
        row->cerr_oz = problem_max_comp(p, out);
        row->nsamples = p->nsamples;
        if (mode == OZBLAS_MODE_CORRECTLY_ROUNDED) {
            for (s = 0; s < p->nsamples; s++) {
                double got = out[p->sample_idx[s]], ref = p->sample_ref[s];
                if (memcmp(&got, &ref, sizeof got) != 0) {
                    if (row->cr_mismatch == 0) {
                        row->cr_first_idx = p->sample_idx[s];
                        row->cr_first_got = got;
                        row->cr_first_ref = ref;
                    }
                    row->cr_mismatch++;
                }
            }
        }
    }

    /* Timing: warm-up, then the median of cfg->reps samples. */
    t = malloc((size_t)cfg->reps * sizeof *t);
    infos = malloc((size_t)cfg->reps * sizeof *infos);
    if (!t || !infos) {
        free(t);
        free(infos);
        return -3;
    }
    for (r = 0; r < cfg->warmup || r < 1; r++) {
        double t0 = bench_now();
        ozblas_status_t st = problem_run_ozblas(h, p, copy, out_t);
        w = bench_now() - t0;
        copy = (copy + 1) % p->ncopies;
        if (st != OZBLAS_STATUS_SUCCESS) {
            free(t);
            free(infos);
            return row_fail(row, st, oz_routine_call(p->routine));
        }
    }
    iters = calls_per_sample(w, cfg->min_sample_s);
    for (r = 0; r < cfg->reps; r++) {
        ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
        double t0 = bench_now();
        for (it = 0; it < iters && st == OZBLAS_STATUS_SUCCESS; it++) {
            st = problem_run_ozblas(h, p, copy, out_t);
            copy = (copy + 1) % p->ncopies;
        }
        t[r] = (bench_now() - t0) / iters;
        if (st == OZBLAS_STATUS_SUCCESS) st = ozblas_get_info(h, &infos[r]);
        if (st != OZBLAS_STATUS_SUCCESS) {
            free(t);
            free(infos);
            return row_fail(row, st, "ozblas call in a timed run");
        }
    }
    row->t_oz = bench_median(t, cfg->reps, &argmed);
    row->info_median = infos[argmed];
    row->iters_oz = iters;
    free(t);
    free(infos);

    /* Bitwise reproducibility across thread counts. */
    for (s = 0; s < BENCH_REPRO_THREADS; s++) row->repro[s] = -1;
    if (cfg->check) {
        for (s = 0; s < BENCH_REPRO_THREADS; s++) {
            memset(out_t, 0, (size_t)p->out_len * sizeof *out_t);
            OZ_TRY(row, ozblas_set_num_threads(h, repro_threads[s]));
            OZ_TRY_NAMED(row, problem_run_ozblas(h, p, 0, out_t), oz_routine_call(p->routine));
            row->repro[s] = memcmp(out_t, out, (size_t)p->out_len * sizeof *out) == 0;
        }
        OZ_TRY(row, ozblas_set_num_threads(h, cfg->threads));
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Output                                                                    */
/* ------------------------------------------------------------------------- */

static void size_string(const problem_t *p, char *buf, size_t len)
{
    switch (p->routine) {
    case RT_DOT:
        snprintf(buf, len, "%lld", (long long)p->n);
        break;
    case RT_GEMV:
        snprintf(buf, len, "%lldx%lld %c", (long long)p->m, (long long)p->n, p->transa ? 'T' : 'N');
        break;
    default:
        snprintf(buf, len, "%lldx%lldx%lld %c%c", (long long)p->m, (long long)p->n, (long long)p->k,
                 p->transa ? 'T' : 'N', p->transb ? 'T' : 'N');
        break;
    }
}

static void ulps_string(double e, char *buf, size_t len)
{
    if (e < 0)
        snprintf(buf, len, "-");
    else if (e == 0)
        snprintf(buf, len, "0");
    else if (isinf(e))
        snprintf(buf, len, "inf");
    else if (e < 1e4)
        snprintf(buf, len, "%.3g", e);
    else
        snprintf(buf, len, "%.2e", e);
}

/* Seconds as milliseconds, with 4 significant digits below 1 ms. */
static void ms_string(double s, char *buf, size_t len)
{
    double ms = s * 1e3;
    if (ms >= 1.0 || ms == 0.0)
        snprintf(buf, len, "%.3f", ms);
    else
        snprintf(buf, len, "%.4g", ms);
}

static void repro_string(const row_t *row, char *buf, size_t len)
{
    int s;
    size_t used = 0;
    if (row->repro[0] < 0) {
        snprintf(buf, len, "-");
        return;
    }
    buf[0] = '\0';
    for (s = 0; s < BENCH_REPRO_THREADS && used < len; s++) {
        int n = snprintf(buf + used, len - used, "%s%s", s ? "/" : "", row->repro[s] ? "yes" : "NO");
        if (n < 0) break;
        used += (size_t)n;
    }
}

static void mode_string(int mode, int engine, const bench_config_t *cfg, char *buf, size_t len)
{
    if (mode == OZBLAS_MODE_FIXED)
        snprintf(buf, len, "%s:%d%s%s%s", "fixed", cfg->split, cfg->fast ? "f" : "", engine ? "/" : "", engine ? engine_name(engine) : "");
    else
        snprintf(buf, len, "%s%s%s", bench_mode_name(mode), engine ? "/" : "", engine ? engine_name(engine) : "");
}

#define TABLE_FMT "%-5s %-17s %5s %-12s %6s %-7s %5s %5s %8s %9s %-11s %9s %9s %7s  %-20s %s\n"

static void print_table_header(void)
{
    printf(TABLE_FMT, "rout", "size", "phi", "mode", "slices", "sum", "gemms", "pairs", "err_oz", "err_blas",
           "repro 1/2/4", "oz[ms]", "blas[ms]", "oz/blas", "split/mult/sum[ms]", "cerr oz/blas");
}

static void print_table_row(const problem_t *p, const bench_config_t *cfg, const row_t *row)
{
    char size[64], phi[32], mode[32], slices[32], eoz[32], eblas[32], rep[32], toz[32], tblas[32], ratio[32],
        brk[96], gemms[32], pairs[32];
    size_string(p, size, sizeof size);
    snprintf(phi, sizeof phi, "%g", p->phi);
    mode_string(row->mode, row->engine, cfg, mode, sizeof mode);
    ms_string(row->t_blas, tblas, sizeof tblas);
    if (row->status != OZBLAS_STATUS_SUCCESS) {
        printf("%-5s %-17s %5s %-8s FAILED: %s returned %s\n", row->routine, size, phi, mode, row->failed_call,
               ozblas_status_string(row->status));
        return;
    }
    snprintf(slices, sizeof slices, "%d/%d", row->info.slices_a, row->info.slices_b);
    snprintf(gemms, sizeof gemms, "%lld", (long long)row->info.gemm_calls);
    snprintf(pairs, sizeof pairs, "%lld", (long long)row->info.slice_products);
    ulps_string(row->err_oz, eoz, sizeof eoz);
    ulps_string(row->err_blas, eblas, sizeof eblas);
    repro_string(row, rep, sizeof rep);
    ms_string(row->t_oz, toz, sizeof toz);
    snprintf(ratio, sizeof ratio, "%.2f", row->t_blas > 0 ? row->t_oz / row->t_blas : 0.0);
    snprintf(brk, sizeof brk, "%.2f/%.2f/%.2f", row->info_median.seconds_split * 1e3,
             row->info_median.seconds_multiply * 1e3, row->info_median.seconds_sum * 1e3);
    char cerr[64] = "-";
    if (row->cerr_oz >= 0 && row->cerr_blas >= 0) snprintf(cerr, sizeof cerr, "%.1e/%.1e", row->cerr_oz, row->cerr_blas);
    printf(TABLE_FMT, row->routine, size, phi, mode, slices, bench_sum_name(row->info.summation), gemms, pairs, eoz,
           eblas, rep, toz, tblas, ratio, brk, cerr);
}

static void print_csv_header(void)
{
    printf("routine,m,n,k,transa,transb,phi,mode,engine,split,fast,sum,threads,reps,status,slices_a,slices_b,"
           "split_count,fast_mode,summation,gemm_calls,slice_products,gemm_flops,blocks,exact_fallbacks,"
           "samples,err_ozblas_ulps,err_openblas_ulps,cr_mismatches,repro_1,repro_2,repro_4,"
           "t_ozblas_s,t_openblas_s,ratio,t_split_s,t_multiply_s,t_sum_s,t_total_s,calls_per_sample_ozblas,"
           "calls_per_sample_openblas,cerr_ozblas,cerr_openblas,products\n");
}

static const char *csv_status(const row_t *row)
{
    if (row->status != OZBLAS_STATUS_SUCCESS) return ozblas_status_string(row->status);
    if (row->cr_mismatch) return "cr_mismatch";
    if ((row->repro[0] == 0) || (row->repro[1] == 0) || (row->repro[2] == 0)) return "not_reproducible";
    return "ok";
}

static void print_csv_row(const problem_t *p, const bench_config_t *cfg, const row_t *row)
{
    const ozblas_info_t *in = &row->info;
    const ozblas_info_t *im = &row->info_median;
    char eoz[32], eblas[32], m[32] = "", k[32] = "";
    if (row->err_oz >= 0)
        snprintf(eoz, sizeof eoz, "%.6g", row->err_oz);
    else
        eoz[0] = '\0';
    if (row->err_blas >= 0)
        snprintf(eblas, sizeof eblas, "%.6g", row->err_blas);
    else
        eblas[0] = '\0';
    if (p->routine != RT_DOT) snprintf(m, sizeof m, "%lld", (long long)p->m);
    if (p->routine == RT_GEMM) snprintf(k, sizeof k, "%lld", (long long)p->k);
    printf("%s,%s,%lld,%s,%s,%s,%.17g,%s,%s,%d,%d,%s,%d,%d,%s,", row->routine, m, (long long)p->n, k,
           p->routine == RT_DOT ? "" : (p->transa ? "T" : "N"),
           p->routine == RT_GEMM ? (p->transb ? "T" : "N") : "", p->phi,
           bench_mode_name(row->mode), engine_name(row->engine), row->mode == OZBLAS_MODE_FIXED ? cfg->split : 0,
           row->mode == OZBLAS_MODE_FIXED ? cfg->fast : 0,
           row->mode == OZBLAS_MODE_FIXED ? bench_sum_name(cfg->sum) : "", cfg->threads, cfg->reps, csv_status(row));
    if (row->status != OZBLAS_STATUS_SUCCESS) {
        /* slices_a .. err_ozblas_ulps empty, err_openblas_ulps, cr_mismatches .. t_ozblas_s empty,
         * t_openblas_s, ratio .. calls_per_sample_ozblas empty, calls_per_sample_openblas */
        printf(",,,,,,,,,,,,%s,,,,,,%.6e,,,,,,,%d,,,\n", eblas, row->t_blas, row->iters_blas);
        return;
    }
    printf("%d,%d,%d,%d,%s,%lld,%lld,%.6e,%lld,%lld,%d,%s,%s,%d,", in->slices_a, in->slices_b, in->split_count,
           in->fast_mode, bench_sum_name(in->summation), (long long)in->gemm_calls, (long long)in->slice_products,
           in->gemm_flops, (long long)in->blocks, (long long)in->exact_fallbacks, cfg->check ? row->nsamples : 0,
           eoz, eblas, row->cr_mismatch);
    if (row->repro[0] < 0)
        printf(",,,");
    else
        printf("%d,%d,%d,", row->repro[0], row->repro[1], row->repro[2]);
    printf("%.6e,%.6e,%.4f,%.6e,%.6e,%.6e,%.6e,%d,%d,", row->t_oz, row->t_blas,
           row->t_blas > 0 ? row->t_oz / row->t_blas : 0.0, im->seconds_split, im->seconds_multiply,
           im->seconds_sum, im->seconds_total, row->iters_oz, row->iters_blas);
    if (row->cerr_oz >= 0 && row->cerr_blas >= 0) printf("%.6g,%.6g,", row->cerr_oz, row->cerr_blas);
    else printf(",,");
    printf("%s\n", row->products ? row->products : "");
}

/* ------------------------------------------------------------------------- */
/* main                                                                      */
/* ------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--mpi")) {
#ifdef OZBLAS_BENCH_HAVE_MPI
            return bench_mpi(argc, argv);
#else
            fprintf(stderr, "ozblas-bench: --mpi needs a build with libozblas_mpi (MPI and ScaLAPACK found)\n");
            return 2;
#endif
        }
    bench_config_t cfg;
    int rc = parse_args(argc, argv, &cfg), routine, ip, mode;
    int failures = 0, cr_failures = 0, repro_failures = 0, call_failures = 0, rows = 0;
    double t_start = bench_now();

    if (rc == 1) return 0;
    if (rc) return rc;
    if (cfg.backend == 1) return bench_cuda(&cfg);

    if (cfg.csv) {
        print_csv_header();
    } else {
        printf("ozblas-bench %d.%d.%d: accurate, reproducible BLAS (Ozaki scheme) vs OpenBLAS\n",
               OZBLAS_VERSION_MAJOR, OZBLAS_VERSION_MINOR, OZBLAS_VERSION_PATCH);
        printf("baseline: %s (core %s)\n", openblas_get_config(), openblas_get_corename());
        char cpu[512];
        bench_cpu_features(cpu, sizeof cpu);
        printf("cpu: %s\n", cpu);
        ozblas_handle_t ph;
        if (ozblas_create(&ph) == OZBLAS_STATUS_SUCCESS) {   /* the exact products' route per format */
            const char *f64 = ozblas_products_name(ph, OZBLAS_ENGINE_FP64), *i8 = ozblas_products_name(ph, OZBLAS_ENGINE_INT8);
            printf("exact products: fp64/fp16 slices: %s; int8 slices and crt residues: %s\n", f64 ? f64 : "none",
                   i8 ? i8 : "none (no oneDNN in this build)");
            ozblas_destroy(ph);
        }
        printf("threads %d (ozblas and OpenBLAS); median of %d timed runs after %d warm-up runs; "
               "alpha = 1, beta = 0\n",
               cfg.threads, cfg.reps, cfg.warmup);
        if (cfg.check)
            printf("errors: max over <= %d sampled output elements of |result - exact| in ulps of RN(exact), "
                   "exact = MPFR\n",
                   BENCH_MAX_SAMPLES);
        else
            printf("--no-check: errors and thread reproducibility not checked\n");
        printf("\n");
        print_table_header();
        fflush(stdout);
    }

    for (routine = 0; routine < RT_COUNT; routine++) {
        if (!cfg.routines[routine]) continue;
        for (ip = 0; ip < cfg.nphi; ip++) {
            problem_t p;
            double *out = NULL, *out_t = NULL, *out_blas = NULL;
            double err_blas = -1, t_blas;
            int iters_blas = 0;
            ozblas_handle_t h = NULL;
            ozblas_status_t st;

            if (problem_init(&p, &cfg, routine, cfg.phis[ip])) {
                fprintf(stderr, "ozblas-bench: out of memory setting up %s\n", bench_routine_name(routine));
                return 3;
            }
            out = problem_alloc_out(&p);
            out_t = problem_alloc_out(&p);
            out_blas = problem_alloc_out(&p);
            if (!out || !out_t || !out_blas) {
                fprintf(stderr, "ozblas-bench: out of memory setting up %s\n", bench_routine_name(routine));
                return 3;
            }

            /* OpenBLAS: error and time, once per input set. */
            if (cfg.check) problem_compute_refs(&p);
            set_blas_threads(cfg.threads);
            problem_run_openblas(&p, 0, out_blas);
            double cerr_blas = -1;
            if (cfg.check) { err_blas = problem_max_ulps(&p, out_blas); cerr_blas = problem_max_comp(&p, out_blas); }
            t_blas = time_openblas(&p, &cfg, out_blas, &iters_blas);

            for (int combo = 0; combo < 12; combo++) {
                const int engine = combo / 3;
                mode = combo % 3;
                row_t row;
                int r;
                if (!cfg.modes[mode] || !cfg.engines[engine]) continue;
                memset(&row, 0, sizeof row);
                row.routine = bench_routine_name(routine);
                row.mode = mode;
                row.engine = engine;
                row.err_oz = -1;
                row.cerr_oz = -1;
                row.err_blas = err_blas;
                row.cerr_blas = cerr_blas;
                row.t_blas = t_blas;
                row.iters_blas = iters_blas;
                row.repro[0] = row.repro[1] = row.repro[2] = -1;

                st = ozblas_create(&h);
                if (st != OZBLAS_STATUS_SUCCESS) {
                    row.status = st;
                    row.failed_call = "ozblas_create";
                    r = -1;
                } else {
                    r = run_mode(&p, &cfg, mode, h, out, out_t, &row);
                    st = ozblas_destroy(h);
                    if (st != OZBLAS_STATUS_SUCCESS && row.status == OZBLAS_STATUS_SUCCESS) {
                        row.status = st;
                        row.failed_call = "ozblas_destroy";
                        r = -1;
                    }
                }
                if (r == -3) {
                    fprintf(stderr, "ozblas-bench: out of memory\n");
                    return 3;
                }
                if (cfg.csv)
                    print_csv_row(&p, &cfg, &row);
                else
                    print_table_row(&p, &cfg, &row);
                fflush(stdout);
                rows++;

                if (row.status != OZBLAS_STATUS_SUCCESS) {
                    call_failures++;
                    fprintf(stderr, "ozblas-bench: %s phi=%g mode=%s: %s returned %s\n", row.routine, p.phi,
                            bench_mode_name(mode), row.failed_call, ozblas_status_string(row.status));
                }
                if (row.cr_mismatch) {
                    cr_failures++;
                    fprintf(stderr,
                            "ozblas-bench: %s phi=%g mode=cr: %d of %d sampled elements are not RN(exact); "
                            "first at output index %lld: got %a, exact %a\n",
                            row.routine, p.phi, row.cr_mismatch, row.nsamples, (long long)row.cr_first_idx,
                            row.cr_first_got, row.cr_first_ref);
                }
                for (r = 0; r < BENCH_REPRO_THREADS; r++) {
                    if (row.repro[r] == 0) {
                        repro_failures++;
                        fprintf(stderr,
                                "ozblas-bench: %s phi=%g mode=%s: result on %d threads differs from the result on "
                                "%d threads\n",
                                row.routine, p.phi, bench_mode_name(mode), repro_threads[r], cfg.threads);
                    }
                }
            }
            free(out);
            free(out_t);
            free(out_blas);
            problem_free(&p);
        }
    }

    failures = call_failures + cr_failures + repro_failures;
    if (!cfg.csv) {
        printf("\n");
        printf("slices: of A/B (dot: x/y, gemv: A/x); sum: summation used; gemms: BLAS GEMM calls on slices;\n"
               "pairs: slice products; err_oz, err_blas: max |error| in ulps of the exact (MPFR) result;\n"
               "repro: ozblas bitwise identical on 1/2/4 threads to its %d-thread result; oz, blas: median\n"
               "wall time per call; split/mult/sum: ozblas time breakdown (median run); cerr: max\n"
               "|error| / (|alpha| |A||B|) over the samples (DGEMM's componentwise measure).\n",
               cfg.threads);
        if (failures == 0) {
            if (cfg.check)
                printf("All checks passed: cr results equal RN(exact) bitwise on every sampled element; all results\n"
                       "bitwise identical on 1, 2 and 4 threads.");
            else
                printf("All ozblas calls succeeded (checks skipped).");
        } else {
            printf("FAILED: %d failing ozblas call(s), %d cr case(s) not correctly rounded, %d non-reproducible "
                   "result(s); see stderr.",
                   call_failures, cr_failures, repro_failures);
        }
        printf(" %d case(s) in %.1f s.\n", rows, bench_now() - t_start);
    }
    return failures ? 1 : 0;
}
