/*
 * ozblas._ozblas: the C extension behind the Python package (python/ozblas).
 *
 * NumPy's C API on the public include/ozblas.h alone.  A handle object wraps one
 * ozblas_handle_t; its dot/gemv/gemm take NumPy arrays (or, on a CUDA handle, objects with
 * __cuda_array_interface__), read the BLAS layout from the strides (a C-ordered matrix is the
 * transpose of a Fortran-ordered one: a transpose flag and a leading dimension, no copy),
 * copy only inputs no BLAS layout describes, and turn every status into an exception carrying
 * ozblas_status_string's message.  The Python layer (the .py files of python/ozblas) adds the keyword
 * configuration, the per-thread default handles, the report dataclass and matmul.
 *
 * The GIL is released around the library call when the call has enough work for another
 * thread to gain from it (bench/results/python-overhead-*.md); a handle is guarded against
 * use from two threads at once (the library's rule: one thread at a time per handle).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_23_API_VERSION
#define NPY_TARGET_VERSION NPY_1_23_API_VERSION
#include <numpy/arrayobject.h>

#include <ozblas.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* calls with at least this many multiply-adds release the GIL (below it, the release and
 * re-acquisition cost more than any other thread could win in the call's time) */
#ifndef OZB_PY_GIL_WORK
#define OZB_PY_GIL_WORK 4096
#endif

static PyObject *OzblasError, *InvalidValueError, *AllocFailedError, *NotSupportedError,
                *ExecutionFailedError;

/* ------------------------------------------------------------------ errors */

/* raise cls(msg) with .status = st */
static void set_error(PyObject *cls, PyObject *msg, ozblas_status_t st)
{
    PyObject *exc = PyObject_CallFunctionObjArgs(cls, msg, NULL);
    if (!exc) return;
    PyObject *code = PyLong_FromLong((long)st);
    if (code && PyObject_SetAttrString(exc, "status", code) == 0) PyErr_SetObject(cls, exc);
    Py_XDECREF(code);
    Py_DECREF(exc);
}

static PyObject *raise_status(ozblas_status_t st, const char *what)
{
    PyObject *cls;
    switch (st) {
    case OZBLAS_STATUS_INVALID_VALUE:    cls = InvalidValueError; break;
    case OZBLAS_STATUS_ALLOC_FAILED:     cls = AllocFailedError; break;
    case OZBLAS_STATUS_NOT_SUPPORTED:    cls = NotSupportedError; break;
    case OZBLAS_STATUS_EXECUTION_FAILED: cls = ExecutionFailedError; break;
    default:                             cls = OzblasError; break;
    }
    PyObject *msg = PyUnicode_FromFormat("%s: %s", what, ozblas_status_string(st));
    if (!msg) return NULL;
    set_error(cls, msg, st);
    Py_DECREF(msg);
    return NULL;
}

/* ------------------------------------------------------------------ handle object */

typedef struct {
    PyObject_HEAD
    ozblas_handle_t h;
    int backend;      /* OZBLAS_BACKEND_CPU / _CUDA */
    int host_arrays;  /* 1: the routines take host memory (CPU handles, the emulated device) */
    int busy;         /* a call is in progress with the GIL released */
} HandleObject;

static int handle_ready(HandleObject *self)
{
    if (!self->h) {
        PyErr_SetString(PyExc_ValueError, "ozblas handle is closed");
        return 0;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "ozblas handle is in use by another thread (a handle serves one thread at a time: "
                        "use one Handle per thread, or the module-level functions, whose default handles are per thread)");
        return 0;
    }
    return 1;
}

static void handle_dealloc(HandleObject *self)
{
    if (self->h) ozblas_destroy(self->h);
    self->h = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* _Handle(backend=0, device=0, host_arrays=1) */
static int handle_init(HandleObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"backend", "device", "host_arrays", NULL};
    int backend = 0, device = 0, host = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|iip:_Handle", names, &backend, &device, &host)) return -1;
    if (self->h) { ozblas_destroy(self->h); self->h = NULL; }
    ozblas_status_t st;
    if (backend == OZBLAS_BACKEND_CPU) {
        st = ozblas_create(&self->h);
        host = 1;
    } else if (backend == OZBLAS_BACKEND_CUDA) {
        st = ozblas_create_cuda(&self->h, device);
        if (st == OZBLAS_STATUS_NOT_SUPPORTED) {
            const char *why = ozblas_cuda_unavailable_reason(device);
            PyObject *msg = PyUnicode_FromFormat("ozblas_create_cuda(device=%d): %s%s%s", device,
                                                 ozblas_status_string(st), why ? ": " : "", why ? why : "");
            if (msg) { set_error(NotSupportedError, msg, st); Py_DECREF(msg); }
            self->h = NULL;
            return -1;
        }
    } else {
        PyErr_SetString(InvalidValueError, "backend must be 0 (cpu) or 1 (cuda)");
        return -1;
    }
    if (st != OZBLAS_STATUS_SUCCESS) { self->h = NULL; raise_status(st, "ozblas_create"); return -1; }
    self->backend = backend;
    self->host_arrays = host;
    self->busy = 0;
    return 0;
}

static PyObject *handle_close(HandleObject *self, PyObject *Py_UNUSED(ignored))
{
    if (self->busy) { handle_ready(self); return NULL; }
    if (self->h) {
        ozblas_status_t st = ozblas_destroy(self->h);
        self->h = NULL;
        if (st != OZBLAS_STATUS_SUCCESS) return raise_status(st, "ozblas_destroy");
    }
    Py_RETURN_NONE;
}

static PyObject *handle_closed(HandleObject *self, void *Py_UNUSED(c)) { return PyBool_FromLong(self->h == NULL); }
static PyObject *handle_get_backend(HandleObject *self, void *Py_UNUSED(c)) { return PyLong_FromLong(self->backend); }
static PyObject *handle_get_host(HandleObject *self, void *Py_UNUSED(c)) { return PyBool_FromLong(self->host_arrays); }

/* _set(name, value): one setting */
static PyObject *handle_set(HandleObject *self, PyObject *args)
{
    const char *name; long long v;
    if (!PyArg_ParseTuple(args, "sL:_set", &name, &v)) return NULL;
    if (!handle_ready(self)) return NULL;
    ozblas_status_t st;
    if (!strcmp(name, "mode")) st = ozblas_set_mode(self->h, (ozblas_mode_t)v);
    else if (!strcmp(name, "engine")) st = ozblas_set_engine(self->h, (ozblas_engine_t)v);
    else if (!strcmp(name, "split_count")) {
        if (v < INT32_MIN || v > INT32_MAX) st = OZBLAS_STATUS_INVALID_VALUE;
        else st = ozblas_set_split_count(self->h, (int)v);
    }
    else if (!strcmp(name, "fast_mode")) st = ozblas_set_fast_mode(self->h, (int)(v != 0));
    else if (!strcmp(name, "summation")) st = ozblas_set_summation(self->h, (ozblas_summation_t)v);
    else if (!strcmp(name, "crt_scaling")) st = ozblas_set_crt_scaling(self->h, (ozblas_crt_scaling_t)v);
    else if (!strcmp(name, "num_threads")) {
        if (v < INT32_MIN || v > INT32_MAX) st = OZBLAS_STATUS_INVALID_VALUE;
        else st = ozblas_set_num_threads(self->h, (int)v);
    }
    else if (!strcmp(name, "workspace_limit")) {
        if (v < 0) st = OZBLAS_STATUS_INVALID_VALUE;
        else st = ozblas_set_workspace_limit(self->h, (size_t)v);
    }
    else if (!strcmp(name, "parallel_threshold")) st = ozblas_set_parallel_threshold(self->h, (int64_t)v);
    else { PyErr_Format(PyExc_KeyError, "unknown setting %s", name); return NULL; }
    if (st != OZBLAS_STATUS_SUCCESS) {
        char what[64];
        snprintf(what, sizeof what, "ozblas_set_%s(%lld)", name, v);
        return raise_status(st, what);
    }
    Py_RETURN_NONE;
}

/* _get(name) -> int */
static PyObject *handle_get(HandleObject *self, PyObject *arg)
{
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name) return NULL;
    if (!handle_ready(self)) return NULL;
    ozblas_status_t st;
    long long v = 0;
    if (!strcmp(name, "mode")) { ozblas_mode_t x; st = ozblas_get_mode(self->h, &x); v = x; }
    else if (!strcmp(name, "engine")) { ozblas_engine_t x; st = ozblas_get_engine(self->h, &x); v = x; }
    else if (!strcmp(name, "split_count")) { int x; st = ozblas_get_split_count(self->h, &x); v = x; }
    else if (!strcmp(name, "fast_mode")) { int x; st = ozblas_get_fast_mode(self->h, &x); v = x; }
    else if (!strcmp(name, "summation")) { ozblas_summation_t x; st = ozblas_get_summation(self->h, &x); v = x; }
    else if (!strcmp(name, "crt_scaling")) { ozblas_crt_scaling_t x; st = ozblas_get_crt_scaling(self->h, &x); v = x; }
    else if (!strcmp(name, "num_threads")) { int x; st = ozblas_get_num_threads(self->h, &x); v = x; }
    else if (!strcmp(name, "workspace_limit")) { size_t x; st = ozblas_get_workspace_limit(self->h, &x); v = (long long)x; }
    else if (!strcmp(name, "parallel_threshold")) { int64_t x; st = ozblas_get_parallel_threshold(self->h, &x); v = x; }
    else if (!strcmp(name, "backend")) { ozblas_backend_t x; st = ozblas_get_backend(self->h, &x); v = x; }
    else { PyErr_Format(PyExc_KeyError, "unknown setting %s", name); return NULL; }
    if (st != OZBLAS_STATUS_SUCCESS) return raise_status(st, "ozblas_get");
    return PyLong_FromLongLong(v);
}

/* _products_name(engine) -> str | None */
static PyObject *handle_products_name(HandleObject *self, PyObject *arg)
{
    long e = PyLong_AsLong(arg);
    if (e == -1 && PyErr_Occurred()) return NULL;
    if (!handle_ready(self)) return NULL;
    const char *s = ozblas_products_name(self->h, (ozblas_engine_t)e);
    if (!s) Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

/* _info() -> tuple of ozblas_info_t's fields, in their order */
static PyObject *handle_info(HandleObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!handle_ready(self)) return NULL;
    ozblas_info_t i;
    ozblas_status_t st = ozblas_get_info(self->h, &i);
    if (st != OZBLAS_STATUS_SUCCESS) return raise_status(st, "ozblas_get_info");
    return Py_BuildValue("(iiiiiiiiLLdLLLLLLddddiLLi)", i.slices_a, i.slices_b, i.split_count, i.fast_mode,
                         (int)i.mode, (int)i.summation, (int)i.engine, i.bits_per_slice,
                         (long long)i.gemm_calls, (long long)i.slice_products, i.gemm_flops,
                         (long long)i.blocks, (long long)i.block_m, (long long)i.block_n, (long long)i.block_k,
                         (long long)i.exact_fallbacks, (long long)i.lazy_fixups,
                         i.seconds_split, i.seconds_multiply, i.seconds_sum, i.seconds_total, i.fused,
                         (long long)i.bytes_to_device, (long long)i.bytes_to_host, i.host_staged);
}

/* _set_stream(ptr): a CUDA handle's stream (0 = default) */
static PyObject *handle_set_stream(HandleObject *self, PyObject *arg)
{
    void *p = PyLong_AsVoidPtr(arg);
    if (!p && PyErr_Occurred()) return NULL;
    if (!handle_ready(self)) return NULL;
    ozblas_status_t st = ozblas_set_stream(self->h, p);
    if (st != OZBLAS_STATUS_SUCCESS) return raise_status(st, "ozblas_set_stream");
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ array views */

typedef struct {
    char *data;              /* address of element 0 (index 0, 0) */
    int ndim;
    npy_intp shape[2];
    npy_intp strides[2];     /* bytes */
    int writable;
    int aligned;
    PyObject *ref;           /* owned: the array (or interface dict) the view keeps alive */
    PyObject *obj;           /* borrowed: what the caller passed */
} view_t;

static void view_release(view_t *v) { Py_CLEAR(v->ref); }

static void view_from_array(view_t *v, PyArrayObject *a)
{
    v->data = PyArray_BYTES(a);
    v->ndim = PyArray_NDIM(a);
    for (int d = 0; d < v->ndim && d < 2; d++) {
        v->shape[d] = PyArray_DIM(a, d);
        v->strides[d] = PyArray_STRIDE(a, d);
    }
    v->writable = PyArray_ISWRITEABLE(a);
    v->aligned = PyArray_ISALIGNED(a);
}

static int is_cuda_array(PyObject *o)
{
    if (PyArray_CheckExact(o) || PyList_Check(o) || PyTuple_Check(o) || PyFloat_Check(o) || PyLong_Check(o)) return 0;
    return PyObject_HasAttrString(o, "__cuda_array_interface__");
}

/* A host float64 array from `o`: ndarrays (and array-likes) must be float64 already; Python
 * lists, tuples and numbers are converted (integers and booleans exactly as float64 holds them). */
static int view_host(view_t *v, PyObject *o, const char *name)
{
    memset(v, 0, sizeof *v);
    v->obj = o;
    PyArrayObject *a;
    if (PyArray_Check(o)) {
        a = (PyArrayObject *)o;
        Py_INCREF(o);
    } else {
        if (is_cuda_array(o)) {
            PyErr_Format(PyExc_TypeError, "%s: a CUDA array (__cuda_array_interface__) was passed to a CPU handle: "
                         "use backend=\"cuda\", or copy it to the host (cupy: .get())", name);
            return -1;
        }
        a = (PyArrayObject *)PyArray_FromAny(o, NULL, 0, 0, 0, NULL);
        if (!a) return -1;
        int seq = PyList_Check(o) || PyTuple_Check(o) || PyFloat_Check(o) || PyLong_Check(o) || PyBool_Check(o);
        int kind = PyArray_DESCR(a)->kind;
        if (seq && (kind == 'i' || kind == 'u' || kind == 'b') && PyArray_TYPE(a) != NPY_DOUBLE) {
            PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(a, PyArray_DescrFromType(NPY_DOUBLE), NPY_ARRAY_DEFAULT | NPY_ARRAY_FORCECAST);
            Py_DECREF(a);
            if (!c) return -1;
            a = c;
        }
    }
    if (PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(a)) {
        PyObject *dt = PyObject_Str((PyObject *)PyArray_DESCR(a));
        PyErr_Format(PyExc_TypeError, "%s: ozblas computes in float64 only, got an array of dtype %S "
                     "(convert with numpy.asarray(%s, dtype=numpy.float64) if that is what you mean)",
                     name, dt ? dt : Py_None, name);
        Py_XDECREF(dt);
        Py_DECREF(a);
        return -1;
    }
    if (PyArray_NDIM(a) > 2) {
        PyErr_Format(InvalidValueError, "%s: %d-dimensional arrays are not supported (1-D vectors and 2-D matrices only)",
                     name, PyArray_NDIM(a));
        Py_DECREF(a);
        return -1;
    }
    v->ref = (PyObject *)a;
    view_from_array(v, a);
    return 0;
}

static int get_intp_tuple(PyObject *t, npy_intp *out, int n, const char *what)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != n) {
        PyErr_Format(InvalidValueError, "__cuda_array_interface__: bad %s", what);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long long x = PyLong_AsLongLong(PyTuple_GET_ITEM(t, i));
        if (x == -1 && PyErr_Occurred()) return -1;
        out[i] = (npy_intp)x;
    }
    return 0;
}

/* A device array from __cuda_array_interface__ (CuPy, Numba, PyTorch...) */
static int view_device(view_t *v, PyObject *o, const char *name)
{
    memset(v, 0, sizeof *v);
    v->obj = o;
    PyObject *d = PyObject_GetAttrString(o, "__cuda_array_interface__");
    if (!d) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: a CUDA handle takes device arrays (objects with __cuda_array_interface__, "
                     "such as CuPy arrays), got %.100s", name, Py_TYPE(o)->tp_name);
        return -1;
    }
    v->ref = d;
    if (!PyDict_Check(d)) { PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ is not a dict"); return -1; }
    PyObject *ts = PyDict_GetItemString(d, "typestr");
    const char *tss = ts ? PyUnicode_AsUTF8(ts) : NULL;
    if (!tss) { PyErr_Clear(); PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ without typestr"); return -1; }
    if (strcmp(tss, "<f8") != 0) {
        PyErr_Format(PyExc_TypeError, "%s: ozblas computes in float64 only, got a device array of type %s", name, tss);
        return -1;
    }
    PyObject *mask = PyDict_GetItemString(d, "mask");
    if (mask && mask != Py_None) { PyErr_Format(InvalidValueError, "%s: masked device arrays are not supported", name); return -1; }
    PyObject *shape = PyDict_GetItemString(d, "shape");
    if (!shape || !PyTuple_Check(shape)) { PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ without shape"); return -1; }
    int nd = (int)PyTuple_GET_SIZE(shape);
    if (nd < 1 || nd > 2) {
        PyErr_Format(InvalidValueError, "%s: %d-dimensional arrays are not supported (1-D vectors and 2-D matrices only)", name, nd);
        return -1;
    }
    v->ndim = nd;
    if (get_intp_tuple(shape, v->shape, nd, "shape") < 0) return -1;
    PyObject *strides = PyDict_GetItemString(d, "strides");
    if (!strides || strides == Py_None) {      /* C-contiguous */
        v->strides[nd - 1] = 8;
        if (nd == 2) v->strides[0] = 8 * v->shape[1];
    } else if (get_intp_tuple(strides, v->strides, nd, "strides") < 0) return -1;
    PyObject *data = PyDict_GetItemString(d, "data");
    if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ without data");
        return -1;
    }
    v->data = (char *)PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (!v->data && PyErr_Occurred()) return -1;
    v->writable = !PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    v->aligned = ((uintptr_t)v->data % 8) == 0;
    for (int i = 0; i < nd; i++) if (v->strides[i] % 8) v->aligned = 0;
    return 0;
}

static int view_get(HandleObject *self, view_t *v, PyObject *o, const char *name)
{
    return self->host_arrays ? view_host(v, o, name) : view_device(v, o, name);
}

/* Replace a host input view by a copy in `order` (NPY_FORTRANORDER for matrices, C for vectors). */
static int view_copy(view_t *v, NPY_ORDER order)
{
    PyArrayObject *c = (PyArrayObject *)PyArray_NewCopy((PyArrayObject *)v->ref, order);
    if (!c) return -1;
    Py_DECREF(v->ref);
    v->ref = (PyObject *)c;
    view_from_array(v, c);
    return 0;
}

/* Byte range [lo, hi) a view touches */
static void view_bounds(const view_t *v, uintptr_t *lo, uintptr_t *hi)
{
    intptr_t a = 0, b = 0;
    for (int d = 0; d < v->ndim; d++) {
        if (v->shape[d] == 0) { *lo = *hi = (uintptr_t)v->data; return; }
        intptr_t e = (intptr_t)(v->shape[d] - 1) * v->strides[d];
        if (e < 0) a += e; else b += e;
    }
    *lo = (uintptr_t)v->data + a;
    *hi = (uintptr_t)v->data + b + 8;
}

static int views_overlap(const view_t *x, const view_t *y)
{
    uintptr_t a0, a1, b0, b1;
    view_bounds(x, &a0, &a1);
    view_bounds(y, &b0, &b1);
    return a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1;
}

/* ------------------------------------------------------------------ BLAS layouts */

typedef struct { char *ptr; int64_t inc; } vec_t;
typedef struct { char *ptr; int64_t ld; int trans; } mat_t;  /* trans: the storage is op^T's column-major */

/* 1-D view as a BLAS vector: pointer to the lowest-addressed element and increment (negative
 * increments as in reference BLAS).  zero_ok: a zero increment (broadcast) is acceptable. */
static int vec_plan(const view_t *v, int zero_ok, vec_t *out)
{
    npy_intp n = v->shape[0], s = v->strides[0];
    if (!v->aligned) return -1;
    if (n <= 1) { out->ptr = v->data; out->inc = 1; return 0; }
    if (s % 8) return -1;
    if (s == 0 && !zero_ok) return -1;
    out->inc = s / 8;
    out->ptr = s < 0 ? v->data + (n - 1) * s : v->data;
    return 0;
}

/* 2-D view (rows x cols) as a column-major BLAS matrix: either the matrix itself (trans = 0:
 * unit row stride, ld = column stride) or its transpose (trans = 1: a row-major matrix, unit
 * column stride, ld = row stride). */
static int mat_plan(const view_t *v, mat_t *out)
{
    npy_intp r = v->shape[0], c = v->shape[1];
    npy_intp s0 = v->strides[0], s1 = v->strides[1];
    if (!v->aligned) return -1;
    out->ptr = v->data;
    if (r == 0 || c == 0) { out->trans = 0; out->ld = r > 1 ? r : 1; return 0; }
    /* column-major: unit stride down a column */
    if ((r == 1 || s0 == 8) && (c == 1 || (s1 > 0 && s1 % 8 == 0 && s1 / 8 >= r))) {
        out->trans = 0;
        out->ld = c == 1 ? (r > 1 ? r : 1) : s1 / 8;
        return 0;
    }
    /* row-major: unit stride along a row */
    if ((c == 1 || s1 == 8) && (r == 1 || (s0 > 0 && s0 % 8 == 0 && s0 / 8 >= c))) {
        out->trans = 1;
        out->ld = r == 1 ? (c > 1 ? c : 1) : s0 / 8;
        return 0;
    }
    return -1;
}

/* ------------------------------------------------------------------ fast argument parsing */

/* positional then keyword arguments of a METH_FASTCALL|METH_KEYWORDS call into slots[] */
static int parse_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *fname,
                      const char *const *names, int nnames, int nrequired, PyObject **slots)
{
    if (nargs > nnames) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", fname, nnames, nargs);
        return -1;
    }
    for (int i = 0; i < nnames; i++) slots[i] = i < nargs ? args[i] : NULL;
    if (kwnames) {
        Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t j = 0; j < nk; j++) {
            const char *k = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, j));
            if (!k) return -1;
            int i;
            for (i = 0; i < nnames; i++) if (!strcmp(k, names[i])) break;
            if (i == nnames) { PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", fname, k); return -1; }
            if (slots[i]) { PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, k); return -1; }
            slots[i] = args[nargs + j];
        }
    }
    for (int i = 0; i < nrequired; i++)
        if (!slots[i]) { PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname, names[i]); return -1; }
    return 0;
}

static int get_double(PyObject *o, double dflt, double *out, const char *name)
{
    if (!o || o == Py_None) { *out = dflt; return 0; }
    if (PyComplex_Check(o)) { PyErr_Format(PyExc_TypeError, "%s must be a real number, got complex", name); return -1; }
    double x = PyFloat_AsDouble(o);
    if (x == -1.0 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

/* a call on a CUDA handle that takes device arrays goes to the Python layer first
 * (host arrays moved with CuPy, outputs allocated there): Handle._device_<routine> */
static PyObject *delegate(HandleObject *self, const char *meth, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *f = PyObject_GetAttrString((PyObject *)self, meth);
    if (!f) return NULL;
    PyObject *r = PyObject_Vectorcall(f, args, nargs, kwnames);
    Py_DECREF(f);
    return r;
}

/* The library call.  The handle is checked again here, after the arguments' conversions
 * (which may run Python code, and so let another thread in): closed, or in a call of another
 * thread that released the GIL, gives OZB_NOT_READY and handle_ready's exception. */
#define OZB_NOT_READY ((ozblas_status_t)-1)
#define OZB_CALL(self, work, expr)                                       \
    do {                                                                 \
        if (!(self)->h || (self)->busy) {                                \
            st = OZB_NOT_READY;                                          \
        } else if ((work) >= OZB_PY_GIL_WORK) {                          \
            (self)->busy = 1;                                            \
            Py_BEGIN_ALLOW_THREADS                                       \
            st = (expr);                                                 \
            Py_END_ALLOW_THREADS                                         \
            (self)->busy = 0;                                            \
        } else {                                                         \
            st = (expr);                                                 \
        }                                                                \
    } while (0)

static void call_failed(HandleObject *self, ozblas_status_t st, const char *what)
{
    if (st == OZB_NOT_READY) handle_ready(self);
    else raise_status(st, what);
}

/* ------------------------------------------------------------------ DOT */

static PyObject *dot_impl(HandleObject *self, PyObject *xo, PyObject *yo)
{
    if (!handle_ready(self)) return NULL;
    view_t x, y;
    if (view_get(self, &x, xo, "x") < 0) { view_release(&x); return NULL; }
    if (view_get(self, &y, yo, "y") < 0) { view_release(&x); view_release(&y); return NULL; }
    PyObject *res = NULL;
    vec_t px, py;
    if (x.ndim != 1 || y.ndim != 1) {
        PyErr_Format(InvalidValueError, "dot: x and y must be 1-D vectors, got %d-D and %d-D", x.ndim, y.ndim);
        goto out;
    }
    if (x.shape[0] != y.shape[0]) {
        PyErr_Format(InvalidValueError, "dot: x and y differ in length (%zd and %zd)", (Py_ssize_t)x.shape[0], (Py_ssize_t)y.shape[0]);
        goto out;
    }
    if (vec_plan(&x, 1, &px) < 0) {
        if (!self->host_arrays) { PyErr_SetString(InvalidValueError, "dot: x's strides are not a multiple of 8 bytes"); goto out; }
        if (view_copy(&x, NPY_CORDER) < 0 || vec_plan(&x, 1, &px) < 0) goto out;
    }
    if (vec_plan(&y, 1, &py) < 0) {
        if (!self->host_arrays) { PyErr_SetString(InvalidValueError, "dot: y's strides are not a multiple of 8 bytes"); goto out; }
        if (view_copy(&y, NPY_CORDER) < 0 || vec_plan(&y, 1, &py) < 0) goto out;
    }
    {
        double r = 0.0;
        ozblas_status_t st;
        int64_t n = x.shape[0];
        OZB_CALL(self, n, ozblas_ddot(self->h, n, (const double *)px.ptr, px.inc, (const double *)py.ptr, py.inc, &r));
        if (st != OZBLAS_STATUS_SUCCESS) { call_failed(self, st, "ozblas_ddot"); goto out; }
        res = PyFloat_FromDouble(r);
    }
out:
    view_release(&x);
    view_release(&y);
    return res;
}

static PyObject *handle_dot(HandleObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) { PyErr_Format(PyExc_TypeError, "dot() takes exactly 2 arguments (x, y) (%zd given)", nargs); return NULL; }
    if (!self->host_arrays) return delegate(self, "_device_dot", args, nargs, NULL);
    return dot_impl(self, args[0], args[1]);
}

static PyObject *handle_dot_raw(HandleObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) { PyErr_SetString(PyExc_TypeError, "_dot() takes exactly 2 arguments"); return NULL; }
    return dot_impl(self, args[0], args[1]);
}

/* ------------------------------------------------------------------ output arrays */

/* A writable output view of the given shape; out == NULL/None: a new C-ordered host array. */
static int out_get(HandleObject *self, view_t *v, PyObject *o, int nd, npy_intp d0, npy_intp d1, const char *fname)
{
    if (!o || o == Py_None) {
        memset(v, 0, sizeof *v);
        if (!self->host_arrays) {
            PyErr_Format(InvalidValueError, "%s: out= is required here (device arrays)", fname);
            return -1;
        }
        npy_intp dims[2] = {d0, d1};
        PyArrayObject *a = (PyArrayObject *)PyArray_EMPTY(nd, dims, NPY_DOUBLE, 0);
        if (!a) return -1;
        v->ref = (PyObject *)a;
        v->obj = (PyObject *)a;
        view_from_array(v, a);
        return 0;
    }
    if (self->host_arrays) {
        memset(v, 0, sizeof *v);
        v->obj = o;
        if (!PyArray_Check(o)) {
            PyErr_Format(PyExc_TypeError, "%s: out must be a numpy.ndarray, got %.100s", fname, Py_TYPE(o)->tp_name);
            return -1;
        }
        PyArrayObject *a = (PyArrayObject *)o;
        if (PyArray_TYPE(a) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(a)) {
            PyObject *dt = PyObject_Str((PyObject *)PyArray_DESCR(a));
            PyErr_Format(PyExc_TypeError, "%s: out must be a float64 array, got dtype %S", fname, dt ? dt : Py_None);
            Py_XDECREF(dt);
            return -1;
        }
        Py_INCREF(o);
        v->ref = o;
        view_from_array(v, a);
    } else if (view_device(v, o, "out") < 0) {
        return -1;
    }
    if (v->ndim != nd || v->shape[0] != d0 || (nd == 2 && v->shape[1] != d1)) {
        if (nd == 1)
            PyErr_Format(InvalidValueError, "%s: out must have shape (%zd,)", fname, (Py_ssize_t)d0);
        else
            PyErr_Format(InvalidValueError, "%s: out must have shape (%zd, %zd)", fname, (Py_ssize_t)d0, (Py_ssize_t)d1);
        return -1;
    }
    if (!v->writable) { PyErr_Format(InvalidValueError, "%s: out is read-only", fname); return -1; }
    return 0;
}

/* ------------------------------------------------------------------ GEMV */

static const char *const gemv_names[] = {"A", "x", "alpha", "beta", "out"};

static PyObject *gemv_impl(HandleObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *s[5];
    if (parse_args(args, nargs, kwnames, "gemv", gemv_names, 5, 2, s) < 0) return NULL;
    double alpha, beta;
    if (get_double(s[2], 1.0, &alpha, "alpha") < 0 || get_double(s[3], 0.0, &beta, "beta") < 0) return NULL;
    if (!handle_ready(self)) return NULL;
    view_t A = {0}, x = {0}, y = {0};
    PyObject *res = NULL;
    if (view_get(self, &A, s[0], "A") < 0 || view_get(self, &x, s[1], "x") < 0) goto out;
    if (A.ndim != 2) { PyErr_Format(InvalidValueError, "gemv: A must be a 2-D matrix, got %d-D", A.ndim); goto out; }
    if (x.ndim != 1) { PyErr_Format(InvalidValueError, "gemv: x must be a 1-D vector, got %d-D", x.ndim); goto out; }
    npy_intp m = A.shape[0], n = A.shape[1];
    if (x.shape[0] != n) {
        PyErr_Format(InvalidValueError, "gemv: A is %zd x %zd but x has length %zd", (Py_ssize_t)m, (Py_ssize_t)n, (Py_ssize_t)x.shape[0]);
        goto out;
    }
    if ((!s[4] || s[4] == Py_None) && beta != 0.0) {
        PyErr_SetString(InvalidValueError, "gemv: beta != 0 needs out= (the vector y that beta scales and the result replaces)");
        goto out;
    }
    if (out_get(self, &y, s[4], 1, m, 0, "gemv") < 0) goto out;
    vec_t py;
    if (vec_plan(&y, 0, &py) < 0) {
        PyErr_SetString(InvalidValueError, "gemv: out must be aligned with a nonzero stride that is a multiple of 8 bytes");
        goto out;
    }
    mat_t pa;
    vec_t px;
    if (self->host_arrays && views_overlap(&A, &y) && view_copy(&A, NPY_FORTRANORDER) < 0) goto out;
    if (self->host_arrays && views_overlap(&x, &y) && view_copy(&x, NPY_CORDER) < 0) goto out;
    if (mat_plan(&A, &pa) < 0) {
        if (!self->host_arrays) { PyErr_SetString(InvalidValueError, "gemv: A has no BLAS layout (one unit stride, the other a multiple of 8 bytes)"); goto out; }
        if (view_copy(&A, NPY_FORTRANORDER) < 0 || mat_plan(&A, &pa) < 0) goto out;
    }
    if (vec_plan(&x, 0, &px) < 0) {
        if (!self->host_arrays) { PyErr_SetString(InvalidValueError, "gemv: x needs a nonzero stride that is a multiple of 8 bytes"); goto out; }
        if (view_copy(&x, NPY_CORDER) < 0 || vec_plan(&x, 0, &px) < 0) goto out;
    }
    if (n == 0) {
        /* no inner products: y = beta y (BLAS's DGEMV returns at once there and leaves y as it
         * was, NumPy's A @ x gives zeros): a GEMM with k = 0 over y as a 1 x m matrix */
        ozblas_status_t st;
        OZB_CALL(self, 0, ozblas_dgemm(self->h, OZBLAS_OP_N, OZBLAS_OP_N, 1, m, 0, alpha, (const double *)py.ptr, 1,
                                       (const double *)py.ptr, 1, beta, (double *)py.ptr, py.inc < 0 ? -py.inc : py.inc));
        if (st != OZBLAS_STATUS_SUCCESS) { call_failed(self, st, "ozblas_dgemm"); goto out; }
        res = y.obj;
        Py_INCREF(res);
        goto out;
    }
    {
        ozblas_status_t st;
        int64_t work = (int64_t)m * n;
        if (!pa.trans)
            OZB_CALL(self, work, ozblas_dgemv(self->h, OZBLAS_OP_N, m, n, alpha, (const double *)pa.ptr, pa.ld,
                                              (const double *)px.ptr, px.inc, beta, (double *)py.ptr, py.inc));
        else
            OZB_CALL(self, work, ozblas_dgemv(self->h, OZBLAS_OP_T, n, m, alpha, (const double *)pa.ptr, pa.ld,
                                              (const double *)px.ptr, px.inc, beta, (double *)py.ptr, py.inc));
        if (st != OZBLAS_STATUS_SUCCESS) { call_failed(self, st, "ozblas_dgemv"); goto out; }
        res = y.obj;
        Py_INCREF(res);
    }
out:
    view_release(&A); view_release(&x); view_release(&y);
    return res;
}

static PyObject *handle_gemv(HandleObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (!self->host_arrays) return delegate(self, "_device_gemv", args, nargs, kwnames);
    return gemv_impl(self, args, nargs, kwnames);
}

static PyObject *handle_gemv_raw(HandleObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return gemv_impl(self, args, nargs, kwnames);
}

/* ------------------------------------------------------------------ GEMM */

static const char *const gemm_names[] = {"A", "B", "alpha", "beta", "out"};

static PyObject *gemm_impl(HandleObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *s[5];
    if (parse_args(args, nargs, kwnames, "gemm", gemm_names, 5, 2, s) < 0) return NULL;
    double alpha, beta;
    if (get_double(s[2], 1.0, &alpha, "alpha") < 0 || get_double(s[3], 0.0, &beta, "beta") < 0) return NULL;
    if (!handle_ready(self)) return NULL;
    view_t A = {0}, B = {0}, C = {0};
    PyObject *res = NULL;
    if (view_get(self, &A, s[0], "A") < 0 || view_get(self, &B, s[1], "B") < 0) goto out;
    if (A.ndim != 2 || B.ndim != 2) {
        PyErr_Format(InvalidValueError, "gemm: A and B must be 2-D matrices, got %d-D and %d-D", A.ndim, B.ndim);
        goto out;
    }
    npy_intp m = A.shape[0], k = A.shape[1], n = B.shape[1];
    if (B.shape[0] != k) {
        PyErr_Format(InvalidValueError, "gemm: A is %zd x %zd but B is %zd x %zd (inner dimensions differ)",
                     (Py_ssize_t)m, (Py_ssize_t)k, (Py_ssize_t)B.shape[0], (Py_ssize_t)n);
        goto out;
    }
    if ((!s[4] || s[4] == Py_None) && beta != 0.0) {
        PyErr_SetString(InvalidValueError, "gemm: beta != 0 needs out= (the matrix C that beta scales and the result replaces)");
        goto out;
    }
    if (out_get(self, &C, s[4], 2, m, n, "gemm") < 0) goto out;
    mat_t pc, pa, pb;
    if (mat_plan(&C, &pc) < 0) {
        PyErr_SetString(InvalidValueError, "gemm: out has no BLAS layout (aligned, C- or Fortran-ordered rows or columns: "
                        "one unit stride, the other a multiple of 8 bytes at least the row or column length)");
        goto out;
    }
    if (self->host_arrays && views_overlap(&A, &C) && view_copy(&A, NPY_FORTRANORDER) < 0) goto out;
    if (self->host_arrays && views_overlap(&B, &C) && view_copy(&B, NPY_FORTRANORDER) < 0) goto out;
    if (mat_plan(&A, &pa) < 0) {
        if (!self->host_arrays) { PyErr_SetString(InvalidValueError, "gemm: A has no BLAS layout"); goto out; }
        if (view_copy(&A, NPY_FORTRANORDER) < 0 || mat_plan(&A, &pa) < 0) goto out;
    }
    if (mat_plan(&B, &pb) < 0) {
        if (!self->host_arrays) { PyErr_SetString(InvalidValueError, "gemm: B has no BLAS layout"); goto out; }
        if (view_copy(&B, NPY_FORTRANORDER) < 0 || mat_plan(&B, &pb) < 0) goto out;
    }
    {
        ozblas_status_t st;
        int64_t work = (int64_t)m * n * (k > 0 ? k : 1);
        if (!pc.trans)        /* C column-major: C = op(A) op(B) */
            OZB_CALL(self, work, ozblas_dgemm(self->h, pa.trans ? OZBLAS_OP_T : OZBLAS_OP_N, pb.trans ? OZBLAS_OP_T : OZBLAS_OP_N,
                                              m, n, k, alpha, (const double *)pa.ptr, pa.ld, (const double *)pb.ptr, pb.ld,
                                              beta, (double *)pc.ptr, pc.ld));
        else                  /* C row-major: C^T = B^T A^T, column-major */
            OZB_CALL(self, work, ozblas_dgemm(self->h, pb.trans ? OZBLAS_OP_N : OZBLAS_OP_T, pa.trans ? OZBLAS_OP_N : OZBLAS_OP_T,
                                              n, m, k, alpha, (const double *)pb.ptr, pb.ld, (const double *)pa.ptr, pa.ld,
                                              beta, (double *)pc.ptr, pc.ld));
        if (st != OZBLAS_STATUS_SUCCESS) { call_failed(self, st, "ozblas_dgemm"); goto out; }
        res = C.obj;
        Py_INCREF(res);
    }
out:
    view_release(&A); view_release(&B); view_release(&C);
    return res;
}

static PyObject *handle_gemm(HandleObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (!self->host_arrays) return delegate(self, "_device_gemm", args, nargs, kwnames);
    return gemm_impl(self, args, nargs, kwnames);
}

static PyObject *handle_gemm_raw(HandleObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return gemm_impl(self, args, nargs, kwnames);
}

/* ------------------------------------------------------------------ type */

static PyMethodDef handle_methods[] = {
    {"dot", (PyCFunction)(void (*)(void))handle_dot, METH_FASTCALL,
     "dot(x, y) -> float: x . y of two 1-D float64 vectors (any strides, negative and zero included)."},
    {"gemv", (PyCFunction)(void (*)(void))handle_gemv, METH_FASTCALL | METH_KEYWORDS,
     "gemv(A, x, alpha=1.0, beta=0.0, out=None): out = alpha A x + beta out."},
    {"gemm", (PyCFunction)(void (*)(void))handle_gemm, METH_FASTCALL | METH_KEYWORDS,
     "gemm(A, B, alpha=1.0, beta=0.0, out=None): out = alpha A B + beta out."},
    {"_dot", (PyCFunction)(void (*)(void))handle_dot_raw, METH_FASTCALL, "dot on the arrays as given (no delegation)"},
    {"_gemv", (PyCFunction)(void (*)(void))handle_gemv_raw, METH_FASTCALL | METH_KEYWORDS, "gemv on the arrays as given"},
    {"_gemm", (PyCFunction)(void (*)(void))handle_gemm_raw, METH_FASTCALL | METH_KEYWORDS, "gemm on the arrays as given"},
    {"close", (PyCFunction)handle_close, METH_NOARGS, "close(): destroy the library handle (idempotent)."},
    {"_set", (PyCFunction)handle_set, METH_VARARGS, "_set(name, value)"},
    {"_get", (PyCFunction)handle_get, METH_O, "_get(name) -> int"},
    {"_info", (PyCFunction)handle_info, METH_NOARGS, "_info() -> tuple (ozblas_info_t)"},
    {"_products_name", (PyCFunction)handle_products_name, METH_O, "_products_name(engine) -> str | None"},
    {"_set_stream", (PyCFunction)handle_set_stream, METH_O, "_set_stream(ptr)"},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef handle_getset[] = {
    {"closed", (getter)handle_closed, NULL, "True once close() was called", NULL},
    {"_backend_code", (getter)handle_get_backend, NULL, NULL, NULL},
    {"_host_arrays", (getter)handle_get_host, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject HandleType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ozblas._ozblas._Handle",
    .tp_basicsize = sizeof(HandleObject),
    .tp_dealloc = (destructor)handle_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "An ozblas library handle (use ozblas.Handle).",
    .tp_methods = handle_methods,
    .tp_getset = handle_getset,
    .tp_init = (initproc)handle_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------ module functions */

static PyObject *mod_status_string(PyObject *Py_UNUSED(m), PyObject *arg)
{
    long s = PyLong_AsLong(arg);
    if (s == -1 && PyErr_Occurred()) return NULL;
    return PyUnicode_FromString(ozblas_status_string((ozblas_status_t)s));
}

static PyObject *mod_cuda_unavailable_reason(PyObject *Py_UNUSED(m), PyObject *arg)
{
    long d = PyLong_AsLong(arg);
    if (d == -1 && PyErr_Occurred()) return NULL;
    const char *s = ozblas_cuda_unavailable_reason((int)d);
    if (!s) Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* _time_c_ddot(handle, x, y, calls) -> seconds per call of ozblas_ddot itself on the same
 * handle and arrays (contiguous float64), for bench/py_overhead.py: the C call's cost
 * measured in the same process as the Python calls it is compared with. */
static PyObject *mod_time_c_ddot(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *ho, *xo, *yo;
    long calls;
    if (!PyArg_ParseTuple(args, "O!O!O!l", &HandleType, &ho, &PyArray_Type, &xo, &PyArray_Type, &yo, &calls)) return NULL;
    HandleObject *self = (HandleObject *)ho;
    PyArrayObject *x = (PyArrayObject *)xo, *y = (PyArrayObject *)yo;
    if (!handle_ready(self)) return NULL;
    if (PyArray_TYPE(x) != NPY_DOUBLE || PyArray_TYPE(y) != NPY_DOUBLE || !PyArray_IS_C_CONTIGUOUS(x) ||
        !PyArray_IS_C_CONTIGUOUS(y) || PyArray_SIZE(x) != PyArray_SIZE(y) || calls < 1) {
        PyErr_SetString(PyExc_ValueError, "_time_c_ddot: contiguous float64 vectors of one length, calls >= 1");
        return NULL;
    }
    const double *xp = (const double *)PyArray_DATA(x), *yp = (const double *)PyArray_DATA(y);
    int64_t n = PyArray_SIZE(x);
    volatile double sink = 0;
    double r = 0;
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    double t0 = now_s();
    for (long i = 0; i < calls && st == OZBLAS_STATUS_SUCCESS; i++) {
        st = ozblas_ddot(self->h, n, xp, 1, yp, 1, &r);
        sink = r;
    }
    double t1 = now_s();
    (void)sink;
    if (st != OZBLAS_STATUS_SUCCESS) return raise_status(st, "ozblas_ddot");
    return PyFloat_FromDouble((t1 - t0) / (double)calls);
}

static PyMethodDef module_methods[] = {
    {"status_string", mod_status_string, METH_O, "status_string(code) -> the library's text for a status code"},
    {"cuda_unavailable_reason", mod_cuda_unavailable_reason, METH_O,
     "cuda_unavailable_reason(device) -> None when a CUDA handle on `device` can be created, else why not"},
    {"_time_c_ddot", mod_time_c_ddot, METH_VARARGS, "benchmark helper (bench/py_overhead.py)"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_ozblas",
    "C extension of the ozblas package (use the ozblas package, not this module).",
    -1, module_methods, NULL, NULL, NULL, NULL
};

static PyObject *new_exc(PyObject *m, const char *name, PyObject *bases, const char *doc)
{
    char full[96];
    snprintf(full, sizeof full, "ozblas.%s", name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    if (!e) return NULL;
    Py_INCREF(e);
    if (PyModule_AddObject(m, name, e) < 0) { Py_DECREF(e); Py_DECREF(e); return NULL; }
    return e;
}

PyMODINIT_FUNC PyInit__ozblas(void);
PyMODINIT_FUNC PyInit__ozblas(void)
{
    import_array();
    if (PyType_Ready(&HandleType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&HandleType);
    if (PyModule_AddObject(m, "_Handle", (PyObject *)&HandleType) < 0) goto fail;
    OzblasError = new_exc(m, "OzblasError", NULL,
                          "An ozblas call failed; .status is the library's ozblas_status_t code.");
    if (!OzblasError) goto fail;
    PyObject *b;
    b = PyTuple_Pack(2, OzblasError, PyExc_ValueError);
    InvalidValueError = b ? new_exc(m, "InvalidValueError", b, "OZBLAS_STATUS_INVALID_VALUE: an argument is out of range.") : NULL;
    Py_XDECREF(b);
    b = PyTuple_Pack(2, OzblasError, PyExc_MemoryError);
    AllocFailedError = b ? new_exc(m, "AllocFailedError", b, "OZBLAS_STATUS_ALLOC_FAILED: the workspace could not be allocated.") : NULL;
    Py_XDECREF(b);
    NotSupportedError = new_exc(m, "NotSupportedError", OzblasError,
                                "OZBLAS_STATUS_NOT_SUPPORTED: not supported by this build, backend or machine.");
    ExecutionFailedError = new_exc(m, "ExecutionFailedError", OzblasError,
                                   "OZBLAS_STATUS_EXECUTION_FAILED: a device operation failed.");
    if (!InvalidValueError || !AllocFailedError || !NotSupportedError || !ExecutionFailedError) goto fail;
    if (PyModule_AddIntConstant(m, "VERSION_MAJOR", OZBLAS_VERSION_MAJOR) < 0 ||
        PyModule_AddIntConstant(m, "VERSION_MINOR", OZBLAS_VERSION_MINOR) < 0 ||
        PyModule_AddIntConstant(m, "VERSION_PATCH", OZBLAS_VERSION_PATCH) < 0 ||
        PyModule_AddIntConstant(m, "GIL_RELEASE_WORK", OZB_PY_GIL_WORK) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
