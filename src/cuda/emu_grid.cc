/* The emulated device's kernel launches (kernels/ozb_cuda_host.h): the real grid and block
 * sizes, blocks in a shuffled order, the threads of a block in a shuffled order, one at a
 * time.  A launch with barriers runs its block's threads as fibers (small stacks of their
 * own, switched on this host thread): a thread runs until it reaches __syncthreads() or
 * ends, and when every live thread of the block waits at the barrier they all resume, in a
 * new shuffled order.  So the kernels' index arithmetic, grid-stride loops, barriers and
 * cross-thread logic run as written, in an order no kernel may depend on, and a missing
 * barrier or an order-dependent result shows as a wrong result (or an ASan report: the
 * sanitizer build runs this code instrumented, its fiber switches annotated).
 *
 * The order is a pure function of the stream's seed (the OZBLAS_CUDA_EMU_ORDER knob), so a
 * failing order can be replayed. */
#include "../../kernels/ozb_cuda_host.h"
#include "cuda/emu_grid.h"
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define OZB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OZB_ASAN 1
#endif
#endif
#ifdef OZB_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace ozb_host {
dim3v tidx, bidx, bdim, gdim;
static thread_local int error_;
static pthread_mutex_t launch_mu = PTHREAD_MUTEX_INITIALIZER;   /* one launch at a time, process-wide */

int  last_error(bool clear) { const int e = error_; if (clear) error_ = 0; return e; }
void set_error(int e) { error_ = e; }

/* splitmix64: the shuffles' random numbers */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void shuffle(unsigned *v, unsigned n, uint64_t *s)
{
    for (unsigned i = 0; i < n; i++) v[i] = i;
    if (!*s) return;
    for (unsigned i = n; i > 1; i--) {
        const unsigned j = (unsigned)(next(s) % i), t = v[i - 1];
        v[i - 1] = v[j]; v[j] = t;
    }
}

static uint64_t gcd(uint64_t a, uint64_t b) { while (b) { const uint64_t t = a % b; a = b; b = t; } return a; }

/* ---- fibers: a small context switch on x86-64; ucontext's elsewhere (slower: a system call
 * per switch), or where OZB_FIBER_UCONTEXT asks for it ---- */
#if defined(__x86_64__) && !defined(OZB_FIBER_UCONTEXT)
#define OZB_FIBER_ASM 1
/* switch(save, to): pushes the callee-saved registers, stores the stack pointer in *save,
 * loads `to` and pops the other context's registers (System V x86-64) */
extern "C" void ozb_fiber_switch(void **save, void *to);
__asm__(".text\n.globl ozb_fiber_switch\n.hidden ozb_fiber_switch\n.type ozb_fiber_switch,@function\n"
        "ozb_fiber_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n.size ozb_fiber_switch,.-ozb_fiber_switch\n");
#else
#include <ucontext.h>
#endif

enum { READY, WAITING, DONE };
#ifdef OZB_ASAN
static const size_t kStack = 512 * 1024;   /* ASan's redzones make frames larger */
#else
static const size_t kStack = 128 * 1024;
#endif

static const size_t kTopFrames = 64 * 1024;

/* a suspended context: the saved stack pointer (ozb_fiber_switch), or ucontext's */
struct context {
#ifdef OZB_FIBER_ASM
    void *sp;
#else
    ucontext_t uc;
#endif
};

struct fiber { context cx; int state; unsigned t; char *stack; };

/* The fibers' stacks, kept from one launch to the next (launches are serialized): mapped once
 * for the largest block so far, a guard page below each */
static char *stacks_;
static unsigned nstacks_;
static char *fiber_stacks(unsigned block)
{
    if (block <= nstacks_) return stacks_;
    if (stacks_) munmap(stacks_, (size_t)nstacks_ * kStack);
    char *mem = (char *)mmap(nullptr, (size_t)block * kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        fprintf(stderr, "ozblas emulated device: no memory for %u fibers\n", block);
        abort();
    }
    for (unsigned t = 0; t < block; t++) mprotect(mem + (size_t)t * kStack, 4096, PROT_NONE);
    stacks_ = mem;
    nstacks_ = block;
    return mem;
}

struct block_run {
    fiber *f;
    unsigned n;
    context sched;
    fiber *cur;
    void (*fn)(void *);
    void *closure;
    const void *sched_bottom;
    size_t sched_size;
};
static block_run *run_;   /* the block whose fibers run now (launches are serialized) */

/* Saves the running context in *save and resumes *to, whose stack is [bottom, bottom + size)
 * (for ASan's fiber annotations; `ending`: the running context is never resumed). */
static void swap(context *save, context *to, const void *bottom, size_t size, bool ending)
{
#ifdef OZB_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(ending ? nullptr : &fake, bottom, size);
#else
    (void)bottom; (void)size; (void)ending;
#endif
#ifdef OZB_FIBER_ASM
    ozb_fiber_switch(&save->sp, to->sp);
#else
    swapcontext(&save->uc, &to->uc);
#endif
#ifdef OZB_ASAN
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

static void to_scheduler(fiber *me)
{
    swap(&me->cx, &run_->sched, run_->sched_bottom, run_->sched_size, me->state == DONE);
}

static void fiber_entry()
{
    block_run *r = run_;
#ifdef OZB_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &r->sched_bottom, &r->sched_size);
#endif
    fiber *me = r->cur;
    r->fn(r->closure);
    me->state = DONE;
    to_scheduler(me);
    abort();                              /* a finished fiber is never resumed */
}

static void fiber_start(fiber *f)
{
    /* ozb_fiber_switch: the stack as it leaves it, six registers, then fiber_entry as the
     * return address, entered with the stack 8 bytes off 16 as after a call */
#ifdef OZB_ASAN
    /* a fiber of the previous block ended without unwinding its last frames (fiber_entry,
     * to_scheduler: the kernel body itself returned): their redzones, at the top of the
     * stack, are still poisoned in the shadow memory */
    __asan_unpoison_memory_region(f->stack + kStack - kTopFrames, kTopFrames);
#endif
#ifdef OZB_FIBER_ASM
    uintptr_t top = ((uintptr_t)(f->stack + kStack)) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = nullptr;                      /* fiber_entry's (never used) return address */
    *--sp = (void *)&fiber_entry;
    for (int i = 0; i < 6; i++) *--sp = nullptr;
    f->cx.sp = sp;
#else
    getcontext(&f->cx.uc);
    f->cx.uc.uc_stack.ss_sp = f->stack + 4096;   /* above the guard page */
    f->cx.uc.uc_stack.ss_size = kStack - 4096;
    f->cx.uc.uc_link = nullptr;
    makecontext(&f->cx.uc, fiber_entry, 0);
#endif
    f->state = READY;
}

static void resume(block_run *r, fiber *f)
{
    r->cur = f;
    tidx = dim3v{f->t, 0, 0};
    swap(&r->sched, &f->cx, f->stack, kStack, false);
}

void syncthreads()
{
    block_run *r = run_;
    if (!r) {
        fprintf(stderr, "ozblas emulated device: __syncthreads() in a kernel launched without OZB_LAUNCH_SYNC\n");
        abort();
    }
    fiber *me = r->cur;
    me->state = WAITING;
    to_scheduler(me);
}

/* one block: every thread as a fiber, rounds of shuffled resumption between barriers */
static void run_block_fibers(block_run *r, unsigned *order, uint64_t *rng)
{
    for (unsigned t = 0; t < r->n; t++) { r->f[t].t = t; fiber_start(&r->f[t]); }
    for (;;) {
        shuffle(order, r->n, rng);
        unsigned live = 0;
        for (unsigned q = 0; q < r->n; q++) {
            fiber *f = &r->f[order[q]];
            if (f->state == DONE) continue;
            f->state = READY;
            resume(r, f);
            live += f->state == WAITING;
        }
        if (!live) return;
    }
}

void run_grid(cudaStream_t st, unsigned grid, unsigned block, size_t param_bytes, bool barriers, void (*fn)(void *),
              void *closure)
{
    /* the hardware's limits (every current NVIDIA GPU): 1024 threads a block, 2^31 - 1 blocks
     * in x, 4 KiB of kernel parameters (the portable limit) */
    if (grid == 0 || block == 0 || block > 1024 || grid > 0x7fffffffu) { set_error(cudaErrorInvalidConfiguration); return; }
    if (param_bytes > 4096) { set_error(cudaErrorInvalidValue); return; }
    ozb_emu_stream *es = (ozb_emu_stream *)st;
    uint64_t rng0 = es ? es->rng : 0, *rng = &rng0;
    if (es && es->rng) es->rng = next(&es->rng) | 1;   /* the next launch gets another order */
    /* blocks: b -> (a b + c) mod grid, a coprime with grid (a permutation) */
    uint64_t a = 1, c = 0;
    if (*rng && grid > 1) {
        do a = 1 + next(rng) % (grid - 1); while (gcd(a, grid) != 1);
        c = next(rng) % grid;
    }
    pthread_mutex_lock(&launch_mu);
    unsigned *order = (unsigned *)malloc(sizeof(unsigned) * block);
    block_run r = {};
    if (barriers) {
        r.f = (fiber *)calloc(block, sizeof(fiber));
        r.n = block;
        r.fn = fn;
        r.closure = closure;
        if (!r.f) abort();
        char *mem = fiber_stacks(block);
        for (unsigned t = 0; t < block; t++) r.f[t].stack = mem + (size_t)t * kStack;
    }
    if (!order) abort();
    gdim = dim3v{grid, 1, 1};
    bdim = dim3v{block, 1, 1};
    for (uint64_t q = 0; q < grid; q++) {
        bidx = dim3v{(unsigned)((a * q + c) % grid), 0, 0};
        if (barriers) {
            run_ = &r;
            run_block_fibers(&r, order, rng);
            run_ = nullptr;
        } else {
            shuffle(order, block, rng);
            for (unsigned t = 0; t < block; t++) { tidx = dim3v{order[t], 0, 0}; fn(closure); }
        }
    }
    free(r.f);
    free(order);
    pthread_mutex_unlock(&launch_mu);
}
}  // namespace ozb_host
