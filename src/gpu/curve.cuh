/*
 * Device point arithmetic for G1 (over Fp) and G2 (over Fp2), written once
 * as templates over the coordinate field. Both curves are y^2 = x^3 + b
 * (a = 0); b never enters the addition formulas.
 *
 * XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; ZZ = 0 is infinity),
 * formulas from the Explicit-Formulas Database, "xyzz" for short Weierstrass:
 * madd-2008-s (add an affine point), add-2008-s, dbl-2008-s-1, mdbl-2008-s-1.
 * The layouts match the host's zp_g1_xyzz / zp_g2_xyzz and affine types.
 */
#ifndef ZP_GPU_CURVE_CUH
#define ZP_GPU_CURVE_CUH

#include "gpu/field.cuh"

template <class F> struct aff_t { F x, y; };          /* all zero = infinity */
template <class F> struct xyzz_t { F x, y, zz, zzz; }; /* zz = 0 = infinity */

template <class F>
static __device__ __forceinline__ bool aff_is_inf(const aff_t<F> &p)
{
    return f_is_zero(p.x) && f_is_zero(p.y);
}

template <class F>
static __device__ __forceinline__ aff_t<F> aff_load(const aff_t<F> *p)
{
    const F *q = reinterpret_cast<const F *>(p);
    aff_t<F> r;
    r.x = f_load(q);
    r.y = f_load(q + 1);
    return r;
}

template <class F>
static __device__ __forceinline__ void xyzz_set_inf(xyzz_t<F> &p)
{
    f_set_zero(p.x);
    f_set_zero(p.y);
    f_set_zero(p.zz);
    f_set_zero(p.zzz);
}

template <class F>
static __device__ __forceinline__ bool xyzz_is_inf(const xyzz_t<F> &p)
{
    return f_is_zero(p.zz);
}

template <class F>
static __device__ __forceinline__ xyzz_t<F> xyzz_load(const xyzz_t<F> *p)
{
    const F *q = reinterpret_cast<const F *>(p);
    xyzz_t<F> r;
    r.x = f_load(q);
    r.y = f_load(q + 1);
    r.zz = f_load(q + 2);
    r.zzz = f_load(q + 3);
    return r;
}

template <class F>
static __device__ __forceinline__ void xyzz_store(xyzz_t<F> *p, const xyzz_t<F> &v)
{
    F *q = reinterpret_cast<F *>(p);
    f_store(q, v.x);
    f_store(q + 1, v.y);
    f_store(q + 2, v.zz);
    f_store(q + 3, v.zzz);
}

/* 2P of an affine point (mdbl-2008-s-1); P is not infinity. Out of line:
 * it is the rare case of an addition. */
template <class F>
static __device__ __noinline__ xyzz_t<F> xyzz_dbl_aff(const aff_t<F> p)
{
    xyzz_t<F> r;
    F u = f_dbl(p.y);
    F v = f_sqr(u);
    F w = f_mul(u, v);
    F s = f_mul(p.x, v);
    F x2 = f_sqr(p.x);
    F m = f_add(f_dbl(x2), x2);
    r.x = f_sub(f_sub(f_sqr(m), s), s);
    r.y = f_sub(f_mul(m, f_sub(s, r.x)), f_mul(w, p.y));
    r.zz = v;
    r.zzz = w;
    return r;
}

/* r = 2p (dbl-2008-s-1); infinity stays infinity (V = 0 then). r may be p. */
template <class F>
static __device__ __forceinline__ void xyzz_dbl(xyzz_t<F> &r, const xyzz_t<F> &p)
{
    F u = f_dbl(p.y);
    F v = f_sqr(u);
    F w = f_mul(u, v);
    F s = f_mul(p.x, v);
    F x2 = f_sqr(p.x);
    F m = f_add(f_dbl(x2), x2);
    F x3 = f_sub(f_sub(f_sqr(m), s), s);
    F y3 = f_sub(f_mul(m, f_sub(s, x3)), f_mul(w, p.y));
    r.zz = f_mul(v, p.zz);
    r.zzz = f_mul(w, p.zzz);
    r.x = x3;
    r.y = y3;
}

/*
 * p += q for the affine q = *qp (madd-2008-s), negated when neg; every case
 * handled (either infinity, q = p, q = -p). The coordinates of q are loaded
 * where they are used and again in the rare doubling case, so they need
 * not stay in registers through the ten products (the accumulation kernels
 * run short of registers; G2 spills).
 */
template <class F>
static __device__ __forceinline__ void xyzz_add_aff_at(xyzz_t<F> &p, const aff_t<F> *qp, bool neg)
{
    const F *qc = reinterpret_cast<const F *>(qp);
    if (xyzz_is_inf(p)) {
        aff_t<F> q = aff_load(qp);
        if (neg)
            q.y = f_neg(q.y);
        if (aff_is_inf(q))
            return;
        p.x = q.x;
        p.y = q.y;
        f_set_one(p.zz);
        f_set_one(p.zzz);
        return;
    }
    F qx = f_load(qc);
    F qy = f_load(qc + 1);
    if (f_is_zero(qx) && f_is_zero(qy))
        return; /* q is infinity */
    if (neg)
        qy = f_neg(qy);
    F u2 = f_mul(qx, p.zz);
    F s2 = f_mul(qy, p.zzz);
    F P = f_sub(u2, p.x);
    F R = f_sub(s2, p.y);
    if (f_is_zero(P)) {
        if (f_is_zero(R)) {
            aff_t<F> q = aff_load(qp);
            if (neg)
                q.y = f_neg(q.y);
            p = xyzz_dbl_aff(q);
        } else {
            xyzz_set_inf(p);
        }
        return;
    }
    F pp = f_sqr(P);
    F ppp = f_mul(P, pp);
    F Q = f_mul(p.x, pp);
    F x3 = f_sub(f_sub(f_sqr(R), ppp), f_dbl(Q));
    p.y = f_mulsub(R, f_sub(Q, x3), p.y, ppp);
    p.x = x3;
    p.zz = f_mul(p.zz, pp);
    p.zzz = f_mul(p.zzz, ppp);
}

template <class F>
static __device__ __noinline__ xyzz_t<F> xyzz_dbl_slow(const xyzz_t<F> p)
{
    xyzz_t<F> r;
    xyzz_dbl(r, p);
    return r;
}

/* p += q, both XYZZ (add-2008-s), every case handled. */
template <class F>
static __device__ __forceinline__ void xyzz_add(xyzz_t<F> &p, const xyzz_t<F> &q)
{
    if (xyzz_is_inf(q))
        return;
    if (xyzz_is_inf(p)) {
        p = q;
        return;
    }
    F u1 = f_mul(p.x, q.zz);
    F u2 = f_mul(q.x, p.zz);
    F s1 = f_mul(p.y, q.zzz);
    F s2 = f_mul(q.y, p.zzz);
    F P = f_sub(u2, u1);
    F R = f_sub(s2, s1);
    if (f_is_zero(P)) {
        if (f_is_zero(R))
            p = xyzz_dbl_slow(p);
        else
            xyzz_set_inf(p);
        return;
    }
    F pp = f_sqr(P);
    F ppp = f_mul(P, pp);
    F Q = f_mul(u1, pp);
    F x3 = f_sub(f_sub(f_sqr(R), ppp), f_dbl(Q));
    p.y = f_mulsub(R, f_sub(Q, x3), s1, ppp);
    p.x = x3;
    p.zz = f_mul(f_mul(p.zz, q.zz), pp);
    p.zzz = f_mul(f_mul(p.zzz, q.zzz), ppp);
}

/* Out of line, for the kernels where code size (compile time, instruction
 * cache) matters more than the cost of a call. */
template <class F>
static __device__ __noinline__ void xyzz_add_ool(xyzz_t<F> &p, const xyzz_t<F> &q)
{
    xyzz_add(p, q);
}

template <class F>
static __device__ __noinline__ void xyzz_dbl_ool(xyzz_t<F> &p)
{
    xyzz_dbl(p, p);
}

/* r = k * p for a small k (variable time, double and add from the top). */
template <class F>
static __device__ void xyzz_mul_u32(xyzz_t<F> &r, const xyzz_t<F> &p, uint32_t k)
{
    xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (int bit = 31 - __clz(k | 1); k && bit >= 0; bit--) {
        xyzz_dbl_ool(acc);
        if ((k >> bit) & 1)
            xyzz_add_ool(acc, p);
    }
    r = acc;
}

#endif
