/*
 * synth:porep — a circuit shaped like one 32 GiB PoRep partition.
 *
 * Section 1 (SHA-like, ~96 % of rows) is a sequence of independent blocks,
 * one per 32-bit word. A block allocates bits with booleanity rows
 * (1 - b) * b = 0, runs 32 chains of XOR rows 2a * b = a + b - c over them
 * (a: the chain's previous value, b: a random bit of the block), packs the
 * 32 chain outputs into a word with (sum 2^i out_i) * 1 = word, and adds a
 * few AND rows a * b = c whose outputs are used nowhere else and a few
 * repeated booleanity rows. The words of the first n_public blocks are the
 * public inputs, so every input is constrained.
 *
 * Section 2 (dense tail) is a set of lanes. A lane starts from ~42 words;
 * each step mixes the last W = 42 values of the lane, s = c + sum M_i v_i
 * (one row, B = 1), and raises s to the fifth power: s*s = x2, x2*x2 = x4,
 * x4*s = x5; x5 joins the lane. Its long rows stand for the real
 * circuit's long linear combinations, and their coefficients follow
 * theirs: most of those are the powers of two 2^0 .. 2^252 of bellperson's
 * packed 32-bit additions (MultiEq) and bit packing, the rest constants of
 * Poseidon folded into its linear combinations, a few thousand values that
 * repeat in every hash. So M_i is 2^k for a random k in [0, 252], except
 * one term in POOL_ONE_IN, which, like c, is one of POOL random constants
 * (bench/RESULTS.md, issue 34: about 3 % of A's nonzeros).
 *
 * The gadget counts at LOG2 = 27 solve the statistics of docs/architecture.md, Synthetic circuits:
 * rows, aux count, nnz of A and C, the share of aux in A (only AND outputs
 * and the last value of each lane are not) and in B (bits, s and x2), with
 * nnz B = one per row; the share of 0/1 values (~90 %) then follows.
 * Smaller LOG2 scales every count by the constraint count.
 *
 * Offsets of every block and lane (first row, variable, entry of A, B, C)
 * are closed forms of the counts, so blocks and lanes are written in
 * parallel straight into the CSR arrays.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "r1cs/synth_impl.h"

#define TAG_BLOCK_CIRCUIT 0x626c6b63ULL
#define TAG_LANE_CIRCUIT 0x6c616e63ULL
#define TAG_BLOCK_WITNESS 0x626c6b77ULL

/* The counts at LOG2 = 27 (docs/architecture.md, Synthetic circuits) and the mixing width. */
#define M27 130278869ULL
#define WORDS27 652910ULL    /* blocks = packed words */
#define STEPS27 3132728ULL   /* x^5 steps of the dense tail (4 rows each) */
#define ANDS27 374964ULL     /* AND rows with unused outputs */
#define RECHECK27 108648ULL  /* repeated booleanity rows (no new variable) */
#define XORS27 89813738ULL
#define MIX_W 42
#define POW2_MAX 252   /* a mixing coefficient is 2^k, k in [0, POW2_MAX], */
#define POOL_ONE_IN 16 /* or, one in POOL_ONE_IN, one of POOL constants */
#define POOL 8192
#define TAG_POOL_CIRCUIT 0x706f6f6cULL
#define CHAINS 32
#define MAX_PUBLIC 328

typedef struct porep_layout {
    uint64_t m, nbool, nxor, nand, nrc, nblk, nstep, nlane;
    uint32_t n_pub;
    uint64_t s1_rows, s1_a, s1_c, s2_var0; /* section 1 totals */
    uint64_t n_vars, nnz_a;
    uint64_t *lane_a; /* nlane + 1 prefix sums of lane A entries, or NULL */
} porep_layout;

static uint64_t share(uint64_t total, uint64_t k, uint64_t parts)
{
    return (uint64_t)((unsigned __int128)total * k / parts);
}

static uint64_t scale27(uint64_t n27, uint64_t m)
{
    return (uint64_t)(((unsigned __int128)n27 * m + M27 / 2) / M27);
}

typedef struct blk {
    uint64_t k, nb, nx, nad, nrc;
    uint64_t row0, var0, a0, c0;
    uint32_t word;
} blk;

static void block_of(blk *b, const porep_layout *L, uint64_t k)
{
    uint64_t pb = share(L->nbool, k, L->nblk), px = share(L->nxor, k, L->nblk);
    uint64_t pa = share(L->nand, k, L->nblk), pr = share(L->nrc, k, L->nblk);
    b->k = k;
    b->nb = share(L->nbool, k + 1, L->nblk) - pb;
    b->nx = share(L->nxor, k + 1, L->nblk) - px;
    b->nad = share(L->nand, k + 1, L->nblk) - pa;
    b->nrc = share(L->nrc, k + 1, L->nblk) - pr;
    b->row0 = pb + px + k + pa + pr;
    b->var0 = 1 + L->n_pub + pb + px + pa + (k > L->n_pub ? k - L->n_pub : 0);
    b->a0 = 2 * pb + px + 32 * k + pa + 2 * pr;
    b->c0 = 3 * px + k + pa;
    b->word = (uint32_t)(k < L->n_pub ? 1 + k : b->var0 + b->nb + b->nx + b->nad);
}

/* The variable holding block k's word, without the rest of block_of. */
static uint32_t word_var(const porep_layout *L, uint64_t k)
{
    if (k < L->n_pub)
        return (uint32_t)(1 + k);
    return (uint32_t)(1 + k + share(L->nbool, k + 1, L->nblk) +
                      share(L->nxor, k + 1, L->nblk) + share(L->nand, k + 1, L->nblk));
}

typedef struct lane {
    uint64_t w0, nw, ns, row0, var0, a0, c0;
} lane;

/* A entries of a lane: step 0 mixes all nw words, step j >= 1 the last
 * min(W, nw + j) values; plus the constant and three S-box rows per step. */
static uint64_t lane_a_count(uint64_t nw, uint64_t ns)
{
    if (ns == 0)
        return 0;
    uint64_t j_lo = 0; /* steps j in [1, ns) with nw + j < W */
    if (nw + 1 < MIX_W)
        j_lo = MIX_W - nw - 1 < ns - 1 ? MIX_W - nw - 1 : ns - 1;
    uint64_t sum = j_lo * nw + j_lo * (j_lo + 1) / 2 + (uint64_t)MIX_W * (ns - 1 - j_lo);
    return nw + sum + 4 * ns;
}

static void lane_of(lane *ln, const porep_layout *L, uint64_t l)
{
    uint64_t s0 = share(L->nstep, l, L->nlane);
    ln->w0 = share(L->nblk, l, L->nlane);
    ln->nw = share(L->nblk, l + 1, L->nlane) - ln->w0;
    ln->ns = share(L->nstep, l + 1, L->nlane) - s0;
    ln->row0 = L->s1_rows + 4 * s0;
    ln->var0 = L->s2_var0 + 4 * s0;
    ln->c0 = L->s1_c + 4 * s0;
    ln->a0 = L->s1_a + L->lane_a[l];
}

/* The gadget counts for log2: every count of M27's solution scaled by the
 * constraint count, booleanity rows taking the rounding rest. */
static zp_err counts_of(porep_layout *L, unsigned log2)
{
    uint64_t m = log2 <= 27 ? (M27 + (((uint64_t)1 << (27 - log2)) >> 1)) >> (27 - log2)
                            : M27 << (log2 - 27);
    uint64_t pub = m >> 9 ? m >> 9 : 1;
    if (pub > MAX_PUBLIC)
        pub = MAX_PUBLIC;
    uint64_t domain = (uint64_t)1 << log2;
    if (m + pub + 1 > domain)
        m = domain - pub - 1;
    L->m = m;
    L->nblk = scale27(WORDS27, m) ? scale27(WORDS27, m) : 1;
    L->nstep = scale27(STEPS27, m) ? scale27(STEPS27, m) : 1;
    L->nand = scale27(ANDS27, m);
    L->nrc = scale27(RECHECK27, m);
    L->nxor = scale27(XORS27, m);
    uint64_t used = L->nblk + 4 * L->nstep + L->nand + L->nrc + L->nxor;
    /* Every block needs >= 32 bits and >= 32 XOR rows (each chain at least
     * one step); only tiny LOG2 could break this. */
    if (used >= m || (m - used) / L->nblk < CHAINS || L->nxor / L->nblk < CHAINS)
        return ZP_E_INVALID_ARG;
    L->nbool = m - used;
    L->n_pub = (uint32_t)(pub < L->nblk ? pub : L->nblk);
    L->nlane = (L->nblk + MIX_W / 2) / MIX_W;
    if (L->nlane < 1)
        L->nlane = 1;
    if (L->nlane > L->nstep)
        L->nlane = L->nstep;
    return ZP_OK;
}

/* Counts and totals; with want_prefix the lane prefix sums are kept (free
 * them with free(L->lane_a)). */
static zp_err layout_of(porep_layout *L, unsigned log2, bool want_prefix)
{
    memset(L, 0, sizeof *L);
    zp_err e = counts_of(L, log2);
    if (e)
        return e;
    blk end;
    block_of(&end, L, L->nblk);
    L->s1_rows = end.row0;
    L->s1_a = end.a0;
    L->s1_c = end.c0;
    L->s2_var0 = end.var0;
    L->n_vars = L->s2_var0 + 4 * L->nstep;
    if (L->n_vars > UINT32_MAX)
        return ZP_E_INVALID_ARG;
    if (want_prefix && !(L->lane_a = malloc((L->nlane + 1) * sizeof *L->lane_a)))
        return ZP_E_NOMEM;
    uint64_t acc = 0;
    for (uint64_t l = 0; l < L->nlane; l++) {
        if (L->lane_a)
            L->lane_a[l] = acc;
        uint64_t nw = share(L->nblk, l + 1, L->nlane) - share(L->nblk, l, L->nlane);
        uint64_t ns = share(L->nstep, l + 1, L->nlane) - share(L->nstep, l, L->nlane);
        acc += lane_a_count(nw, ns);
    }
    if (L->lane_a)
        L->lane_a[L->nlane] = acc;
    L->nnz_a = L->s1_a + acc;
    return ZP_OK;
}

zp_err zp__porep_shape(zp__synth_shape *out, unsigned log2)
{
    porep_layout L;
    zp_err e = layout_of(&L, log2, false);
    if (e)
        return e;
    out->n_constraints = L.m;
    out->n_public = L.n_pub;
    out->n_vars = (uint32_t)L.n_vars;
    out->nnz_a = L.nnz_a;
    out->nnz_b = L.m; /* one B entry per row */
    out->nnz_c = L.s1_c + 4 * L.nstep;
    return ZP_OK;
}

/* ------------------------------------------------------------- circuit */

typedef struct fill_ctx {
    porep_layout L;
    zp__r1cs *cs;
    zp__synth_consts k;
    zp_fr pow2[POW2_MAX + 1]; /* 2^k */
    zp_fr *pool;              /* POOL random constants */
} fill_ctx;

typedef struct rows3 {
    zp__rw a, b, c;
    uint64_t row;
} rows3;

static void end_row(rows3 *r)
{
    zp__rw_end(&r->a, r->row);
    zp__rw_end(&r->b, r->row);
    zp__rw_end(&r->c, r->row);
    r->row++;
}

/* (1 - v) * v = 0 */
static void bool_row(rows3 *r, const zp__synth_consts *k, uint32_t v)
{
    zp__rw_put(&r->a, 0, &k->one);
    zp__rw_put(&r->a, v, &k->minus_one);
    zp__rw_put(&r->b, v, &k->one);
    end_row(r);
}

/* 2a * b = a + b - c, that is c = a XOR b for bits; a != b, c > a, b. */
static void xor_row(rows3 *r, const zp__synth_consts *k, uint32_t a, uint32_t b, uint32_t c)
{
    zp__rw_put(&r->a, a, &k->two);
    zp__rw_put(&r->b, b, &k->one);
    zp__rw_put(&r->c, a < b ? a : b, &k->one);
    zp__rw_put(&r->c, a < b ? b : a, &k->one);
    zp__rw_put(&r->c, c, &k->minus_one);
    end_row(r);
}

/* a * b = c */
static void mul_row(rows3 *r, const zp__synth_consts *k, uint32_t a, uint32_t b, uint32_t c)
{
    zp__rw_put(&r->a, a, &k->one);
    zp__rw_put(&r->b, b, &k->one);
    zp__rw_put(&r->c, c, &k->one);
    end_row(r);
}

static void fill_block(fill_ctx *x, uint64_t k)
{
    blk b;
    block_of(&b, &x->L, k);
    zp__csr *cm = x->cs->c.nrows ? &x->cs->c : NULL;
    rows3 r = {{&x->cs->a, b.a0}, {&x->cs->b, b.row0}, {cm, b.c0}, b.row0};
    const zp__synth_consts *kc = &x->k;
    uint64_t rng = zp__sm64_seed(ZP__SYNTH_CIRCUIT_SEED, TAG_BLOCK_CIRCUIT, k);
    uint32_t bit0 = (uint32_t)b.var0, next = (uint32_t)(b.var0 + b.nb);
    for (uint64_t i = 0; i < b.nb; i++)
        bool_row(&r, kc, bit0 + (uint32_t)i);
    uint32_t outs[CHAINS];
    for (uint64_t c = 0; c < CHAINS; c++) {
        uint64_t steps = share(b.nx, c + 1, CHAINS) - share(b.nx, c, CHAINS);
        uint32_t cur = bit0 + (uint32_t)c;
        for (uint64_t t = 0; t < steps; t++) {
            uint32_t other;
            if (t == 0) { /* cur is a bit: pick another one */
                other = bit0 + (uint32_t)zp__sm64_below(&rng, b.nb - 1);
                other += other >= cur;
            } else {
                other = bit0 + (uint32_t)zp__sm64_below(&rng, b.nb);
            }
            xor_row(&r, kc, cur, other, next);
            cur = next++;
        }
        outs[c] = cur;
    }
    for (int i = 0; i < CHAINS; i++)
        zp__rw_put(&r.a, outs[i], &kc->pow2[i]);
    zp__rw_put(&r.b, 0, &kc->one);
    zp__rw_put(&r.c, b.word, &kc->one);
    end_row(&r);
    for (uint64_t i = 0; i < b.nad; i++) {
        uint32_t u = bit0 + (uint32_t)zp__sm64_below(&rng, b.nb);
        uint32_t v = bit0 + (uint32_t)zp__sm64_below(&rng, b.nb);
        mul_row(&r, kc, u, v, next++);
    }
    for (uint64_t i = 0; i < b.nrc; i++)
        bool_row(&r, kc, bit0 + (uint32_t)zp__sm64_below(&rng, b.nb));
}

static void fill_blocks(void *arg, size_t begin, size_t end)
{
    for (size_t k = begin; k < end; k++)
        fill_block(arg, k);
}

/* The i-th value of a lane: its words, then the x5 of each step. */
static uint32_t lane_item(const porep_layout *L, const lane *ln, uint64_t i)
{
    if (i < ln->nw)
        return word_var(L, ln->w0 + i);
    return (uint32_t)(ln->var0 + 4 * (i - ln->nw) + 3);
}

static void fill_lane(fill_ctx *x, uint64_t l)
{
    lane ln;
    lane_of(&ln, &x->L, l);
    zp__csr *cm = x->cs->c.nrows ? &x->cs->c : NULL;
    rows3 r = {{&x->cs->a, ln.a0}, {&x->cs->b, ln.row0}, {cm, ln.c0}, ln.row0};
    const zp__synth_consts *kc = &x->k;
    uint64_t rng = zp__sm64_seed(ZP__SYNTH_CIRCUIT_SEED, TAG_LANE_CIRCUIT, l);
    for (uint64_t j = 0; j < ln.ns; j++) {
        uint32_t s = (uint32_t)(ln.var0 + 4 * j);
        uint64_t hi = ln.nw + j, lo = j > 0 && hi > MIX_W ? hi - MIX_W : 0;
        zp__rw_put(&r.a, 0, &x->pool[zp__sm64_below(&rng, POOL)]);
        for (uint64_t i = lo; i < hi; i++) {
            const uint64_t v = zp__sm64(&rng);
            const zp_fr *coef = v % POOL_ONE_IN == 0
                                    ? &x->pool[(v / POOL_ONE_IN) % POOL]
                                    : &x->pow2[(v / POOL_ONE_IN) % (POW2_MAX + 1)];
            zp__rw_put(&r.a, lane_item(&x->L, &ln, i), coef);
        }
        zp__rw_put(&r.b, 0, &kc->one);
        zp__rw_put(&r.c, s, &kc->one);
        end_row(&r);
        mul_row(&r, kc, s, s, s + 1);     /* x2 = s * s */
        mul_row(&r, kc, s + 1, s + 1, s + 2); /* x4 = x2 * x2 */
        mul_row(&r, kc, s + 2, s, s + 3); /* x5 = x4 * s */
    }
}

static void fill_lanes(void *arg, size_t begin, size_t end)
{
    for (size_t l = begin; l < end; l++)
        fill_lane(arg, l);
}

zp_err zp__porep_fill(zp__r1cs *cs, const zp__synth_spec *s)
{
    fill_ctx x = {.cs = cs};
    zp_err e = layout_of(&x.L, s->log2, true);
    if (e)
        return e;
    if (!(x.pool = malloc(POOL * sizeof *x.pool))) {
        free(x.L.lane_a);
        return ZP_E_NOMEM;
    }
    zp__synth_consts_init(&x.k);
    x.pow2[0] = x.k.one;
    for (int i = 1; i <= POW2_MAX; i++)
        zp_fr_dbl(&x.pow2[i], &x.pow2[i - 1]);
    uint64_t rng = zp__sm64_seed(ZP__SYNTH_CIRCUIT_SEED, TAG_POOL_CIRCUIT, 0);
    for (int i = 0; i < POOL; i++)
        zp__synth_rand_fr(&x.pool[i], &rng);
    zp__r1cs_par_for(x.L.nblk, 256, s->threads, fill_blocks, &x);
    zp__r1cs_par_for(x.L.nlane, 4, s->threads, fill_lanes, &x);
    free(x.pool);
    free(x.L.lane_a);
    return ZP_OK;
}

/* ------------------------------------------------------------- witness */

typedef struct wit_ctx {
    porep_layout L;
    const zp__r1cs *cs;
    zp_fr *w;
    uint64_t seed;
    uint64_t max_blk_vars;
    zp__synth_consts k;
    atomic_int err;
} wit_ctx;

/* Bits live in a byte array indexed from the block's first variable; the
 * operands of each row are read back from the matrices. A column outside
 * the block means cs is not the circuit of this spec. */
static bool witness_block(wit_ctx *x, uint64_t k, uint8_t *val)
{
    const zp__csr *A = &x->cs->a, *B = &x->cs->b;
    blk b;
    block_of(&b, &x->L, k);
    uint64_t nv = b.nb + b.nx + b.nad, rng = zp__sm64_seed(x->seed, TAG_BLOCK_WITNESS, k);
    uint64_t bits = 0;
    for (uint64_t i = 0; i < b.nb; i++) {
        if (i % 64 == 0)
            bits = zp__sm64(&rng);
        val[i] = (uint8_t)((bits >> (i % 64)) & 1);
    }
    /* XOR rows, then (after the pack row) AND rows; each defines the next
     * variable from two earlier ones. */
    for (uint64_t i = 0; i < b.nx + b.nad; i++) {
        bool is_xor = i < b.nx;
        uint64_t row = b.row0 + b.nb + i + !is_xor, out = b.nb + i;
        uint64_t ia = A->col[A->row_ptr[row]] - b.var0, ib = B->col[B->row_ptr[row]] - b.var0;
        if (ia >= out || ib >= out)
            return false;
        val[out] = is_xor ? val[ia] ^ val[ib] : val[ia] & val[ib];
    }
    for (uint64_t i = 0; i < nv; i++)
        x->w[b.var0 + i] = val[i] ? x->k.one : x->k.zero;
    zp__csr_row_dot(&x->w[b.word], A, b.row0 + b.nb + b.nx, x->w);
    return true;
}

static void witness_blocks(void *arg, size_t begin, size_t end)
{
    wit_ctx *x = arg;
    uint8_t *val = malloc(x->max_blk_vars);
    if (!val) {
        atomic_store(&x->err, ZP_E_NOMEM);
        return;
    }
    for (size_t k = begin; k < end; k++)
        if (!witness_block(x, k, val))
            atomic_store(&x->err, ZP_E_INVALID_ARG);
    free(val);
}

static void witness_lanes(void *arg, size_t begin, size_t end)
{
    wit_ctx *x = arg;
    for (size_t l = begin; l < end; l++) {
        lane ln;
        lane_of(&ln, &x->L, l);
        for (uint64_t j = 0; j < ln.ns; j++) {
            zp_fr *s = &x->w[ln.var0 + 4 * j];
            zp__csr_row_dot(&s[0], &x->cs->a, ln.row0 + 4 * j, x->w);
            zp_fr_sqr(&s[1], &s[0]);
            zp_fr_sqr(&s[2], &s[1]);
            zp_fr_mul(&s[3], &s[2], &s[0]);
        }
    }
}

zp_err zp__porep_witness(zp_fr *w, const zp__r1cs *cs, const zp__synth_spec *s, uint64_t seed)
{
    wit_ctx x = {.cs = cs, .w = w, .seed = seed};
    zp_err e = layout_of(&x.L, s->log2, true);
    if (e)
        return e;
    atomic_init(&x.err, ZP_OK);
    zp__synth_consts_init(&x.k);
    x.max_blk_vars = (x.L.nbool + x.L.nxor + x.L.nand) / x.L.nblk + 3;
    zp_fr_one(&w[0]);
    zp__r1cs_par_for(x.L.nblk, 256, s->threads, witness_blocks, &x);
    if (atomic_load(&x.err) == ZP_OK)
        zp__parallel_for_progress(x.L.nlane, 4, witness_lanes, &x, s->threads, s->progress,
                                  "generating witness");
    free(x.L.lane_a);
    return (zp_err)atomic_load(&x.err);
}
