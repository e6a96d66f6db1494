/*
 * Host planning of the compact device CSR (eval_plan.h). Compiled in the
 * CUDA build from here and in the CPU-only build through nogpu.c, since
 * zp__gpu_csr_bytes (the key's device size) is needed by both.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/eval_plan.h"

static bool same(const zp_fr *a, const zp_fr *b)
{
    return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) |
            (a->l[3] ^ b->l[3])) == 0;
}

static uint64_t digest(const zp_fr *v)
{
    return (v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ULL) ^ v->l[3]) * 0xff51afd7ed558ccdULL;
}

uint8_t zp__ev_code(const zp__ev_plan *p, const zp_fr *v)
{
    if (same(v, &p->one))
        return ZP__EV_PLUS;
    if (same(v, &p->m1))
        return ZP__EV_MINUS;
    uint64_t h = digest(v), tag = h | 1;
    /* at most a quarter full: a probe ends at a free slot */
    for (uint32_t i = (uint32_t)(h >> 40) & (ZP__EV_LOOKUP - 1); p->tag[i];
         i = (i + 1) & (ZP__EV_LOOKUP - 1))
        if (p->tag[i] == tag && same(&p->tab[p->idx[i]], v))
            return (uint8_t)(2 + p->idx[i]);
    return ZP__EV_ESC;
}

/* ------------------------------------------------------ the sample */

typedef struct cand {
    zp_fr v;
    uint64_t tag, first;
    uint32_t count;
} cand;

typedef struct sampler {
    cand *c;      /* ZP__EV_CAND entries */
    uint32_t *at; /* 2 * ZP__EV_CAND slots: entry + 1, 0 when free */
    uint32_t n;
    uint64_t seen;
} sampler;

static void sample_one(sampler *s, const zp__ev_plan *p, const zp_fr *v)
{
    if (same(v, &p->one) || same(v, &p->m1))
        return;
    uint64_t h = digest(v), tag = h | 1, seen = s->seen++;
    uint32_t i = (uint32_t)(h >> 40) & (2 * ZP__EV_CAND - 1);
    while (s->at[i] && (s->c[s->at[i] - 1].tag != tag || !same(&s->c[s->at[i] - 1].v, v)))
        i = (i + 1) & (2 * ZP__EV_CAND - 1);
    if (s->at[i]) {
        s->c[s->at[i] - 1].count++;
    } else if (s->n < ZP__EV_CAND) {
        s->c[s->n] = (cand){*v, tag, seen, 1};
        s->at[i] = ++s->n;
    }
}

static int by_count(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

static void table_insert(zp__ev_plan *p, const zp_fr *v)
{
    uint64_t h = digest(v);
    uint32_t i = (uint32_t)(h >> 40) & (ZP__EV_LOOKUP - 1);
    while (p->tag[i])
        i = (i + 1) & (ZP__EV_LOOKUP - 1);
    p->tag[i] = h | 1;
    p->idx[i] = (uint8_t)p->n_tab;
    p->tab[p->n_tab++] = *v;
}

static zp_err make_table(zp__ev_plan *p, const zp__csr *m)
{
    sampler s = {calloc(ZP__EV_CAND, sizeof(cand)), calloc(2 * ZP__EV_CAND, 4), 0, 0};
    if (!s.c || !s.at) {
        free(s.c);
        free(s.at);
        return ZP_E_NOMEM;
    }
    uint64_t span = (uint64_t)ZP__EV_WINDOWS * ZP__EV_WIN;
    if (m->nnz <= span) {
        for (uint64_t k = 0; k < m->nnz; k++)
            sample_one(&s, p, &m->val[k]);
    } else {
        for (uint64_t j = 0; j < ZP__EV_WINDOWS; j++) {
            uint64_t k0 = (m->nnz - ZP__EV_WIN) / (ZP__EV_WINDOWS - 1) * j;
            for (uint64_t k = k0; k < k0 + ZP__EV_WIN; k++)
                sample_one(&s, p, &m->val[k]);
        }
    }
    qsort(s.c, s.n, sizeof *s.c, by_count);
    for (uint32_t i = 0; i < s.n && p->n_tab < ZP__EV_TAB && s.c[i].count >= 2; i++)
        table_insert(p, &s.c[i].v);
    free(s.c);
    free(s.at);
    return ZP_OK;
}

/* ------------------------------------------------- the parallel passes */

typedef struct count_ctx {
    const zp__ev_plan *p;
    const zp__csr *m;
    _Atomic uint64_t esc, lng;
} count_ctx;

static void count_esc(void *arg, size_t begin, size_t end)
{
    count_ctx *x = arg;
    uint64_t n = 0;
    for (size_t k = begin; k < end; k++)
        n += zp__ev_code(x->p, &x->m->val[k]) == ZP__EV_ESC;
    atomic_fetch_add(&x->esc, n);
}

static void count_long(void *arg, size_t begin, size_t end)
{
    count_ctx *x = arg;
    uint64_t n = 0;
    for (size_t i = begin; i < end; i++)
        n += x->m->row_ptr[i + 1] - x->m->row_ptr[i] > ZP__GPU_EVAL_SHORT;
    atomic_fetch_add(&x->lng, n);
}

typedef struct enc_ctx {
    const zp__ev_plan *p;
    uint8_t *codes;
    uint64_t *bits;
    const zp_fr *v;
    uint64_t n;
} enc_ctx;

static void encode_words(void *arg, size_t begin, size_t end)
{
    enc_ctx *x = arg;
    for (size_t wd = begin; wd < end; wd++) {
        uint64_t b = 0;
        for (uint64_t j = 64 * wd; j < 64 * wd + 64 && j < x->n; j++) {
            uint8_t c = zp__ev_code(x->p, &x->v[j]);
            x->codes[j] = c;
            b |= (uint64_t)(c == ZP__EV_ESC) << (j & 63);
        }
        x->bits[wd] = b;
    }
}

void zp__ev_encode(const zp__ev_plan *p, uint8_t *codes, uint64_t *bits, const zp_fr *v,
                   uint64_t n, int threads)
{
    enc_ctx x = {p, codes, bits, v, n};
    zp__r1cs_par_for((size_t)((n + 63) / 64), 1024, threads, encode_words, &x);
}

static uint64_t al(uint64_t x) { return (x + 255) & ~(uint64_t)255; }

zp_err zp__ev_plan_make(zp__ev_plan *p, const zp__csr *m, int threads)
{
    memset(p, 0, sizeof *p);
    zp_fr_one(&p->one);
    zp_fr_neg(&p->m1, &p->one);
    zp_err e = make_table(p, m);
    if (e)
        return e;
    count_ctx x = {p, m, 0, 0};
    zp__r1cs_par_for((size_t)m->nnz, (size_t)1 << 16, threads, count_esc, &x);
    zp__r1cs_par_for((size_t)m->nrows, (size_t)1 << 16, threads, count_long, &x);
    p->n_esc = atomic_load(&x.esc);
    p->n_long = atomic_load(&x.lng);
    p->rp64 = m->nnz >> 32 != 0;
    uint64_t nw = (m->nnz + 63) / 64, esc_words = p->n_esc ? 8 * nw : 0;
    p->o_rp = 0;
    p->o_col = al(p->o_rp + (m->nrows + 1) * (p->rp64 ? 8 : 4));
    p->o_code = al(p->o_col + 4 * m->nnz);
    p->o_bits = al(p->o_code + m->nnz);
    p->o_rank = al(p->o_bits + esc_words);
    p->o_esc = al(p->o_rank + esc_words);
    p->o_tab = al(p->o_esc + sizeof(zp_fr) * p->n_esc);
    p->o_long = al(p->o_tab + sizeof(zp_fr) * p->n_tab);
    p->end = p->o_long + 8 * p->n_long;
    p->bytes = al(p->end); /* end >= 256: the arena's own rounding */
    return ZP_OK;
}

uint64_t zp__gpu_csr_bytes_tab(const zp__csr *m, uint64_t *tab_bytes)
{
    zp__ev_plan *p = malloc(sizeof *p);
    uint64_t bytes = UINT64_MAX;
    *tab_bytes = 0;
    if (p && zp__ev_plan_make(p, m, 0) == ZP_OK) {
        bytes = p->bytes;
        *tab_bytes = p->n_tab * sizeof(zp_fr);
    }
    free(p);
    return bytes;
}

uint64_t zp__gpu_csr_bytes(const zp__csr *m)
{
    uint64_t tab;
    return zp__gpu_csr_bytes_tab(m, &tab);
}
