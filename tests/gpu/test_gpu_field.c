/*
 * Device field arithmetic (32-bit limbs, PTX carry chains) against the
 * host's 64-bit field code, on random and edge operands: the same bytes
 * must come out (products, sums, squares, inverses). Also the H quotient
 * step (a*b - c)*s.
 */
#include "gpu_test.h"

#define N 4096

static void rand_fp_mont(zp_fp *out)
{
    zp_fp plain;
    for (int i = 0; i < 6; i++)
        plain.l[i] = check_rand64();
    plain.l[5] &= 0x0fffffffffffffffULL;
    zp_fp_to_mont(out, &plain);
}

/* Edge values, given as Montgomery limbs directly: 0, 1 (the raw limb),
 * R mod p (one), p - 1, p - 2, limb boundaries. */
static void edge_fp(zp_fp *out, int k)
{
    memset(out, 0, sizeof *out);
    switch (k % 8) {
    case 0: break;
    case 1: out->l[0] = 1; break;
    case 2: zp_fp_one(out); break;
    case 3: *out = ZP_FP_MODULUS; out->l[0] -= 1; break;
    case 4: *out = ZP_FP_MODULUS; out->l[0] -= 2; break;
    case 5: out->l[0] = 0xffffffffULL; break;
    case 6: for (int i = 0; i < 5; i++) out->l[i] = ~0ULL; break;
    default: out->l[3] = 1ULL << 32; break;
    }
}

static void edge_fr(zp_fr *out, int k)
{
    memset(out, 0, sizeof *out);
    switch (k % 7) {
    case 0: break;
    case 1: out->l[0] = 1; break;
    case 2: zp_fr_one(out); break;
    case 3: *out = ZP_FR_MODULUS; out->l[0] -= 1; break;
    case 4: *out = ZP_FR_MODULUS; out->l[0] -= 2; break;
    case 5: out->l[0] = 0xffffffffULL; break;
    default: for (int i = 0; i < 3; i++) out->l[i] = ~0ULL; break;
    }
}

/* Runs op on the device over (a, b) and returns the output in out. */
static void run_op(zp__gpu_field_op op, void *out, const void *a, const void *b, size_t elem)
{
    zp__gpu_buf da = gpu_test_alloc(N * elem), db = gpu_test_alloc(N * elem),
                dout = gpu_test_alloc(N * elem);
    GPU_OK(zp__gpu_upload(T_s, da.ptr, a, N * elem));
    GPU_OK(zp__gpu_upload(T_s, db.ptr, b, N * elem));
    GPU_OK(zp__gpu_field_op_run(T_s, op, dout.ptr, da.ptr, db.ptr, N));
    GPU_OK(zp__gpu_download(T_s, out, dout.ptr, N * elem));
    GPU_OK(zp__gpu_stream_sync(T_s));
    zp__gpu_free(T_gpu, &da);
    zp__gpu_free(T_gpu, &db);
    zp__gpu_free(T_gpu, &dout);
}

static void test_fp(void)
{
    zp_fp *a = xmalloc(N * sizeof *a), *b = xmalloc(N * sizeof *b), *o = xmalloc(N * sizeof *o);
    for (int i = 0; i < N; i++) {
        if (i < 64) {
            edge_fp(&a[i], i);
            edge_fp(&b[i], i / 8);
        } else {
            rand_fp_mont(&a[i]);
            rand_fp_mont(&b[i]);
        }
    }
    static const zp__gpu_field_op ops[5] = {ZP_GPU_FP_MUL, ZP_GPU_FP_ADD, ZP_GPU_FP_SUB,
                                            ZP_GPU_FP_SQR, ZP_GPU_FP_INV};
    for (int k = 0; k < 5; k++) {
        run_op(ops[k], o, a, b, sizeof *a);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            zp_fp want;
            if (k == 0) zp_fp_mul(&want, &a[i], &b[i]);
            if (k == 1) zp_fp_add(&want, &a[i], &b[i]);
            if (k == 2) zp_fp_sub(&want, &a[i], &b[i]);
            if (k == 3) zp_fp_sqr(&want, &a[i]);
            if (k == 4) zp_fp_inv(&want, &a[i]);
            bad += !zp_fp_eq(&want, &o[i]);
        }
        CHECK_EQ_INT(bad, 0);
    }
    free(a);
    free(b);
    free(o);
}

static void test_fr(void)
{
    zp_fr *a = xmalloc(N * sizeof *a), *b = xmalloc(N * sizeof *b), *o = xmalloc(N * sizeof *o);
    for (int i = 0; i < N; i++) {
        if (i < 49) {
            edge_fr(&a[i], i);
            edge_fr(&b[i], i / 7);
        } else {
            rand_fr_mont(&a[i]);
            rand_fr_mont(&b[i]);
        }
    }
    static const zp__gpu_field_op ops[3] = {ZP_GPU_FR_MUL, ZP_GPU_FR_ADD, ZP_GPU_FR_SUB};
    for (int k = 0; k < 3; k++) {
        run_op(ops[k], o, a, b, sizeof *a);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            zp_fr want;
            if (k == 0) zp_fr_mul(&want, &a[i], &b[i]);
            if (k == 1) zp_fr_add(&want, &a[i], &b[i]);
            if (k == 2) zp_fr_sub(&want, &a[i], &b[i]);
            bad += !zp_fr_eq(&want, &o[i]);
        }
        CHECK_EQ_INT(bad, 0);
    }
    free(a);
    free(b);
    free(o);
}

static void test_fp2(void)
{
    zp_fp2 *a = xmalloc(N * sizeof *a), *b = xmalloc(N * sizeof *b), *o = xmalloc(N * sizeof *o);
    for (int i = 0; i < N; i++) {
        if (i < 64) {
            edge_fp(&a[i].c0, i);
            edge_fp(&a[i].c1, i / 8);
            edge_fp(&b[i].c0, i + 3);
            edge_fp(&b[i].c1, i / 8 + 5);
        } else {
            rand_fp_mont(&a[i].c0);
            rand_fp_mont(&a[i].c1);
            rand_fp_mont(&b[i].c0);
            rand_fp_mont(&b[i].c1);
        }
    }
    run_op(ZP_GPU_FP2_MUL, o, a, b, sizeof *a);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        zp_fp2 want;
        zp_fp2_mul(&want, &a[i], &b[i]);
        bad += !zp_fp2_eq(&want, &o[i]);
    }
    CHECK_EQ_INT(bad, 0);
    run_op(ZP_GPU_FP2_SQR, o, a, b, sizeof *a);
    bad = 0;
    for (int i = 0; i < N; i++) {
        zp_fp2 want;
        zp_fp2_sqr(&want, &a[i]);
        bad += !zp_fp2_eq(&want, &o[i]);
    }
    CHECK_EQ_INT(bad, 0);
    free(a);
    free(b);
    free(o);
}

static void test_mul_sub_scale(void)
{
    const size_t n = 1000;
    zp_fr *h = xmalloc(4 * n * sizeof *h), *o = xmalloc(n * sizeof *o), s;
    for (size_t i = 0; i < 3 * n; i++)
        rand_fr_mont(&h[i]);
    rand_fr_mont(&s);
    zp__gpu_buf d = gpu_test_alloc(3 * n * sizeof *h);
    zp_fr *da = d.ptr;
    GPU_OK(zp__gpu_upload(T_s, da, h, 3 * n * sizeof *h));
    /* out aliases a */
    GPU_OK(zp__gpu_fr_mul_sub_scale(T_s, da, da, da + n, da + 2 * n, &s, n));
    GPU_OK(zp__gpu_download(T_s, o, da, n * sizeof *o));
    GPU_OK(zp__gpu_stream_sync(T_s));
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        zp_fr t;
        zp_fr_mul(&t, &h[i], &h[n + i]);
        zp_fr_sub(&t, &t, &h[2 * n + i]);
        zp_fr_mul(&t, &t, &s);
        bad += !zp_fr_eq(&t, &o[i]);
    }
    CHECK_EQ_INT(bad, 0);
    zp__gpu_free(T_gpu, &d);
    free(h);
    free(o);
}

/* Error paths of the boundary: an allocation that cannot fit. */
static void test_errors(void)
{
    zp__gpu_buf b;
    CHECK_EQ_INT(zp__gpu_alloc(T_gpu, &b, (uint64_t)1 << 60), ZP_E_GPU_OOM);
    CHECK(b.ptr == NULL);
    CHECK(zp__gpu_healthy(T_gpu));
}

int main(int argc, char **argv)
{
    gpu_test_open(argc, argv, 1);
    RUN(test_fp);
    RUN(test_fr);
    RUN(test_fp2);
    RUN(test_mul_sub_scale);
    RUN(test_errors);
    gpu_test_close();
    return FINISH();
}
