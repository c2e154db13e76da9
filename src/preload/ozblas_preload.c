/* libozblas_preload.so: the drop-in interposer (LD_PRELOAD=libozblas_preload.so).
 *
 * Serves cblas_ddot, cblas_dgemv, cblas_dgemm (both layouts, every transpose; ConjTrans is
 * Trans for real data) and the Fortran ddot_, dgemv_, dgemm_ through ozblas.  Every other
 * BLAS symbol is left to the real BLAS: this library defines no other.
 *
 * The ozblas library inside this .so is libozblas.a with its BLAS references renamed by
 * objcopy (redefine.syms: cblas_dgemm -> ozb_preload_inner_cblas_dgemm, ...); the renamed
 * functions below call the process's own BLAS, resolved with dlsym on that very library.  So
 * no call made by ozblas — from the calling thread or from an OpenMP worker — can reach the
 * exported interposers: there is no recursion to guard against
 * (tests/preload/check_no_recursion.sh checks the relocations, and test_preload counts the
 * calls).  A thread-local flag still sends an unexpected re-entry to the real BLAS.
 *
 * The interposer changes nothing about the process's BLAS: this library does not
 * link a BLAS (no DT_NEEDED), so preloading it loads no second OpenBLAS whose symbols
 * (xerbla_, openblas_*) would come first in the global scope; ozblas's exact slice products
 * run on the BLAS the process already has (found below: the next definition in the global
 * scope, else a loaded library that defines dgemm_, as NumPy's BLAS is, loaded with
 * RTLD_LOCAL by Python), and ozblas never changes that BLAS's thread count
 * (openblas_set_num_threads is renamed to a no-op here): the process's own setting, e.g.
 * OPENBLAS_NUM_THREADS, governs those products.  Any DGEMM computes them exactly (every
 * partial sum is an integer multiple of one power of two below 2^53), so which BLAS runs
 * them changes no bit.  Only a process with no BLAS loaded at all gets a private one: the
 * OpenBLAS this library was built against, opened with RTLD_LOCAL (visible to nothing else).
 *
 * Invalid arguments (bad layout or transpose, negative sizes, too small leading dimensions,
 * zero GEMV increments) and every status other than SUCCESS are handed to the real BLAS
 * (dlsym(RTLD_NEXT, ...)) with the caller's original arguments: the real BLAS's xerbla
 * behaviour for the former, a correct (non-ozblas) answer for the latter.  Before a call
 * whose output is read (beta != 0, or updated in place) the output is saved, and restored
 * before the fallback, so that a failure midway never leaves a partly scaled C or y; except
 * DGEMM's C, which ozblas_dgemm leaves as it was on every failure but OZBLAS_STATUS_PARTIAL
 * (partial_abort), and DGEMV's y, DROT's x and y and the rank updates' A likewise.
 *
 * One ozblas handle per thread, created on the thread's first intercepted call and
 * destroyed when the thread exits (pthread key destructor) or, for the thread that calls
 * exit(), by an atexit handler.  Configuration: OZBLAS_PRELOAD_* environment variables, read
 * once (README "Use it without changing your code").
 */
#define _GNU_SOURCE
#include "ozblas.h"
#include <cblas.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

_Static_assert(sizeof(blasint) == sizeof(int), "the interposer assumes 32-bit BLAS integers (LP64)");

/* ---- the functions this library exports (prototypes for the C and Fortran ABIs) ---- */
#include "fortran_blas.h"
#include "preload_settings.h"
#include "preload_core.h"

typedef double (*cddot_fn)(blasint, const double *, blasint, const double *, blasint);
typedef void (*cdgemv_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, blasint, blasint, double, const double *,
                          blasint, const double *, blasint, double, double *, blasint);
typedef void (*cdgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint, blasint,
                          double, const double *, blasint, const double *, blasint, double, double *, blasint);
/* Fortran: the hidden CHARACTER lengths go last; these are CHARACTER*1, so 1 is passed on */
typedef double (*fddot_fn)(const int *, const double *, const int *, const double *, const int *);
typedef void (*fdgemv_fn)(const char *, const int *, const int *, const double *, const double *, const int *,
                          const double *, const int *, const double *, double *, const int *, size_t);
typedef void (*fdgemm_fn)(const char *, const char *, const int *, const int *, const int *, const double *,
                          const double *, const int *, const double *, const int *, const double *, double *,
                          const int *, size_t, size_t);

typedef struct {
    cddot_fn cddot; cdgemv_fn cdgemv; cdgemm_fn cdgemm;
    fddot_fn fddot; fdgemv_fn fdgemv; fdgemm_fn fdgemm;
} blas_table;

/* The process's BLAS (see the header): the callers' fallbacks and ozblas's own products.
 * Two names for one table, kept apart for the reader: next_blas serves the caller,
 * inner_blas serves ozblas. */
static blas_table process_blas;
#define next_blas process_blas
#define inner_blas process_blas

/* ---- configuration (read once) ---- */
enum { FMT_FP64, FMT_FP16, FMT_INT8, FMT_CRT };
static struct {
    ozblas_mode_t mode;
    int split, fast, format, threads, verbose, profile, test_fail;
    long long par_work;   /* ozblas_set_parallel_threshold */
    long long min_size;
} cfg;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_key_t handle_key;
static int key_ok;
static atomic_int shutting_down;
/* The interposer's thread-local state, in the initial-exec model: read without a call to
 * __tls_get_addr (some 10 ns each, several per BLAS call).  The library is loaded at start
 * (LD_PRELOAD, ozblas-run) or links the program; a dlopen finds these few bytes in glibc's
 * static TLS surplus. */
#define OZB_TLS _Thread_local __attribute__((tls_model("initial-exec")))
static OZB_TLS int in_ozblas;   /* re-entry guard (belt and braces; see the header) */
/* this thread's handle, as the pthread key holds it (read here without pthread_getspecific on
 * each of a program's millions of calls); cleared where the key's destructor or the exit
 * handler destroys it */
static OZB_TLS ozblas_handle_t thread_h;

static const char *const mode_names[] = { "double", "correctly_rounded", "fixed" };
static const char *const format_names[] = { "fp64", "fp16", "int8", "crt" };

static void warn_default(const char *var, const char *val, const char *allowed, const char *def)
{
    fprintf(stderr, "ozblas_preload: warning: %s='%s' is invalid (expected %s); using %s\n", var, val, allowed, def);
}

/* an enumerated variable: index into names, or def (with a warning) when set but unknown */
static int env_choice(const char *var, const char *const *names, int count, int def, const char *allowed)
{
    const char *v = getenv(var);
    if (!v || !*v) return def;
    for (int i = 0; i < count; i++)
        if (strcasecmp(v, names[i]) == 0) return i;
    warn_default(var, v, allowed, names[def]);
    return def;
}

static long long env_int(const char *var, long long lo, long long hi, long long def)
{
    const char *v = getenv(var);
    if (!v || !*v) return def;
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end != '\0' || x < lo || x > hi) {
        char allowed[96], d[32];
        snprintf(allowed, sizeof allowed, "an integer in [%lld, %lld]", lo, hi);
        snprintf(d, sizeof d, "%lld", def);
        warn_default(var, v, allowed, d);
        return def;
    }
    return x;
}

static void configure(ozblas_handle_t h)
{
    ozblas_set_mode(h, cfg.mode);
    ozblas_set_split_count(h, cfg.split);
    ozblas_set_fast_mode(h, cfg.fast);
    ozblas_set_num_threads(h, cfg.threads);
    ozblas_set_parallel_threshold(h, (int64_t)cfg.par_work);
}

static ozblas_status_t set_format(ozblas_handle_t h, int fmt)
{
    static const ozblas_engine_t eng[] = { OZBLAS_ENGINE_FP64, OZBLAS_ENGINE_FP16, OZBLAS_ENGINE_INT8,
                                           OZBLAS_ENGINE_CRT_INT8 };
    return ozblas_set_engine(h, eng[fmt]);
}

/* a thread's handle and save buffers, as it exits (pthread key destructors run in that thread) */
static void save_pool_free(void);
static void destroy_handle(void *p)
{
    thread_h = NULL;
    ozblas_destroy((ozblas_handle_t)p);
    save_pool_free();
}

static void prof_print(void);
static void at_exit_cleanup(void)
{
    atomic_store(&shutting_down, 1);
    prof_print();
    if (!key_ok) return;
    ozblas_handle_t h = pthread_getspecific(handle_key);
    if (h) {
        pthread_setspecific(handle_key, NULL);
        thread_h = NULL;
        ozblas_destroy(h);
    }
    save_pool_free();
}

/* ---- finding the process's BLAS ---- */
static const char *const blas_names[] = { "cblas_ddot", "cblas_dgemv", "cblas_dgemm", "ddot_", "dgemv_", "dgemm_" };
_Static_assert(sizeof(blas_table) == sizeof(blas_names) / sizeof(blas_names[0]) * sizeof(void *),
               "one name per entry of blas_table");

/* the object that defines the code at p (its load address), or NULL */
static void *object_of(const void *p)
{
    Dl_info di;
    return (p && dladdr(p, &di)) ? di.dli_fbase : NULL;
}

/* Loaded objects' names, collected first: dlopen is not called from inside dl_iterate_phdr. */
enum { MAX_OBJECTS = 512 };
typedef struct { int n; char *name[MAX_OBJECTS]; } object_list;

static int collect_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    object_list *l = data;
    if (info->dlpi_name && info->dlpi_name[0] && l->n < MAX_OBJECTS) {
        char *c = strdup(info->dlpi_name);
        if (c) l->name[l->n++] = c;
    }
    return 0;
}

/* A loaded library (other than this one) that defines dgemm_, in load order; its handle (the
 * library stays loaded as long as the process has it) or NULL.  This finds the BLAS of
 * objects opened with RTLD_LOCAL, which RTLD_NEXT does not see. */
static void *loaded_blas(void)
{
    const void *self = object_of((const void *)&object_of);
    object_list l = { 0, { 0 } };
    dl_iterate_phdr(collect_object, &l);
    void *found = NULL;
    for (int i = 0; i < l.n && !found; i++) {
        void *h = dlopen(l.name[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        const void *f = dlsym(h, "dgemm_");    /* searches h's dependencies too */
        const void *obj = object_of(f);
        if (f && obj != self) {
            Dl_info di;
            if (dladdr(f, &di) && di.dli_fname) found = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        }
        dlclose(h);
    }
    for (int i = 0; i < l.n; i++) free(l.name[i]);
    return found;
}

#ifndef OZBLAS_PRELOAD_PRIVATE_BLAS
#define OZBLAS_PRELOAD_PRIVATE_BLAS "libopenblas.so.0"
#endif

/* Each entry: the next definition in the global scope (what the caller would have reached
 * without this library), else the process's loaded BLAS, else the private one. */
static void *fallback_lib;

static void resolve_process_blas(void)
{
    void **t = (void **)&process_blas;
    const size_t count = sizeof blas_names / sizeof blas_names[0];
    int missing = 0;
    for (size_t i = 0; i < count; i++) missing += !(t[i] = dlsym(RTLD_NEXT, blas_names[i]));
    if (!missing) return;
    void *lib = loaded_blas();
    if (!lib) {
        lib = dlopen(OZBLAS_PRELOAD_PRIVATE_BLAS, RTLD_LAZY | RTLD_LOCAL);
        if (!lib)
            fprintf(stderr, "ozblas_preload: warning: no BLAS in the process and %s cannot be opened (%s); "
                            "calls ozblas cannot serve return without a result\n", OZBLAS_PRELOAD_PRIVATE_BLAS, dlerror());
    }
    if (lib)
        for (size_t i = 0; i < count; i++)
            if (!t[i]) t[i] = dlsym(lib, blas_names[i]);
    fallback_lib = lib;
}

static void init(void)
{
    resolve_process_blas();

    cfg.mode = (ozblas_mode_t)env_choice("OZBLAS_PRELOAD_MODE", mode_names, 3, OZBLAS_MODE_CORRECTLY_ROUNDED,
                                         "double|correctly_rounded|fixed");
    cfg.split = (int)env_int("OZBLAS_PRELOAD_SPLIT", 1, 1000, 3);
    cfg.fast = (int)env_int("OZBLAS_PRELOAD_FAST", 0, 1, 0);
    cfg.format = env_choice("OZBLAS_PRELOAD_FORMAT", format_names, 4, FMT_FP64, "fp64|fp16|int8|crt");
    cfg.threads = (int)env_int("OZBLAS_PRELOAD_THREADS", 0, 4096, 0);
    /* threads from 2^20 multiply-adds, not the library's 2^16: between calls an interposed
     * program runs its own threaded BLAS and LAPACK, and ozblas's idle OpenMP threads spin on
     * the cores that needs (xlintstd on a 2-core EPYC: 7.0-7.5 s -> 6.1 s; dec.in, svd.in
     * unchanged) */
    cfg.par_work = env_int("OZBLAS_PRELOAD_PAR_WORK", 0, INT64_MAX, 1 << 20);
    cfg.min_size = env_int("OZBLAS_PRELOAD_MIN_SIZE", 0, INT64_MAX, 0);
    cfg.verbose = (int)env_int("OZBLAS_PRELOAD_VERBOSE", 0, 1, 0);
    cfg.profile = (int)env_int("OZBLAS_PRELOAD_PROFILE", 0, 1, 0);
    cfg.test_fail = (int)env_int("OZBLAS_PRELOAD_TEST_FAIL", 0, 1, 0);   /* test knob, see below */

    ozblas_handle_t probe;
    if (ozblas_create(&probe) == OZBLAS_STATUS_SUCCESS) {
        if (cfg.format != FMT_FP64 && set_format(probe, cfg.format) != OZBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "ozblas_preload: warning: OZBLAS_PRELOAD_FORMAT=%s is not supported by this build; using fp64\n",
                    format_names[cfg.format]);
            cfg.format = FMT_FP64;
        }
        ozblas_destroy(probe);
    }
    key_ok = pthread_key_create(&handle_key, destroy_handle) == 0;
    atexit(at_exit_cleanup);
}

/* init once: pthread_once where it may not have run yet, a plain load on every later call */
static atomic_int init_done;
static void init_and_mark(void)
{
    init();
    atomic_store_explicit(&init_done, 1, memory_order_release);
}
static void ensure_init(void)
{
    if (!atomic_load_explicit(&init_done, memory_order_acquire)) pthread_once(&init_once, init_and_mark);
}

/* The configuration for the pdgemm_ interposer (preload_pdgemm.c, which configures a handle
 * of libozblas_mpi's ozblas): the same variables, read once here. */
void ozb_preload_settings(int *mode, int *split, int *fast, int *engine, int *threads, int *verbose)
{
    static const ozblas_engine_t eng[] = { OZBLAS_ENGINE_FP64, OZBLAS_ENGINE_FP16, OZBLAS_ENGINE_INT8,
                                           OZBLAS_ENGINE_CRT_INT8 };
    ensure_init();
    *mode = cfg.mode;
    *split = cfg.split;
    *fast = cfg.fast;
    *engine = eng[cfg.format];
    *threads = cfg.threads;
    *verbose = cfg.verbose;
}

/* A program that links libozblas.so itself and runs under the preload: that library's own
 * DGEMMs resolve to these exported functions too.  They are recognised by their return
 * address and passed straight to the real BLAS (not through ozblas a second time, not
 * reported). */
static int from_libozblas_lookup(const void *ret)
{
    Dl_info di;
    if (!ret || !dladdr(ret, &di) || !di.dli_fname) return 0;
    const char *base = strrchr(di.dli_fname, '/');
    base = base ? base + 1 : di.dli_fname;
    return strncmp(base, "libozblas.so", 12) == 0;
}

/* The answer per call site, cached: dladdr walks the loaded objects and costs about as much
 * as a small BLAS call, too much for every call.  A program has few call sites; an entry holds
 * (return address << 1) | answer in one atomic word (x86-64 addresses fit in 48 bits), so
 * threads share the cache without a lock and a lost race only repeats a lookup. */
static _Atomic uintptr_t site_cache[256];

static int from_libozblas(const void *ret)
{
    const uintptr_t a = (uintptr_t)ret;
    _Atomic uintptr_t *slot = &site_cache[(a ^ (a >> 8) ^ (a >> 16)) & 255];
    const uintptr_t e = atomic_load_explicit(slot, memory_order_relaxed);
    if (e && (e >> 1) == a) return (int)(e & 1);
    const int r = from_libozblas_lookup(ret);
    if (a < ((uintptr_t)1 << 62)) atomic_store_explicit(slot, (a << 1) | (uintptr_t)r, memory_order_relaxed);
    return r;
}

/* the calling thread's handle, created on first use; NULL: use the real BLAS */
static ozblas_handle_t thread_handle(void)
{
    if (!key_ok || atomic_load(&shutting_down)) return NULL;
    if (thread_h) return thread_h;
    ozblas_handle_t h = pthread_getspecific(handle_key);
    if (h) return thread_h = h;
    if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS) return NULL;
    configure(h);
    if (cfg.format != FMT_FP64) set_format(h, cfg.format);
    if (pthread_setspecific(handle_key, h) != 0) {
        ozblas_destroy(h);
        return NULL;
    }
    return thread_h = h;
}

/* ---- the renamed BLAS references of the ozblas objects (see redefine.syms) ---- */
/* Each marks its thread as inside ozblas while the process's BLAS runs (also on an OpenMP
 * worker of ozblas's, whose own flag is not set otherwise): a BLAS whose CBLAS layer calls
 * its Fortran routines through the dynamic linker (the reference BLAS) reaches the exports
 * from there, and those calls must go straight to the real BLAS.  Returns the flag before. */
static int enter_inner(void)
{
    const int g = in_ozblas;
    in_ozblas = 1;
    return g;
}

double ozb_preload_inner_cblas_ddot(blasint n, const double *x, blasint incx, const double *y, blasint incy);
void ozb_preload_inner_cblas_dgemv(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE t, blasint m, blasint n, double alpha,
                                   const double *A, blasint lda, const double *x, blasint incx, double beta,
                                   double *y, blasint incy);
void ozb_preload_inner_cblas_dgemm(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, blasint m,
                                   blasint n, blasint k, double alpha, const double *A, blasint lda, const double *B,
                                   blasint ldb, double beta, double *C, blasint ldc);
double ozb_preload_inner_ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);
void ozb_preload_inner_dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *A,
                              const int *lda, const double *x, const int *incx, const double *beta, double *y,
                              const int *incy);
void ozb_preload_inner_dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                              const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
                              const double *beta, double *C, const int *ldc);

double ozb_preload_inner_cblas_ddot(blasint n, const double *x, blasint incx, const double *y, blasint incy)
{
    ensure_init();
    const int g = enter_inner();
    const double r = inner_blas.cddot ? inner_blas.cddot(n, x, incx, y, incy) : 0.0;
    in_ozblas = g;
    return r;
}
void ozb_preload_inner_cblas_dgemv(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE t, blasint m, blasint n, double alpha,
                                   const double *A, blasint lda, const double *x, blasint incx, double beta,
                                   double *y, blasint incy)
{
    ensure_init();
    const int g = enter_inner();
    if (inner_blas.cdgemv) inner_blas.cdgemv(o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
    in_ozblas = g;
}
void ozb_preload_inner_cblas_dgemm(enum CBLAS_ORDER o, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, blasint m,
                                   blasint n, blasint k, double alpha, const double *A, blasint lda, const double *B,
                                   blasint ldb, double beta, double *C, blasint ldc)
{
    ensure_init();
    const int g = enter_inner();
    if (inner_blas.cdgemm) inner_blas.cdgemm(o, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    in_ozblas = g;
}
double ozb_preload_inner_ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy)
{
    ensure_init();
    const int g = enter_inner();
    const double r = inner_blas.fddot ? inner_blas.fddot(n, x, incx, y, incy) : 0.0;
    in_ozblas = g;
    return r;
}
void ozb_preload_inner_dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *A,
                              const int *lda, const double *x, const int *incx, const double *beta, double *y,
                              const int *incy)
{
    ensure_init();
    const int g = enter_inner();
    if (inner_blas.fdgemv) inner_blas.fdgemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy, 1);
    in_ozblas = g;
}
void ozb_preload_inner_dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                              const double *alpha, const double *A, const int *lda, const double *B, const int *ldb,
                              const double *beta, double *C, const int *ldc)
{
    ensure_init();
    const int g = enter_inner();
    if (inner_blas.fdgemm) inner_blas.fdgemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 1, 1);
    in_ozblas = g;
}

/* ozblas's thread control of its BLAS (cpu/blas_gate.c), renamed: the process's BLAS keeps
 * the thread count the process gave it (see the header).  "Unknown" (-1) makes the gate ask
 * for its count, which does nothing. */
int ozb_preload_inner_openblas_get_num_threads(void);
void ozb_preload_inner_openblas_set_num_threads(int threads);
int ozb_preload_inner_openblas_get_num_threads(void) { return -1; }
void ozb_preload_inner_openblas_set_num_threads(int threads) { (void)threads; }

/* ---- OZBLAS_PRELOAD_PROFILE=1: calls and time inside ozblas per routine and size, printed at
 * exit (where an interposed program's time goes; one clock read before and after a call) ---- */
enum { PROF_ROUTINES = 3 + OZB_PRELOAD_MORE, PROF_CLASSES = 12 };
static const char *const prof_names[PROF_ROUTINES] = { "ddot", "dgemv", "dgemm", OZB_PRELOAD_MORE_NAMES };
static _Atomic long long prof_calls[PROF_ROUTINES][PROF_CLASSES], prof_ns[PROF_ROUTINES][PROF_CLASSES];

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* size class: floor(log10(work)) + 1 of the multiply-adds (0: none) */
static int prof_class(double work)
{
    int c = 0;
    while (work >= 1.0 && c < PROF_CLASSES - 1) { work /= 10.0; c++; }
    return c;
}

static void prof_add(int routine, double work, long long t0)
{
    const int c = prof_class(work);
    atomic_fetch_add_explicit(&prof_calls[routine][c], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&prof_ns[routine][c], now_ns() - t0, memory_order_relaxed);
}

static void prof_print(void)
{
    if (!cfg.profile) return;
    fprintf(stderr, "ozblas_preload profile: routine, multiply-adds per call (class), calls, seconds in ozblas, ns per call\n");
    for (int r = 0; r < PROF_ROUTINES; r++)
        for (int c = 0; c < PROF_CLASSES; c++) {
            const long long n = atomic_load(&prof_calls[r][c]), ns = atomic_load(&prof_ns[r][c]);
            if (!n) continue;
            char cls[32];
            if (c == 0) snprintf(cls, sizeof cls, "0");
            else snprintf(cls, sizeof cls, "1e%d..1e%d", c - 1, c);
            fprintf(stderr, "ozblas_preload profile: %-6s %-10s %12lld calls %10.3f s %10.0f ns\n", prof_names[r], cls, n,
                    1e-9 * (double)ns, (double)ns / (double)n);
        }
}

/* ---- the shared path: decide, run ozblas, say what happened (call_desc: preload_core.h) ---- */

static const char *status_name(ozblas_status_t st)
{
    switch (st) {
    case OZBLAS_STATUS_SUCCESS:          return "SUCCESS";
    case OZBLAS_STATUS_INVALID_VALUE:    return "INVALID_VALUE";
    case OZBLAS_STATUS_ALLOC_FAILED:     return "ALLOC_FAILED";
    case OZBLAS_STATUS_NOT_SUPPORTED:    return "NOT_SUPPORTED";
    case OZBLAS_STATUS_EXECUTION_FAILED: return "EXECUTION_FAILED";
    case OZBLAS_STATUS_PARTIAL:          return "PARTIAL";
    }
    return "unknown status";
}

static void say(const call_desc *c, const char *where, const char *why)
{
    if (!cfg.verbose) return;
    char tr[16] = "";
    if (c->ta && c->tb) snprintf(tr, sizeof tr, " %c%c", c->ta, c->tb);
    else if (c->ta) snprintf(tr, sizeof tr, " %c", c->ta);
    char sz[96];
    if (c->k >= 0) snprintf(sz, sizeof sz, "m=%lld n=%lld k=%lld", c->m, c->n, c->k);
    else if (c->m >= 0) snprintf(sz, sizeof sz, "m=%lld n=%lld", c->m, c->n);
    else snprintf(sz, sizeof sz, "n=%lld", c->n);
    fprintf(stderr, "ozblas_preload: %s%s%s%s %s mode=%s format=%s -> %s%s%s%s\n", c->name, *c->layout ? " " : "",
            c->layout, tr, sz, mode_names[cfg.mode], format_names[cfg.format], where, why ? " (" : "", why ? why : "",
            why ? ")" : "");
}

/* size used against OZBLAS_PRELOAD_MIN_SIZE (saturating) */
static int below_threshold(long long a, long long b, long long c)
{
    if (cfg.min_size <= 0) return 0;
    long long p;
    if (__builtin_mul_overflow(a, b, &p) || __builtin_mul_overflow(p, c, &p)) return 0;
    return p < cfg.min_size;
}

/* Outputs saved before ozblas runs when they are read (beta != 0), restored on failure:
 * the rows x cols elements v[i*rs + j*cs] (saved_out: preload_core.h).  Each thread keeps two
 * save buffers (a call saves at most two outputs: DROT's x and y) between calls, so that the
 * save of a large output costs a copy and not fresh pages (malloc maps and unmaps its large
 * blocks per call: for a LAPACK factorisation's updates of the trailing matrix, as costly as
 * the products).  A save above SAVE_KEEP bytes is allocated and freed per call instead, so
 * that at most that much is held per thread. */
#define SAVE_KEEP ((size_t)256 << 20)
typedef struct { double *p; size_t cap; int used; } save_buf;
static OZB_TLS save_buf save_pool[2];

static void save_pool_free(void)
{
    for (int i = 0; i < 2; i++) {
        free(save_pool[i].p);
        save_pool[i] = (save_buf){ NULL, 0, 0 };
    }
}

static double *save_take(size_t bytes, int *slot)
{
    *slot = -1;
    if (bytes > SAVE_KEEP) return malloc(bytes);
    for (int i = 0; i < 2; i++) {
        save_buf *b = &save_pool[i];
        if (b->used) continue;
        if (b->cap < bytes) {
            double *p = malloc(bytes);
            if (!p) return NULL;
            free(b->p);
            b->p = p;
            b->cap = bytes;
        }
        b->used = 1;
        *slot = i;
        return b->p;
    }
    return malloc(bytes);
}

static void release_saved(saved_out *s)
{
    if (s->slot >= 0) save_pool[s->slot].used = 0;
    else if (s->buf) free(s->buf);
    s->buf = NULL;
    s->slot = -1;
}

static int save_strided(saved_out *s, double *v, int64_t rows, int64_t cols, int64_t rs, int64_t cs)
{
    *s = (saved_out){ NULL, v, rows, cols, rs, cs, -1 };
    if (rows <= 0 || cols <= 0) return 1;
    s->buf = save_take(sizeof(double) * (size_t)rows * (size_t)cols, &s->slot);
    if (!s->buf) return 0;
    for (int64_t j = 0; j < cols; j++) {
        if (rs == 1) memcpy(s->buf + j * rows, v + j * cs, sizeof(double) * (size_t)rows);
        else for (int64_t i = 0; i < rows; i++) s->buf[j * rows + i] = v[i * rs + j * cs];
    }
    return 1;
}

static void restore_strided(const saved_out *s)
{
    if (!s->buf) return;
    for (int64_t j = 0; j < s->cols; j++)
        for (int64_t i = 0; i < s->rows; i++) s->v[i * s->rs + j * s->cs] = s->buf[j * s->rows + i];
}

/* The checks every intercepted call makes before ozblas: the size threshold (a x b x d), a call
 * from inside ozblas, this thread's handle.  NULL (the reason said) sends it to the real BLAS. */
static ozblas_handle_t enter_call(const call_desc *c, int64_t a, int64_t b, int64_t d)
{
    if (below_threshold(a, b, d)) { say(c, "real BLAS", "below OZBLAS_PRELOAD_MIN_SIZE"); return NULL; }
    /* ozblas's own product reaching the exports through the process's BLAS (the reference
     * CBLAS's cblas_dgemm calls dgemm_ through the dynamic linker): the real BLAS, silently,
     * since it is part of the call already reported */
    if (in_ozblas) return NULL;
    ozblas_handle_t h = thread_handle();
    if (!h) say(c, "real BLAS", "no ozblas handle");
    return h;
}

/* A call that failed after writing part of an output it also reads (C or y with beta != 0), where
 * nothing was saved: it can be neither completed nor handed to the real BLAS, whose answer
 * needs the values overwritten.  ozblas returns that only where its workspace ran out midway
 * (OZBLAS_STATUS_PARTIAL); a BLAS has no error to return, and out of memory a BLAS aborts, so
 * this stops the process with the reason rather than return a wrong C. */
static void partial_abort(const call_desc *c)
{
    fprintf(stderr, "ozblas_preload: %s failed after writing part of its output (workspace exhausted midway); "
                    "it can be neither completed nor undone: aborting\n", c->name);
    abort();
}

/* After ozblas: 1 done; 0 failed (the saved output, if any, put back for the real BLAS).
 * reads_out: the call reads the output it writes (beta != 0), so a PARTIAL failure stops the
 * process (partial_abort). */
static int finish_call(const call_desc *c, ozblas_status_t st, saved_out *sv, int reads_out)
{
    if (st == OZBLAS_STATUS_PARTIAL && reads_out) partial_abort(c);
    if (st == OZBLAS_STATUS_SUCCESS && cfg.test_fail) st = OZBLAS_STATUS_EXECUTION_FAILED;
    if (st != OZBLAS_STATUS_SUCCESS && sv) restore_strided(sv);
    if (sv) release_saved(sv);
    say(c, st == OZBLAS_STATUS_SUCCESS ? "ozblas" : "real BLAS", st == OZBLAS_STATUS_SUCCESS ? NULL : status_name(st));
    return st == OZBLAS_STATUS_SUCCESS;
}

/* 1: done by ozblas; 0: the caller runs the real BLAS with its original arguments */
static int oz_dgemm(const call_desc *c, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha,
                    const double *A, int64_t lda, const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
{
    const int64_t rowa = ta ? k : m, rowb = tb ? n : k;
    if (ta < 0 || tb < 0 || m < 0 || n < 0 || k < 0 || lda < (rowa > 1 ? rowa : 1) ||
        ldb < (rowb > 1 ? rowb : 1) || ldc < (m > 1 ? m : 1)) {
        say(c, "real BLAS", "invalid arguments");
        return 0;
    }
    ozblas_handle_t h = enter_call(c, m, n, k);
    if (!h) return 0;
    /* C is not saved: ozblas_dgemm leaves it as it was on every failure but PARTIAL (the
     * copy would cost a tenth of a LAPACK factorisation's trailing updates); only the test
     * knob, which fails calls after they succeeded, needs the copy */
    saved_out sv = OZB_SAVED_NONE;
    if (beta != 0.0 && cfg.test_fail && !save_strided(&sv, C, m, n, 1, ldc)) { say(c, "real BLAS", "cannot save C"); return 0; }
    in_ozblas = 1;
    const long long t0 = cfg.profile ? now_ns() : 0;
    ozblas_status_t st = ozblas_dgemm(h, ta ? OZBLAS_OP_T : OZBLAS_OP_N, tb ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, k,
                                      alpha, A, lda, B, ldb, beta, C, ldc);
    if (cfg.profile) prof_add(2, (double)m * (double)n * (double)k, t0);
    in_ozblas = 0;
    return finish_call(c, st, &sv, beta != 0.0);
}

static int oz_dgemv(const call_desc *c, int t, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                    const double *x, int64_t incx, double beta, double *y, int64_t incy)
{
    if (t < 0 || m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0) {
        say(c, "real BLAS", "invalid arguments");
        return 0;
    }
    ozblas_handle_t h = enter_call(c, m, n, 1);
    if (!h) return 0;
    const int64_t ylen = (m == 0 || n == 0) ? 0 : (t ? n : m);
    double *y0 = y + (incy < 0 ? (ylen - 1) * -incy : 0);   /* first element in memory order */
    /* y is not saved either, as DGEMM's C (oz_dgemm): a copy in each of LAPACK's many small
     * GEMVs, for a failure ozblas_dgemv reports as PARTIAL where it wrote part of y */
    saved_out sv = OZB_SAVED_NONE;
    if (beta != 0.0 && ylen > 0 && cfg.test_fail && !save_strided(&sv, y0, ylen, 1, incy, 0)) {
        say(c, "real BLAS", "cannot save y");
        return 0;
    }
    in_ozblas = 1;
    const long long t0 = cfg.profile ? now_ns() : 0;
    ozblas_status_t st = ozblas_dgemv(h, t ? OZBLAS_OP_T : OZBLAS_OP_N, m, n, alpha, A, lda, x, incx, beta, y, incy);
    if (cfg.profile) prof_add(1, (double)m * (double)n, t0);
    in_ozblas = 0;
    return finish_call(c, st, &sv, beta != 0.0);
}

static int oz_ddot(const call_desc *c, int64_t n, const double *x, int64_t incx, const double *y, int64_t incy,
                   double *r)
{
    ozblas_handle_t h = enter_call(c, n, 1, 1);
    if (!h) return 0;
    in_ozblas = 1;
    const long long t0 = cfg.profile ? now_ns() : 0;
    ozblas_status_t st = ozblas_ddot(h, n, x, incx, y, incy, r);
    if (cfg.profile) prof_add(0, (double)n, t0);
    in_ozblas = 0;
    return finish_call(c, st, NULL, 0);
}

/* transpose codes: 0 N, 1 T, -1 invalid */
static int cblas_trans(enum CBLAS_TRANSPOSE t)
{
    switch (t) {
    case CblasNoTrans: case CblasConjNoTrans: return 0;   /* ConjNoTrans: OpenBLAS's extension */
    case CblasTrans: case CblasConjTrans:     return 1;   /* real data: conjugation is nothing */
    }
    return -1;
}
static char trans_char(int t) { return t == 0 ? 'N' : t == 1 ? 'T' : '?'; }
int ozb_preload_fortran_trans(const char *t)
{
    if (!t) return -1;
    switch (*t) {
    case 'N': case 'n': return 0;
    case 'T': case 't': case 'C': case 'c': return 1;
    }
    return -1;
}

/* ---- exported: CBLAS ---- */
double cblas_ddot(OPENBLAS_CONST blasint n, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx,
                  OPENBLAS_CONST double *y, OPENBLAS_CONST blasint incy)
{
    ensure_init();
    if (from_libozblas(__builtin_return_address(0)))
        return next_blas.cddot ? next_blas.cddot(n, x, incx, y, incy) : 0.0;
    call_desc c = { "cblas_ddot", "", 0, 0, -1, n, -1 };
    double r = 0.0;
    if (oz_ddot(&c, n, x, incx, y, incy, &r)) return r;
    return next_blas.cddot ? next_blas.cddot(n, x, incx, y, incy) : 0.0;
}

void cblas_dgemv(OPENBLAS_CONST enum CBLAS_ORDER order, OPENBLAS_CONST enum CBLAS_TRANSPOSE trans,
                 OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha,
                 OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, OPENBLAS_CONST double *x,
                 OPENBLAS_CONST blasint incx, OPENBLAS_CONST double beta, double *y, OPENBLAS_CONST blasint incy)
{
    ensure_init();
    int t = cblas_trans(trans);
    int row = order == CblasRowMajor;
    if (from_libozblas(__builtin_return_address(0))) {
        if (next_blas.cdgemv) next_blas.cdgemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
        return;
    }
    call_desc c = { "cblas_dgemv", row ? "RowMajor" : order == CblasColMajor ? "ColMajor" : "?Major",
                    trans_char(t), 0, m, n, -1 };
    int done;
    if (order != CblasRowMajor && order != CblasColMajor) { say(&c, "real BLAS", "invalid arguments"); done = 0; }
    else if (row)   /* row-major m x n A is the column-major n x m A^T */
        done = oz_dgemv(&c, t < 0 ? -1 : !t, n, m, alpha, a, lda, x, incx, beta, y, incy);
    else
        done = oz_dgemv(&c, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
    if (!done && next_blas.cdgemv) next_blas.cdgemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_dgemm(OPENBLAS_CONST enum CBLAS_ORDER Order, OPENBLAS_CONST enum CBLAS_TRANSPOSE TransA,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE TransB, OPENBLAS_CONST blasint M, OPENBLAS_CONST blasint N,
                 OPENBLAS_CONST blasint K, OPENBLAS_CONST double alpha, OPENBLAS_CONST double *A,
                 OPENBLAS_CONST blasint lda, OPENBLAS_CONST double *B, OPENBLAS_CONST blasint ldb,
                 OPENBLAS_CONST double beta, double *C, OPENBLAS_CONST blasint ldc)
{
    ensure_init();
    int ta = cblas_trans(TransA), tb = cblas_trans(TransB);
    int row = Order == CblasRowMajor;
    if (from_libozblas(__builtin_return_address(0))) {
        if (next_blas.cdgemm) next_blas.cdgemm(Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    call_desc c = { "cblas_dgemm", row ? "RowMajor" : Order == CblasColMajor ? "ColMajor" : "?Major",
                    trans_char(ta), trans_char(tb), M, N, K };
    int done;
    if (Order != CblasRowMajor && Order != CblasColMajor) { say(&c, "real BLAS", "invalid arguments"); done = 0; }
    else if (row)   /* C^T = op(B)^T op(A)^T: row-major X is column-major X^T */
        done = oz_dgemm(&c, tb, ta, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
    else
        done = oz_dgemm(&c, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    if (!done && next_blas.cdgemm) next_blas.cdgemm(Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* ---- exported: Fortran 77 ---- */
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy)
{
    ensure_init();
    call_desc c = { "ddot_", "", 0, 0, -1, *n, -1 };
    double r = 0.0;
    if (oz_ddot(&c, *n, x, *incx, y, *incy, &r)) return r;
    return next_blas.fddot ? next_blas.fddot(n, x, incx, y, incy) : 0.0;
}

void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *A, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy)
{
    ensure_init();
    int t = ozb_preload_fortran_trans(trans);
    call_desc c = { "dgemv_", "", trans_char(t), 0, *m, *n, -1 };
    if (!oz_dgemv(&c, t, *m, *n, *alpha, A, *lda, x, *incx, *beta, y, *incy) && next_blas.fdgemv)
        next_blas.fdgemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy, 1);
}

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
            const double *A, const int *lda, const double *B, const int *ldb, const double *beta, double *C,
            const int *ldc)
{
    ensure_init();
    int ta = ozb_preload_fortran_trans(transa), tb = ozb_preload_fortran_trans(transb);
    call_desc c = { "dgemm_", "", trans_char(ta), trans_char(tb), *m, *n, *k };
    if (!oz_dgemm(&c, ta, tb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc) && next_blas.fdgemm)
        next_blas.fdgemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, 1, 1);
}

/* ---- the shared path for the other routines (preload_blas.c, preload_cblas.c) ---- */
void ozb_preload_init(void) { ensure_init(); }
ozblas_handle_t ozb_preload_enter(const call_desc *c, int64_t a, int64_t b, int64_t d) { return enter_call(c, a, b, d); }
int ozb_preload_finish(const call_desc *c, ozblas_status_t st, saved_out *sv) { return finish_call(c, st, sv, 0); }
/* an output updated in place without a copy (DROT's x and y, a rank update's A): a PARTIAL
 * failure with nothing saved can be neither undone nor handed on, so finish_call stops the
 * process */
int ozb_preload_finish_in_place(const call_desc *c, ozblas_status_t st, saved_out *sv)
{
    return finish_call(c, st, sv, sv->buf == NULL);
}
int ozb_preload_save(saved_out *s, double *v, int64_t rows, int64_t cols, int64_t rs, int64_t cs)
{
    return save_strided(s, v, rows, cols, rs, cs);
}
void ozb_preload_release(saved_out *s) { release_saved(s); }
void ozb_preload_say(const call_desc *c, const char *where, const char *why) { say(c, where, why); }
int ozb_preload_test_fail(void) { return cfg.test_fail; }
long long ozb_preload_begin(void)
{
    in_ozblas = 1;
    return cfg.profile ? now_ns() : 0;
}
void ozb_preload_end(int routine, double work, long long t0)
{
    if (cfg.profile) prof_add(3 + routine, work, t0);
    in_ozblas = 0;
}

/* The process's definition of `name` (what the caller would have reached without this
 * library), as for the six above: the next in the global scope, else the loaded or private BLAS */
void *ozb_preload_real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        void *lib = fallback_lib;
        if (!lib) lib = fallback_lib = loaded_blas();
        if (!lib) lib = fallback_lib = dlopen(OZBLAS_PRELOAD_PRIVATE_BLAS, RTLD_LAZY | RTLD_LOCAL);
        if (lib) f = dlsym(lib, name);
    }
    return f;
}
