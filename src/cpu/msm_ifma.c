/*
 * The batch-affine flush on eight lanes (msm_ifma.h), for G1 (Fp on the
 * lanes) and G2 (Fp2: two vectors a value, Karatsuba products; the code is
 * msm_ifma_impl.h, included once per group). Additions k are
 * taken eight at a time (group g = additions 8g .. 8g+7, lane = k mod 8):
 *   forward:  load x1, y1 (the bucket) and x2, y2 (the point) in R' form,
 *             den = x2 - x1, num = y2 - y1 (doublings: 2 y1, 3 x1^2),
 *             pre[g] = acc, acc *= den (eight interleaved prefix chains);
 *   middle:   the eight lane totals inverted with one scalar inversion
 *             (Montgomery's trick across the lanes);
 *   backward: 1/den = inv * pre[g], inv *= den; lam = num / den,
 *             x3 = lam^2 - x1 - x2, y3 = lam (x1 - x3) - y1, stored back.
 * Lanes past cnt are padding: x1 = 0, x2 = 1 (so den = 1), results to a
 * sink. In G1, twelve vector products a group against six scalar products
 * an addition for the scalar flush.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/msm_ifma.h"
#include "math/fp2_ifma.h"
#include "math/field.h"

size_t zp__msm_raw_max = (size_t)1 << 20;

enum { V_X1, V_Y1, V_X2, V_NUM, V_DEN, V_PRE, V_COUNT };

bool zp__flush8_alloc(zp__flush8 *s, size_t cap, unsigned width)
{
    s->groups = (cap + 7) / 8;
    s->v = aligned_alloc(64, s->groups * V_COUNT * width * sizeof *s->v);
    return s->v != NULL;
}

void zp__flush8_free(zp__flush8 *s)
{
    free(s->v);
    s->v = NULL;
}

/* out takes b's lanes where mask has a bit (width vectors each). */
static void blend(zp__fp52x8 *out, const zp__fp52x8 *b, unsigned mask, unsigned width)
{
    for (unsigned w = 0; w < width; w++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 8; k++)
                if (mask >> k & 1)
                    out[w].l[j][k] = b[w].l[j][k];
}

/* out lane k = in lane k - s where that is a lane (0..7), else fill's lane
 * k (width vectors each); s may be negative. out must not alias in. */
static void lane_shift(zp__fp52x8 *out, const zp__fp52x8 *in, int s, const zp__fp52x8 *fill,
                       unsigned width)
{
    for (unsigned w = 0; w < width; w++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 8; k++)
                out[w].l[j][k] = k - s >= 0 && k - s < 8 ? in[w].l[j][k - s] : fill[w].l[j][k];
}

/* ---- G1: Fp on the lanes */

#define IF_FLUSH g1_flush8
#define IF_AFF zp_g1_affine
#define IF_FE zp_fp
#define IF_V zp__fp52x8
#define IF_W 1
#define IF_LOAD zp__fp52x8_load
#define IF_STORE zp__fp52x8_store
#define IF_TO_R52 zp__fp_to_r52
#define IF_FROM_R52 zp__fp_from_r52
#ifdef ZP__IFMA_VEC /* the lane operations inlined into the flush */
#define IF_ATTR ZP__VEC_TARGET
#define IF_LOAD_RAW zp__vi_load_raw
#define IF_STORE_RAW zp__vi_store_raw
#define IF_ADD zp__vi_add
#define IF_SUB zp__vi_sub
#define IF_MUL zp__vi_mul
#define IF_SQR(o, a) zp__vi_mul(o, a, a)
#define IF_MUL_LZ zp__vi_mul_lazy
#define IF_SQR_LZ(o, a) zp__vi_mul_lazy(o, a, a)
#define IF_RED zp__vi_reduce
#else
#define IF_ATTR
#define IF_LOAD_RAW zp__fp52x8_load_raw
#define IF_STORE_RAW zp__fp52x8_store_raw
#define IF_ADD zp__fp52x8_add
#define IF_SUB zp__fp52x8_sub
#define IF_MUL zp__fp52x8_mul
#define IF_SQR(o, a) zp__fp52x8_mul(o, a, a)
#define IF_MUL_LZ zp__fp52x8_mul_lazy
#define IF_SQR_LZ(o, a) zp__fp52x8_mul_lazy(o, a, a)
#define IF_RED zp__fp52x8_reduce
#endif
#define IF_F(op) zp_fp_##op
#define IF_FINV zp__fp_inv_vartime
#include "msm_ifma_impl.h"
#define IF_S(name) name##_g1
#define IF_FOLD g1_fold8
#define IF_XYZZ zp_g1_xyzz
#define IF_G(op) zp_g1_##op
#define IF_ZMASK(v) zp__fp52x8_zero_mask(v)
#include "msm_fold_impl.h"
#undef IF_S
#undef IF_FOLD
#undef IF_XYZZ
#undef IF_G
#undef IF_ZMASK
#undef IF_FLUSH
#undef IF_ATTR
#undef IF_AFF
#undef IF_FE
#undef IF_V
#undef IF_W
#undef IF_LOAD
#undef IF_STORE
#undef IF_LOAD_RAW
#undef IF_STORE_RAW
#undef IF_TO_R52
#undef IF_FROM_R52
#undef IF_ADD
#undef IF_SUB
#undef IF_MUL
#undef IF_SQR
#undef IF_MUL_LZ
#undef IF_SQR_LZ
#undef IF_RED
#undef IF_F
#undef IF_FINV

/* ---- G2: Fp2 on the lanes (fp2_ifma.h) */

void zp__fp2_to_r52(zp_fp2 *out, const zp_fp2 *in)
{
    zp__fp_to_r52(&out->c0, &in->c0);
    zp__fp_to_r52(&out->c1, &in->c1);
}

void zp__fp2_from_r52(zp_fp2 *out, const zp_fp2 *in)
{
    zp__fp_from_r52(&out->c0, &in->c0);
    zp__fp_from_r52(&out->c1, &in->c1);
}

#define IF_FLUSH g2_flush8
#define IF_AFF zp_g2_affine
#define IF_FE zp_fp2
#define IF_V v2
#define IF_W 2
#define IF_LOAD v2_load
#define IF_STORE v2_store
#define IF_TO_R52 zp__fp2_to_r52
#define IF_FROM_R52 zp__fp2_from_r52
#ifdef ZP__IFMA_VEC
#define IF_ATTR ZP__VEC_TARGET
#define IF_LOAD_RAW w2_load_raw
#define IF_STORE_RAW w2_store_raw
#define IF_ADD w2_add
#define IF_SUB w2_sub
#define IF_MUL(o, a, b) w2_mul(o, a, b, false)
#define IF_SQR(o, a) w2_sqr(o, a, false)
#define IF_MUL_LZ(o, a, b) w2_mul(o, a, b, true)
#define IF_SQR_LZ(o, a) w2_sqr(o, a, true)
#define IF_RED w2_reduce
#else
#define IF_ATTR
#define IF_LOAD_RAW v2_load_raw
#define IF_STORE_RAW v2_store_raw
#define IF_ADD v2_add
#define IF_SUB v2_sub
#define IF_MUL v2_mul
#define IF_SQR v2_sqr
#define IF_MUL_LZ v2_mul_lazy
#define IF_SQR_LZ v2_sqr_lazy
#define IF_RED v2_reduce
#endif
#define IF_F(op) zp_fp2_##op
#define IF_FINV zp__fp2_inv_vartime
#include "msm_ifma_impl.h"
static unsigned v2_zero_mask(const v2 *a)
{
    return zp__fp52x8_zero_mask(&a->c0) & zp__fp52x8_zero_mask(&a->c1);
}
#define IF_S(name) name##_g2
#define IF_FOLD g2_fold8
#define IF_XYZZ zp_g2_xyzz
#define IF_G(op) zp_g2_##op
#define IF_ZMASK(v) v2_zero_mask(v)
#include "msm_fold_impl.h"

void zp__g1_flush8(zp__flush8 *s, zp_g1_affine *b, const uint32_t *eb, const zp_g1_affine *eq,
                   size_t cnt, uint32_t dbl_bit, bool raw)
{
    g1_flush8(s, b, eb, eq, cnt, dbl_bit, raw);
}

void zp__g2_flush8(zp__flush8 *s, zp_g2_affine *b, const uint32_t *eb, const zp_g2_affine *eq,
                   size_t cnt, uint32_t dbl_bit, bool raw)
{
    g2_flush8(s, b, eb, eq, cnt, dbl_bit, raw);
}

void zp__g1_fold8(zp_g1_xyzz *const out[8], const zp_g1_affine *const b[8],
                  const zp_g1_xyzz *const x[8], const uint8_t *const st[8], int n, size_t nb,
                  uint8_t full_bit, uint8_t spill_bit)
{
    g1_fold8(out, b, x, st, n, nb, full_bit, spill_bit);
}

void zp__g2_fold8(zp_g2_xyzz *const out[8], const zp_g2_affine *const b[8],
                  const zp_g2_xyzz *const x[8], const uint8_t *const st[8], int n, size_t nb,
                  uint8_t full_bit, uint8_t spill_bit)
{
    g2_fold8(out, b, x, st, n, nb, full_bit, spill_bit);
}

/* Eight points at a time: R form in, R' form out (one vector product per
 * eight coordinates), the rest one by one. in[i] may be NULL: infinity. */
#define R52_POINTS(NAME, AFF, FE, TO, LOADV, STOREV, V)                                      \
    void NAME(AFF *out, const AFF *const *in, size_t n)                                   \
    {                                                                                      \
        static const AFF inf;                                                              \
        size_t i = 0;                                                                      \
        if (zp__msm_ifma)                                                                  \
            for (; i + 8 <= n; i += 8) {                                                   \
                const FE *sx[8], *sy[8];                                                   \
                FE *dx[8], *dy[8];                                                         \
                for (int k = 0; k < 8; k++) {                                              \
                    const AFF *p = in[i + k] ? in[i + k] : &inf;                           \
                    sx[k] = &p->x;                                                         \
                    sy[k] = &p->y;                                                         \
                    dx[k] = &out[i + k].x;                                                 \
                    dy[k] = &out[i + k].y;                                                 \
                }                                                                          \
                V t;                                                                       \
                LOADV(&t, sx);                                                             \
                STOREV(dx, &t);                                                            \
                LOADV(&t, sy);                                                             \
                STOREV(dy, &t);                                                            \
            }                                                                              \
        for (; i < n; i++) {                                                               \
            const AFF *p = in[i] ? in[i] : &inf;                                           \
            TO(&out[i].x, &p->x);                                                          \
            TO(&out[i].y, &p->y);                                                          \
        }                                                                                  \
    }
R52_POINTS(zp__g1_to_r52, zp_g1_affine, zp_fp, zp__fp_to_r52, zp__fp52x8_load,
           zp__fp52x8_store_raw, zp__fp52x8)
R52_POINTS(zp__g2_to_r52, zp_g2_affine, zp_fp2, zp__fp2_to_r52, v2_load, v2_store_raw, v2)
