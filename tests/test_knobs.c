/* test_knobs: the environment knob list (src/core/knobs.c) is what the README's knob table
 * says, every knob is read when a handle is created and never again, and no other library
 * source calls getenv. */
#define _POSIX_C_SOURCE 200809L
#include "core/knobs.h"
#include "core/ozb_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(void)
{
    FILE *f = fopen(OZBLAS_README, "r");
    if (!f) { printf("FAIL: cannot open %s\n0 passed, 1 failed\n", OZBLAS_README); return 1; }
    char line[4096], names[64][64];
    int in = 0, nrows = 0, test_only[64];
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "<!-- knobs:begin -->")) { in = 1; continue; }
        if (strstr(line, "<!-- knobs:end -->")) break;
        if (!in || strncmp(line, "| `OZBLAS_", 10)) continue;
        char *e = strchr(line + 3, '`');
        if (!e || nrows == 64) continue;
        *e = 0;
        snprintf(names[nrows], sizeof names[nrows], "%.63s", line + 3);
        test_only[nrows] = strstr(e + 1, "| yes |") != NULL;
        nrows++;
    }
    fclose(f);
    int ozb_knob_count;
    const ozb_knob_def *ozb_knob_table = ozb_knob_list(&ozb_knob_count);
    CHECK(nrows == ozb_knob_count, "the README's knob table has %d rows, the list %d knobs", nrows, ozb_knob_count);
    for (int i = 0; i < ozb_knob_count; i++) {
        int found = -1;
        for (int r = 0; r < nrows; r++)
            if (!strcmp(names[r], ozb_knob_table[i].name)) found = r;
        CHECK(found >= 0, "%s is not in the README's knob table", ozb_knob_table[i].name);
        if (found >= 0)
            CHECK(test_only[found] == ozb_knob_table[i].test_only, "%s: README says test only %d, the list %d",
                  ozb_knob_table[i].name, test_only[found], ozb_knob_table[i].test_only);
    }
    /* read at creation, not later */
    unsetenv("OZBLAS_NO_FUSED");
    setenv("OZBLAS_FUSED_FAIL", "2", 1);
    ozblas_handle_t h;
    CHECK(ozblas_create(&h) == OZBLAS_STATUS_SUCCESS, "ozblas_create");
    setenv("OZBLAS_NO_FUSED", "1", 1);
    unsetenv("OZBLAS_FUSED_FAIL");
    double x[3] = {1, 2, 3}, r;
    CHECK(ozblas_ddot(h, 3, x, 1, x, 1, &r) == OZBLAS_STATUS_SUCCESS && r == 14.0, "ddot");
    CHECK(h->knobs.no_fused == 0 && h->knobs.fused_fail == 2 && h->knobs.lazy_levels == -1,
          "the handle's knobs changed after creation (no_fused %d, fused_fail %d)", h->knobs.no_fused, h->knobs.fused_fail);
    ozblas_destroy(h);
    CHECK(ozblas_create(&h) == OZBLAS_STATUS_SUCCESS && h->knobs.no_fused == 1 && h->knobs.fused_fail == 0,
          "a new handle did not read the knobs");
    ozblas_destroy(h);
    printf("test_knobs: %d knobs, README table %d rows\n", ozb_knob_count, nrows);
    printf(fails ? "0 passed, 1 failed\n" : "1 passed, 0 failed\n");
    return fails ? 1 : 0;
}
