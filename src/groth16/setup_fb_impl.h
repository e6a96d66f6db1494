/*
 * Fixed-base multiplication (setup_impl.h), written once for G1 and G2.
 * setup_fb.c defines, then includes this file:
 *   FB(name)    zp__fb_g1_##name
 *   FB_T        the table type     FB_AFF, FB_JAC   point types
 *   FB_P(name)  a point function: zp_g1_##name
 */
#include <stdlib.h>
#include <string.h>

/* Scratch points per task: G2 Jacobian points are 288 bytes, so 128 of them
 * keep a task's stack use under 40 KiB. */
#define FB_CHUNK 128

static unsigned FB(digit)(const zp_fr *k, unsigned w, unsigned i)
{
    unsigned bit = i * w, limb = bit / 64, shift = bit % 64;
    uint64_t v = k->l[limb] >> shift;
    if (shift + w > 64 && limb + 1 < ZP_FR_LIMBS)
        v |= k->l[limb + 1] << (64 - shift);
    return (unsigned)(v & (((uint64_t)1 << w) - 1));
}

zp_err FB(init)(FB_T *fb, const FB_AFF *base, unsigned w)
{
    memset(fb, 0, sizeof *fb);
    if (w < 1 || w > 16)
        return ZP_E_INVALID_ARG;
    size_t row = (size_t)1 << w;
    unsigned nwin = (255 + w - 1) / w;
    FB_AFF *t = malloc((size_t)nwin * row * sizeof *t);
    FB_JAC *tmp = malloc(row * sizeof *tmp);
    if (!t || !tmp) {
        free(t);
        free(tmp);
        return ZP_E_NOMEM;
    }
    FB_JAC b;
    FB_P(jac_from_affine)(&b, base);
    for (unsigned i = 0; i < nwin; i++) {
        /* tmp[d] = d·b with b = 2^(w·i)·base. */
        FB_P(jac_inf)(&tmp[0]);
        for (size_t d = 1; d < row; d++)
            FB_P(jac_add)(&tmp[d], &tmp[d - 1], &b);
        FB_P(batch_to_affine)(t + (size_t)i * row, tmp, row);
        FB_P(jac_add)(&b, &tmp[row - 1], &b);
    }
    free(tmp);
    fb->w = w;
    fb->nwin = nwin;
    fb->t = t;
    return ZP_OK;
}

void FB(free)(FB_T *fb)
{
    free(fb->t);
    memset(fb, 0, sizeof *fb);
}

typedef struct FB(ctx) {
    FB_AFF *out;
    const FB_T *fb;
    const zp_fr *k;
} FB(ctx);

static void FB(task)(void *p, size_t begin, size_t end)
{
    const FB(ctx) *x = p;
    const FB_T *fb = x->fb;
    FB_JAC acc[FB_CHUNK];
    for (size_t at = begin; at < end; at += FB_CHUNK) {
        size_t m = end - at < FB_CHUNK ? end - at : FB_CHUNK;
        for (size_t j = 0; j < m; j++) {
            zp_fr k;
            zp_fr_from_mont(&k, &x->k[at + j]);
            FB_P(jac_inf)(&acc[j]);
            for (unsigned i = 0; i < fb->nwin; i++) {
                unsigned d = FB(digit)(&k, fb->w, i);
                if (d)
                    FB_P(jac_add_affine)(&acc[j], &acc[j], &fb->t[((size_t)i << fb->w) + d]);
            }
        }
        FB_P(batch_to_affine)(x->out + at, acc, m);
    }
}

void FB(mul)(FB_AFF *out, const FB_T *fb, const zp_fr *k, size_t n, int threads)
{
    FB(ctx) x = {out, fb, k};
    zp__parallel_for(n, 4 * FB_CHUNK, FB(task), &x, threads);
}

#undef FB_CHUNK
