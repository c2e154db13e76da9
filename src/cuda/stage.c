/* Staging of a device handle's operands (stage.h).  Only the elements a routine reads are
 * copied in, and only the output window goes back: padding beyond m (up to ldc) and the
 * gaps of strided vectors are never written on the device. */
#include "cuda/stage.h"
#include "cuda/dev.h"

/* The 2-D copy of an operand (cudaMemcpy2D terms) and the host view of its dense copy:
 * element (i, l) is host[off + i*rs + l*cs]. */
typedef struct { const double *dev_base; size_t width, height, pitch; int64_t off, rs, cs; } geom_t;

/* The geometry of rows x cols elements p[i*rs + l*cs]: a vector, or a matrix with one stride
 * +-1 and the other at least that axis's extent in magnitude (column-major, transposed, and
 * either traversed backwards: the triangular solve's reversed views).  The device block
 * starts at the lowest address; the host copy keeps its order, densely. */
static int geometry(const double *p, int64_t rows, int64_t cols, int64_t rs, int64_t cs, geom_t *g)
{
    if (rows == 1 || cols == 1) {             /* a vector: len elements, stride st */
        const int64_t len = rows == 1 ? cols : rows, st = rows == 1 ? cs : rs;
        if (len == 1 || st == 0) {            /* one element (BLAS increment 0 reads x[0] n times) */
            *g = (geom_t){ p, sizeof(double), 1, sizeof(double), 0, 0, 0 };
            return 0;
        }
        const int64_t ast = st < 0 ? -st : st, hst = st < 0 ? -1 : 1;
        *g = (geom_t){ st < 0 ? p + (len - 1) * st : p, sizeof(double), (size_t)len, sizeof(double) * (size_t)ast,
                       st < 0 ? len - 1 : 0, rows == 1 ? 0 : hst, rows == 1 ? hst : 0 };
        return 0;
    }
    const int64_t ars = rs < 0 ? -rs : rs, acs = cs < 0 ? -cs : cs;
    const int byrows = ars == 1 && acs >= rows;   /* else the columns are the contiguous axis */
    if (!byrows && !(acs == 1 && ars >= cols)) return -1;   /* no driver makes such a view */
    const int64_t unit = byrows ? rows : cols, other = byrows ? cols : rows, pitch = byrows ? acs : ars;
    const double *base = p + (rs < 0 ? (rows - 1) * rs : 0) + (cs < 0 ? (cols - 1) * cs : 0);
    /* host element (i, l) at off + i hrs + l hcs: the unit axis contiguous, the other `unit` apart */
    const int64_t hrs = (rs < 0 ? -1 : 1) * (byrows ? 1 : unit), hcs = (cs < 0 ? -1 : 1) * (byrows ? unit : 1);
    const int64_t off = (rs < 0 ? -(rows - 1) * hrs : 0) + (cs < 0 ? -(cols - 1) * hcs : 0);
    *g = (geom_t){ base, sizeof(double) * (size_t)unit, (size_t)other, sizeof(double) * (size_t)pitch, off, hrs, hcs };
    return 0;
}

/* host buffer of `slot` holding the rows x cols operand; copied from the device if `fetch` */
static ozblas_status_t stage_in(ozblas_handle_t h, int slot, const double *p, int64_t rows, int64_t cols, int64_t rs,
                                int64_t cs, int fetch, geom_t *g, ozb_view *hv)
{
    if (geometry(p, rows, cols, rs, cs, g)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const size_t len = g->width / sizeof(double) * g->height;
    double *host = ozb_buf_get(h, slot, sizeof(double) * len);
    if (!host) return OZBLAS_STATUS_ALLOC_FAILED;
    *hv = (ozb_view){ host + g->off, g->rs, g->cs };
    if (!fetch) { memset(host, 0, sizeof(double) * len); return OZBLAS_STATUS_SUCCESS; }
    if (ozb_dev_get(h->dev, host, g->width, g->dev_base, g->pitch, g->width, g->height)) return OZBLAS_STATUS_EXECUTION_FAILED;
    return OZBLAS_STATUS_SUCCESS;
}


ozblas_status_t ozb_stage_save_c(ozblas_handle_t h, const ozb_problem *pr)
{
    geom_t g;
    if (geometry(pr->c, pr->m, pr->n, pr->crs, pr->ccs, &g)) return OZBLAS_STATUS_NOT_SUPPORTED;
    void *save = ozb_dev_buf(h->dev, OZB_DBUF_CSAVE, g.width * g.height);
    if (!save) return OZBLAS_STATUS_NOT_SUPPORTED;      /* no room on the device: the staged path */
    return ozb_dev_copy(h->dev, save, g.width, g.dev_base, g.pitch, g.width, g.height) ? OZBLAS_STATUS_EXECUTION_FAILED
                                                                                        : OZBLAS_STATUS_SUCCESS;
}

void ozb_stage_restore_c(ozblas_handle_t h, const ozb_problem *pr)
{
    geom_t g;
    if (geometry(pr->c, pr->m, pr->n, pr->crs, pr->ccs, &g)) return;
    const void *save = ozb_dev_buf(h->dev, OZB_DBUF_CSAVE, g.width * g.height);   /* the saved copy, kept */
    /* (done before the call returns: the caller's C is as it was) */
    if (save && ozb_dev_copy(h->dev, (void *)g.dev_base, g.pitch, save, g.width, g.width, g.height) == 0)
        ozb_dev_sync(h->dev);
}

ozblas_status_t ozb_stage_c_copy(ozblas_handle_t h, const ozb_problem *pr, double *w, ozb_problem *wp)
{
    geom_t g;
    if (geometry(pr->c, pr->m, pr->n, pr->crs, pr->ccs, &g)) return OZBLAS_STATUS_NOT_SUPPORTED;
    *wp = *pr;
    wp->c = w + g.off; wp->crs = g.rs; wp->ccs = g.cs;
    if (pr->beta == 0.0) return OZBLAS_STATUS_SUCCESS;          /* C is not read */
    return ozb_dev_copy(h->dev, w, g.width, g.dev_base, g.pitch, g.width, g.height) ? OZBLAS_STATUS_EXECUTION_FAILED
                                                                                    : OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_stage_begin(ozblas_handle_t h, const ozb_problem *pr, ozb_problem *hp)
{
    h->stage_token = ozb_dev_enter(h->dev);
    h->stage_t0 = ozb_now();
    *hp = *pr;
    geom_t ga, gb, gc;
    ozb_view cv;
    ozblas_status_t st;
    if ((st = stage_in(h, OZB_BUF_HA, pr->a.p, pr->m, pr->k, pr->a.rs, pr->a.cs, 1, &ga, &hp->a))) return st;
    if ((st = stage_in(h, OZB_BUF_HB, pr->b.p, pr->n, pr->k, pr->b.rs, pr->b.cs, 1, &gb, &hp->b))) return st;
    if (!pr->c_host) {
        /* beta == 0: C is not read (BLAS), so it is not fetched either */
        if ((st = stage_in(h, OZB_BUF_HC, pr->c, pr->m, pr->n, pr->crs, pr->ccs, pr->beta != 0.0, &gc, &cv))) return st;
        hp->c = (double *)cv.p; hp->crs = cv.rs; hp->ccs = cv.cs;
    }
    h->stage_t1 = ozb_now();
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_stage_end(ozblas_handle_t h, const ozb_problem *pr, ozblas_status_t st)
{
    geom_t gc;
    if (st == OZBLAS_STATUS_SUCCESS) {            /* else the device's C is untouched */
        const double t2 = ozb_now();
        if (!pr->c_host && (geometry(pr->c, pr->m, pr->n, pr->crs, pr->ccs, &gc) ||
                            ozb_dev_put(h->dev, (void *)gc.dev_base, gc.pitch, h->buf[OZB_BUF_HC].p, gc.width, gc.width, gc.height)))
            st = OZBLAS_STATUS_EXECUTION_FAILED;
        /* transfers count as split (in) and sum (out) time */
        h->info.seconds_split += h->stage_t1 - h->stage_t0;
        h->info.seconds_sum += ozb_now() - t2;
        h->info.seconds_total = ozb_now() - h->stage_t0;
    }
    ozb_dev_leave(h->dev, h->stage_token);
    return st;
}

