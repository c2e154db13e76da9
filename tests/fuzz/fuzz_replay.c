/*
 * Plain driver for fuzz_ozblas.c: replays files (or every file of the directories) given on
 * the command line through LLVMFuzzerTestOneInput, so the committed corpus and the
 * regression inputs run in the ordinary test suite without libFuzzer.  A failed check aborts.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long replayed = 0;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "fuzz_replay: cannot open %s\n", path); return 1; }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) { cap *= 2; uint8_t *nb = realloc(buf, cap); if (!nb) { free(buf); buf = NULL; } else buf = nb; }
    }
    fclose(f);
    if (!buf) { fprintf(stderr, "fuzz_replay: out of memory\n"); return 1; }
    fprintf(stderr, "fuzz_replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    replayed++;
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) { fprintf(stderr, "fuzz_replay: cannot open directory %s\n", dir); return 1; }
    char **names = NULL;
    size_t cnt = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0) continue;
        char **nn = realloc(names, sizeof *names * (cnt + 1));
        if (!nn) break;
        names = nn;
        names[cnt++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, cnt, sizeof *names, cmp);   /* a fixed order */
    int rc = 0;
    for (size_t i = 0; i < cnt; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *p = malloc(len);
        snprintf(p, len, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) rc |= replay_file(p);
        free(p);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) { fprintf(stderr, "fuzz_replay: no such path %s\n", argv[i]); rc = 1; continue; }
        rc |= S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
    }
    printf("fuzz_replay: %ld inputs replayed, all checks passed\n", replayed);
    return rc;
}
