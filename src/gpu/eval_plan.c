/*
 * Host planning of the compact device CSR (eval_plan.h). Compiled in the
 * CUDA build from here and in the CPU-only build through nogpu.c, since
 * zp__gpu_csr_bytes (the key's device size) is needed by both.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/eval_plan.h"

zp_err zp__ev_plan_init(zp__ev_plan *p)
{
    memset(p, 0, sizeof *p);
    zp_fr_one(&p->one);
    zp_fr_neg(&p->m1, &p->one);
    p->map = calloc(ZP__EV_SLOTS, sizeof *p->map);
    return p->map ? ZP_OK : ZP_E_NOMEM;
}

void zp__ev_plan_free(zp__ev_plan *p)
{
    free(p->map);
    p->map = NULL;
}

void zp__ev_plan_restart(zp__ev_plan *p)
{
    memset(p->map, 0, ZP__EV_SLOTS * sizeof *p->map);
    p->n_cand = 0;
    p->n_tab = 0;
}

static uint32_t slot_of(const zp_fr *v)
{
    uint64_t h = (v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ULL) ^ v->l[3]) * 0xff51afd7ed558ccdULL;
    return (uint32_t)(h >> 40) & (ZP__EV_SLOTS - 1);
}

uint8_t zp__ev_plan_code(zp__ev_plan *p, const zp_fr *v)
{
    if (memcmp(v, &p->one, sizeof *v) == 0)
        return ZP__EV_PLUS;
    if (memcmp(v, &p->m1, sizeof *v) == 0)
        return ZP__EV_MINUS;
    /* the map is at most half full, so a probe always ends at a free slot */
    uint32_t i = slot_of(v);
    while (p->map[i].used && memcmp(&p->map[i].v, v, sizeof *v) != 0)
        i = (i + 1) & (ZP__EV_SLOTS - 1);
    zp__ev_slot *s = &p->map[i];
    if (!s->used) {
        if (p->n_cand < ZP__EV_CAND) {
            s->used = true;
            s->v = *v;
            s->count = 1;
            s->code = -1;
            p->n_cand++;
        }
        return ZP__EV_ESC;
    }
    if (s->count < UINT32_MAX)
        s->count++;
    if (s->code < 0 && p->n_tab < ZP__EV_TAB) {
        p->tab[p->n_tab] = *v;
        s->code = (int32_t)(2 + p->n_tab++);
    }
    return s->code < 0 ? ZP__EV_ESC : (uint8_t)s->code;
}

static uint64_t al(uint64_t x) { return (x + 255) & ~(uint64_t)255; }

zp_err zp__ev_plan_scan(zp__ev_plan *p, const zp__csr *m)
{
    p->n_esc = 0;
    p->n_long = 0;
    for (uint64_t k = 0; k < m->nnz; k++)
        p->n_esc += zp__ev_plan_code(p, &m->val[k]) == ZP__EV_ESC;
    for (uint64_t i = 0; i < m->nrows; i++)
        p->n_long += m->row_ptr[i + 1] - m->row_ptr[i] > ZP__GPU_EVAL_SHORT;
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
    p->bytes = al(p->end); /* end >= 4: the arena's own rounding */
    return ZP_OK;
}

uint64_t zp__gpu_csr_bytes(const zp__csr *m)
{
    zp__ev_plan p;
    if (zp__ev_plan_init(&p)) {
        zp__ev_plan_free(&p);
        return UINT64_MAX;
    }
    zp__ev_plan_scan(&p, m);
    zp__ev_plan_free(&p);
    return p.bytes;
}
