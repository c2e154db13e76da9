/* preload_census: preloading libozblas_preload.so changes nothing about the process's BLAS.
 * The program links no BLAS; it opens census_client.so (linked to the system
 * BLAS) with RTLD_LOCAL, as Python opens NumPy, calls its DGEMM, and prints
 *   result <the 1x1x3 product>
 *   defines <path>: <symbols>   for every loaded object defining dgemm_, xerbla_ or
 *                               openblas_set_num_threads (the interposer itself left out)
 *   global xerbla_ <path|none>  where the global scope binds xerbla_
 * run_census.sh runs it with and without the interposer: the census lines must be equal (no
 * second BLAS, no symbol of the process rebound) and the product must be the exact 1 with it
 * (so the interposer served the call and found the locally loaded BLAS for its products). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_OBJ = 512 };
static char *names[MAX_OBJ];
static int n_names;

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size; (void)data;
    if (info->dlpi_name && info->dlpi_name[0] && n_names < MAX_OBJ) names[n_names++] = strdup(info->dlpi_name);
    return 0;
}

/* the real path of the object that defines the code or data at p, or "" */
static void object_path(const void *p, char *out)
{
    Dl_info di;
    out[0] = '\0';
    if (p && dladdr(p, &di) && di.dli_fname && !realpath(di.dli_fname, out)) out[0] = '\0';
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s census_client.so\n", argv[0]); return 2; }
    void *client = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!client) { fprintf(stderr, "FAIL: %s\n", dlerror()); return 1; }
    double (*run)(void) = (double (*)(void))dlsym(client, "census_client_run");
    if (!run) { fprintf(stderr, "FAIL: census_client_run missing\n"); return 1; }
    printf("result %.17g\n", run());

    static const char *const syms[] = { "dgemm_", "xerbla_", "openblas_set_num_threads" };
    dl_iterate_phdr(collect, NULL);
    for (int i = 0; i < n_names; i++) {
        char self[PATH_MAX];
        if (!realpath(names[i], self) || strstr(self, "libozblas_preload")) continue;
        void *h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        char line[1024] = "";
        for (size_t s = 0; s < sizeof syms / sizeof syms[0]; s++) {
            char where[PATH_MAX];
            object_path(dlsym(h, syms[s]), where);
            if (strcmp(where, self) == 0) { strcat(line, " "); strcat(line, syms[s]); }
        }
        if (line[0]) printf("defines %s:%s\n", self, line);
        dlclose(h);
    }
    char where[PATH_MAX];
    object_path(dlsym(RTLD_DEFAULT, "xerbla_"), where);
    printf("global xerbla_ %s\n", where[0] ? where : "none");
    return 0;
}
