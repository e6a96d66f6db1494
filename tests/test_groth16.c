/*
 * The Groth16 prover and verifier: setup -> prove -> verify in both H
 * conventions on synthetic circuits; fixed blinding gives the same bytes
 * across runs and thread counts; tampered proofs, public inputs and keys
 * are refused; bad witnesses are refused before or by verification; the
 * snarkjs files in tests/data prove and verify. The stage functions are
 * compared with plain references (dense matrix products, Horner
 * evaluation, the reference MSM).
 */
#include "test_g16_util.h"

#include "base/codec.h"
#include "cpu/cpu.h"
#include "io/io.h"

static const char *SPECS[] = {"porep:8", "dense:5", "chain:5"};
static const zp_h_conv CONVS[] = {ZP_H_COSET, ZP_H_TAU};

static zp_err prove_fixed(zp__proof *p, const g16_fix *f, const zp_fr *w, uint64_t seed,
                          int threads)
{
    zp_fr r, s;
    fr_u64(&r, 1000 + seed);
    fr_u64(&s, 2000 + seed * seed);
    zp__prove_opts o;
    zp__prove_opts_default(&o);
    o.threads = threads;
    o.r = &r;
    o.s = &s;
    return zp__prove(p, &f->pk, w, f->pk.n_vars, &o, NULL, NULL);
}

static void test_prove_verify_both_conventions(void)
{
    for (size_t i = 0; i < sizeof SPECS / sizeof *SPECS; i++) {
        for (int c = 0; c < 2; c++) {
            g16_fix f;
            CHECK(fix_make(&f, SPECS[i], CONVS[c], 7 + i) == 0);
            CHECK(zp__pk_shape_ok(&f.pk));
            zp__proof p;
            zp__prove_opts o;
            zp__prove_opts_default(&o);
            o.cs = &f.cs;
            zp__prove_times t;
            zp__ioerr why = {""};
            zp_err e = zp__prove(&p, &f.pk, f.w, f.cs.n_vars, &o, &t, &why);
            if (e)
                fprintf(stderr, "%s conv %d: %s\n", SPECS[i], CONVS[c], why.msg);
            CHECK_EQ_INT(e, ZP_OK);
            CHECK(t.verify > 0 && t.h > 0);
            CHECK_EQ_INT(zp__verify(&f.pk.vk, f.w + 1, f.pk.n_public, &p), ZP_OK);
            /* Without the circuit, verification alone vouches. */
            CHECK_EQ_INT(zp__prove(&p, &f.pk, f.w, f.cs.n_vars, NULL, NULL, NULL), ZP_OK);
            CHECK_EQ_INT(zp__verify(&f.pk.vk, f.w + 1, f.pk.n_public, &p), ZP_OK);
            fix_free(&f);
        }
    }
}

static void test_fixed_rs_bit_exact(void)
{
    for (int c = 0; c < 2; c++) {
        g16_fix f;
        CHECK(fix_make(&f, c ? "porep:8" : "chain:6", CONVS[c], 3) == 0);
        zp__proof p1, p2, p3;
        CHECK_EQ_INT(prove_fixed(&p1, &f, f.w, 1, 1), ZP_OK);
        CHECK_EQ_INT(prove_fixed(&p2, &f, f.w, 1, 1), ZP_OK);
        CHECK_EQ_INT(prove_fixed(&p3, &f, f.w, 1, 2), ZP_OK);
        uint8_t b1[ZP__PROOF_BYTES], b2[ZP__PROOF_BYTES], b3[ZP__PROOF_BYTES];
        CHECK_EQ_INT(zp__proof_encode(b1, &p1), ZP_OK);
        CHECK_EQ_INT(zp__proof_encode(b2, &p2), ZP_OK);
        CHECK_EQ_INT(zp__proof_encode(b3, &p3), ZP_OK);
        CHECK_MEM(b1, b2, sizeof b1);
        CHECK_MEM(b1, b3, sizeof b1);
        /* Other r, s: another proof, valid too. */
        zp__proof q;
        uint8_t bq[ZP__PROOF_BYTES];
        CHECK_EQ_INT(prove_fixed(&q, &f, f.w, 2, 2), ZP_OK);
        CHECK_EQ_INT(zp__proof_encode(bq, &q), ZP_OK);
        CHECK(memcmp(b1, bq, 48) != 0 && memcmp(b1 + 48, bq + 48, 96) != 0 &&
              memcmp(b1 + 144, bq + 144, 48) != 0);
        CHECK_EQ_INT(zp__verify(&f.pk.vk, f.w + 1, f.pk.n_public, &q), ZP_OK);
        /* Fresh random r, s: also different each time. */
        zp__proof x, y;
        CHECK_EQ_INT(zp__prove(&x, &f.pk, f.w, f.pk.n_vars, NULL, NULL, NULL), ZP_OK);
        CHECK_EQ_INT(zp__prove(&y, &f.pk, f.w, f.pk.n_vars, NULL, NULL, NULL), ZP_OK);
        CHECK(!zp_g1_affine_eq(&x.a, &y.a) && !zp_g2_affine_eq(&x.b, &y.b));
        fix_free(&f);
    }
}

static void test_tampered_refused(void)
{
    for (int c = 0; c < 2; c++) {
        g16_fix f, g;
        CHECK(fix_make(&f, "dense:5", CONVS[c], 11) == 0);
        CHECK(fix_make(&g, "dense:5", CONVS[c], 11) == 0); /* same circuit, other key */
        zp__proof p, t;
        CHECK_EQ_INT(prove_fixed(&p, &f, f.w, 5, 0), ZP_OK);
        const zp__vk *vk = &f.pk.vk;
        size_t np = f.pk.n_public;
        CHECK_EQ_INT(zp__verify(vk, f.w + 1, np, &p), ZP_OK);

        t = p;
        g1_add_gen(&t.a);
        CHECK_EQ_INT(zp__verify(vk, f.w + 1, np, &t), ZP_E_VERIFY_FAILED);
        t = p;
        zp_g2_jac j2;
        zp_g2_affine g2;
        zp_g2_generator(&g2);
        zp_g2_jac_from_affine(&j2, &t.b);
        zp_g2_jac_add_affine(&j2, &j2, &g2);
        zp_g2_jac_to_affine(&t.b, &j2);
        CHECK_EQ_INT(zp__verify(vk, f.w + 1, np, &t), ZP_E_VERIFY_FAILED);
        t = p;
        g1_add_gen(&t.c);
        CHECK_EQ_INT(zp__verify(vk, f.w + 1, np, &t), ZP_E_VERIFY_FAILED);
        t = p;
        zp_g1_affine_neg(&t.a, &t.a);
        CHECK_EQ_INT(zp__verify(vk, f.w + 1, np, &t), ZP_E_VERIFY_FAILED);

        /* Each public input off by one. */
        zp_fr *pub = malloc(np * sizeof *pub), one;
        zp_fr_one(&one);
        for (size_t i = 0; i < np; i++) {
            memcpy(pub, f.w + 1, np * sizeof *pub);
            zp_fr_add(&pub[i], &pub[i], &one);
            CHECK_EQ_INT(zp__verify(vk, pub, np, &p), ZP_E_VERIFY_FAILED);
        }
        free(pub);
        CHECK_EQ_INT(zp__verify(vk, f.w + 1, np - 1, &p), ZP_E_BAD_LENGTH);
        CHECK_EQ_INT(zp__verify(vk, f.w + 1, np + 1, &p), ZP_E_BAD_LENGTH);
        /* The other key's vk. */
        CHECK_EQ_INT(zp__verify(&g.pk.vk, f.w + 1, np, &p), ZP_E_VERIFY_FAILED);
        /* Points outside the curve are refused before any pairing. */
        t = p;
        zp_fp one_fp;
        zp_fp_one(&one_fp);
        zp_fp_add(&t.c.y, &t.c.y, &one_fp);
        CHECK_EQ_INT(zp__verify(vk, f.w + 1, np, &t), ZP_E_NOT_ON_CURVE);
        fix_free(&f);
        fix_free(&g);
    }
}

static void test_bad_witness(void)
{
    for (int c = 0; c < 2; c++) {
        g16_fix f;
        CHECK(fix_make(&f, c ? "chain:5" : "porep:8", CONVS[c], 1) == 0);
        uint32_t nv = f.pk.n_vars;
        zp_fr *w = malloc(((size_t)nv + 1) * sizeof *w), one;
        zp_fr_one(&one);
        zp__prove_opts o;
        zp__prove_opts_default(&o);
        zp__proof p, sentinel;
        memset(&sentinel, 0xab, sizeof sentinel);
        /* A public input and the last aux variable, each bumped by one. */
        uint32_t idx[2] = {1, nv - 1};
        for (int k = 0; k < 2; k++) {
            memcpy(w, f.w, (size_t)nv * sizeof *w);
            zp_fr_add(&w[idx[k]], &w[idx[k]], &one);
            uint64_t bad;
            CHECK(!zp__r1cs_is_satisfied(&f.cs, w, &bad)); /* the test means something */
            zp__ioerr why = {""};
            p = sentinel;
            o.cs = NULL;
            CHECK_EQ_INT(zp__prove(&p, &f.pk, w, nv, &o, NULL, &why), ZP_E_UNSATISFIED);
            CHECK(strstr(why.msg, "does not satisfy") != NULL);
            CHECK_MEM(&p, &sentinel, sizeof p);
            o.cs = &f.cs;
            char want[64];
            snprintf(want, sizeof want, "constraint %llu ", (unsigned long long)bad);
            CHECK_EQ_INT(zp__prove(&p, &f.pk, w, nv, &o, NULL, &why), ZP_E_UNSATISFIED);
            CHECK(strstr(why.msg, want) != NULL);
            CHECK_MEM(&p, &sentinel, sizeof p);
        }
        /* Wrong length, and w[0] != 1. */
        memcpy(w, f.w, (size_t)nv * sizeof *w);
        CHECK_EQ_INT(zp__prove(&p, &f.pk, w, nv - 1, NULL, NULL, NULL), ZP_E_WITNESS);
        CHECK_EQ_INT(zp__prove(&p, &f.pk, w, (uint64_t)nv + 1, NULL, NULL, NULL), ZP_E_WITNESS);
        zp_fr_add(&w[0], &w[0], &one);
        CHECK_EQ_INT(zp__prove(&p, &f.pk, w, nv, NULL, NULL, NULL), ZP_E_WITNESS);
        CHECK_MEM(&p, &sentinel, sizeof p);
        /* Only one of r, s fixed. */
        zp_fr r;
        fr_u64(&r, 3);
        o.cs = NULL;
        o.r = &r;
        CHECK_EQ_INT(zp__prove(&p, &f.pk, f.w, nv, &o, NULL, NULL), ZP_E_INVALID_ARG);
        /* The GPU slot's checks (the key's counts left to its upload):
         * the same errors. */
        zp__ioerr why = {""};
        CHECK_EQ_INT(zp__g16_check_witness(&f.pk, f.w, nv, &o, &why), ZP_E_INVALID_ARG);
        o.r = NULL;
        CHECK_EQ_INT(zp__g16_check_witness(&f.pk, f.w, nv, &o, &why), ZP_OK);
        CHECK_EQ_INT(zp__g16_check_witness(&f.pk, f.w, nv - 1, &o, &why), ZP_E_WITNESS);
        CHECK_EQ_INT(zp__g16_check_witness(&f.pk, w, nv, &o, &why), ZP_E_WITNESS);
        o.cs = &f.cs;
        CHECK_EQ_INT(zp__g16_check_witness(&f.pk, f.w, nv, &o, &why), ZP_OK);
        memcpy(w, f.w, (size_t)nv * sizeof *w);
        zp_fr_add(&w[nv - 1], &w[nv - 1], &one);
        CHECK_EQ_INT(zp__g16_check_witness(&f.pk, w, nv, &o, &why), ZP_E_UNSATISFIED);
        free(w);
        fix_free(&f);
    }
}

/* ---------------------------------------------------- the snarkjs files */

static void test_snarkjs_data(void)
{
    zp__ioerr why = {""};
    zp__pk pk;
    zp__vk vk;
    zp__proof sp, p;
    zp__r1cs cs;
    zp_fr *w = NULL, *pub = NULL;
    uint64_t nw = 0;
    size_t np = 0;
    CHECK_EQ_INT(zp__zkey_load(&pk, "data/mul3.zkey", &why), ZP_OK);
    CHECK_EQ_INT(zp__vk_json_load(&vk, "data/vk.json", &why), ZP_OK);
    CHECK_EQ_INT(zp__proof_json_load(&sp, "data/proof.json", &why), ZP_OK);
    CHECK_EQ_INT(zp__public_json_load(&pub, &np, "data/public.json", &why), ZP_OK);
    CHECK_EQ_INT(zp__wtns_load(&w, &nw, "data/mul3.wtns", 0, &why), ZP_OK);
    CHECK_EQ_INT(zp__r1cs_load(&cs, "data/mul3.r1cs", &why), ZP_OK);
    if (!w || !pub || np != pk.n_public || nw != pk.n_vars) {
        CHECK(0);
        return;
    }
    /* snarkjs' own proof. */
    CHECK_EQ_INT(zp__verify(&vk, pub, np, &sp), ZP_OK);
    CHECK_EQ_INT(zp__verify(&pk.vk, pub, np, &sp), ZP_OK);
    for (size_t i = 0; i < np; i++)
        CHECK(zp_fr_eq(&pub[i], &w[1 + i]));
    /* zkpipe's, with and without the r1cs. */
    zp__prove_opts o;
    zp__prove_opts_default(&o);
    CHECK_EQ_INT(zp__prove(&p, &pk, w, nw, &o, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__verify(&vk, pub, np, &p), ZP_OK);
    o.cs = &cs;
    CHECK_EQ_INT(zp__prove(&p, &pk, w, nw, &o, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__verify(&vk, pub, np, &p), ZP_OK);
    /* A bad witness for a .zkey: only verification can tell. */
    zp_fr one;
    zp_fr_one(&one);
    zp_fr_add(&w[nw - 1], &w[nw - 1], &one);
    o.cs = NULL;
    CHECK_EQ_INT(zp__prove(&p, &pk, w, nw, &o, NULL, &why), ZP_E_UNSATISFIED);
    free(w);
    free(pub);
    zp__r1cs_free(&cs);
    zp__vk_free(&vk);
    zp__pk_free(&pk);
}

/* ---------------------------------------------------- stages vs references */

static void test_stage_eval_ref(void)
{
    g16_fix f;
    CHECK(fix_make(&f, "porep:8", ZP_H_COSET, 2) == 0);
    size_t n = (size_t)f.pk.domain_size;
    zp_fr *a = calloc(3 * n, sizeof *a), *b = a + n, *c = a + 2 * n;
    zp_fr *ra = calloc(2 * n, sizeof *ra), *rb = ra + n;
    zp_fr *w = malloc(f.pk.n_vars * sizeof *w);
    for (uint32_t i = 0; i < f.pk.n_vars; i++)
        rand_fr(&w[i]); /* any vector: eval does not need satisfaction */
    zp__g16_eval(a, b, c, &f.pk, w, 2);
    zp__csr_mul_vec(ra, &f.pk.ma, w);
    zp__csr_mul_vec(rb, &f.pk.mb, w);
    for (size_t i = 0; i < n; i++) {
        zp_fr t;
        zp_fr_mul(&t, &ra[i], &rb[i]);
        CHECK(zp_fr_eq(&a[i], &ra[i]) && zp_fr_eq(&b[i], &rb[i]) && zp_fr_eq(&c[i], &t));
    }
    /* The extra input rows evaluate to the inputs themselves. */
    for (uint32_t s = 0; s <= f.pk.n_public; s++)
        CHECK(zp_fr_eq(&a[f.cs.n_constraints + s], &w[s]));
    free(a);
    free(ra);
    free(w);
    fix_free(&f);
}

/* Coefficients of the polynomial with values v on <omega_n> (quadratic). */
static void interpolate(zp_fr *coef, const zp_fr *v, unsigned log2n, zp_roots roots)
{
    CHECK_EQ_INT(zp__ntt_ref(coef, v, log2n, true, roots), ZP_OK);
}

static void test_stage_h_ref(void)
{
    for (int c = 0; c < 2; c++) {
        for (unsigned log2n = 1; log2n <= 6; log2n += 5) {
            size_t n = (size_t)1 << log2n;
            zp__pk pk;
            memset(&pk, 0, sizeof pk);
            pk.h_conv = CONVS[c];
            pk.roots = c ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
            pk.domain_size = n;
            zp_fr *v = malloc(6 * n * sizeof *v), *a = v, *b = v + n, *cc = v + 2 * n;
            zp_fr *ca = v + 3 * n, *cb = v + 4 * n, *cc2 = v + 5 * n;
            for (size_t i = 0; i < n; i++) {
                rand_fr(&a[i]);
                rand_fr(&b[i]);
                zp_fr_mul(&cc[i], &a[i], &b[i]);
            }
            interpolate(ca, a, log2n, pk.roots);
            interpolate(cb, b, log2n, pk.roots);
            interpolate(cc2, cc, log2n, pk.roots);
            zp_fr *h = malloc(n * sizeof *h);
            CHECK_EQ_INT(zp__g16_h(h, a, b, cc, &pk, 2), ZP_OK);
            zp_fr x, pa, pb, pc, p;
            if (pk.h_conv == ZP_H_COSET) {
                /* h_j = p(ω_2n^(2j+1)) with p = A·B − C. */
                zp_fr w2n, wn;
                zp_fr_root_of_unity(&w2n, log2n + 1, pk.roots);
                zp_fr_sqr(&wn, &w2n);
                x = w2n;
                for (size_t j = 0; j < n; j++) {
                    horner(&pa, ca, n, &x);
                    horner(&pb, cb, n, &x);
                    horner(&pc, cc2, n, &x);
                    zp_fr_mul(&p, &pa, &pb);
                    zp_fr_sub(&p, &p, &pc);
                    CHECK(zp_fr_eq(&h[j], &p));
                    zp_fr_mul(&x, &x, &wn);
                }
            } else {
                /* h(z)·(zⁿ − 1) = A(z)B(z) − C(z) at random z. */
                for (int k = 0; k < 3; k++) {
                    zp_fr z, hz, zn, one;
                    rand_fr(&z);
                    zp_fr_one(&one);
                    horner(&hz, h, n - 1, &z);
                    fr_pow_u64(&zn, &z, n);
                    zp_fr_sub(&zn, &zn, &one);
                    zp_fr_mul(&hz, &hz, &zn);
                    horner(&pa, ca, n, &z);
                    horner(&pb, cb, n, &z);
                    horner(&pc, cc2, n, &z);
                    zp_fr_mul(&p, &pa, &pb);
                    zp_fr_sub(&p, &p, &pc);
                    CHECK(zp_fr_eq(&hz, &p));
                }
            }
            free(h);
            free(v);
        }
    }
}

static void test_stage_msm_ref(void)
{
    for (int c = 0; c < 2; c++) {
        g16_fix f;
        CHECK(fix_make(&f, "porep:8", CONVS[c], 4) == 0);
        const zp__pk *pk = &f.pk;
        size_t n = (size_t)pk->domain_size;
        zp_fr *h = malloc(n * sizeof *h);
        for (size_t i = 0; i < n; i++)
            rand_fr(&h[i]);
        zp__g16_sums s;
        zp__prove_times t;
        CHECK_EQ_INT(zp__g16_msm(&s, pk, f.w, h, 2, &t), ZP_OK);
        /* Reference: standard-form scalars, compacted by hand. */
        zp_fr *std = malloc((pk->n_vars + n) * sizeof *std), *sa = malloc(pk->n_vars * sizeof *sa);
        zp_fr *sb = malloc(pk->n_vars * sizeof *sb);
        for (uint32_t i = 0; i < pk->n_vars; i++)
            zp_fr_from_mont(&std[i], &f.w[i]);
        for (size_t i = 0; i < n; i++)
            zp_fr_from_mont(&std[pk->n_vars + i], &h[i]);
        size_t ka = 0, kb = 0;
        for (uint32_t i = 0; i < pk->n_vars; i++) {
            if (zp__bitmap_get(&pk->a_density, i))
                sa[ka++] = std[i];
            if (zp__bitmap_get(&pk->b_density, i))
                sb[kb++] = std[i];
        }
        CHECK(ka == pk->n_a && kb == pk->n_b);
        zp_g1_jac r1;
        zp_g2_jac r2;
        zp__msm_g1_ref(&r1, pk->a, sa, ka);
        CHECK(zp_g1_jac_eq(&r1, &s.a));
        zp__msm_g1_ref(&r1, pk->b1, sb, kb);
        CHECK(zp_g1_jac_eq(&r1, &s.b1));
        zp__msm_g2_ref(&r2, pk->b2, sb, kb);
        CHECK(zp_g2_jac_eq(&r2, &s.b2));
        zp__msm_g1_ref(&r1, pk->l, std + pk->n_public + 1, (size_t)pk->n_l);
        CHECK(zp_g1_jac_eq(&r1, &s.l));
        zp__msm_g1_ref(&r1, pk->h, std + pk->n_vars, (size_t)pk->n_h);
        CHECK(zp_g1_jac_eq(&r1, &s.h));
        free(std);
        free(sa);
        free(sb);
        free(h);
        fix_free(&f);
    }
}

/* The five sums of f's witness through the CPU stages. */
static void sums_of(zp__g16_sums *out, const g16_fix *f)
{
    const zp__pk *pk = &f->pk;
    size_t n = (size_t)pk->domain_size;
    zp_fr *a = malloc(3 * n * sizeof *a);
    zp__g16_eval(a, a + n, a + 2 * n, pk, f->w, 2);
    CHECK_EQ_INT(zp__g16_h(a, a, a + n, a + 2 * n, pk, 2), ZP_OK);
    CHECK_EQ_INT(zp__g16_msm(out, pk, f->w, a, 2, NULL), ZP_OK);
    free(a);
}

static void finish_both(const zp__pk *pk, const zp__g16_sums *sums, const zp_fr *w,
                        const zp_fr *r, const zp_fr *s)
{
    zp__prove_opts o;
    zp__prove_opts_default(&o);
    o.r = r;
    o.s = s;
    zp__g16_ahead ah;
    CHECK_EQ_INT(zp__g16_ahead_make(&ah, pk, w, &o), ZP_OK);
    zp__proof want, got;
    uint8_t bw[ZP__PROOF_BYTES], bg[ZP__PROOF_BYTES];
    zp__g16_finish(&want, pk, sums, r, s);
    zp__g16_finish_ahead(&got, sums, &ah);
    CHECK_EQ_INT(zp__proof_encode(bw, &want), ZP_OK);
    CHECK_EQ_INT(zp__proof_encode(bg, &got), ZP_OK);
    CHECK(memcmp(bw, bg, sizeof bw) == 0);
}

/* The finish with its r, s terms made ahead (zp__g16_ahead) gives
 * zp__g16_finish's bytes: real sums with random and edge r, s (1, −1),
 * sums at infinity, and random sums; and through the tail with verify,
 * the same proof as zp__prove's, also split at ΣH (zp__g16_early); a
 * wrong vk_x made ahead, or a wrong ΣH or other sums, is refused. */
static void test_finish_ahead(void)
{
    for (int c = 0; c < 2; c++) {
        g16_fix f;
        CHECK(fix_make(&f, "porep:8", CONVS[c], 12) == 0);
        const zp__pk *pk = &f.pk;
        zp__g16_sums sums;
        sums_of(&sums, &f);
        zp_fr r, s, one, m1;
        rand_fr(&r);
        rand_fr(&s);
        zp_fr_one(&one);
        zp_fr_neg(&m1, &one);
        finish_both(pk, &sums, f.w, &r, &s);
        finish_both(pk, &sums, f.w, &one, &one);
        finish_both(pk, &sums, f.w, &m1, &r);
        zp__g16_sums z = sums;
        zp_g1_jac_inf(&z.a);
        zp_g1_jac_inf(&z.b1);
        zp_g2_jac_inf(&z.b2);
        finish_both(pk, &z, f.w, &r, &s);
        zp__g16_sums q = sums;
        zp_g1_jac_add(&q.a, &q.a, &q.h);
        zp_g1_jac_add(&q.b1, &q.b1, &q.l);
        zp_g2_jac_add(&q.b2, &q.b2, &q.b2);
        finish_both(pk, &q, f.w, &s, &r);

        /* The whole tail: the proof zp__prove makes for the same r, s. */
        zp__prove_opts o;
        zp__prove_opts_default(&o);
        o.r = &r;
        o.s = &s;
        zp__g16_ahead ah;
        CHECK_EQ_INT(zp__g16_ahead_make(&ah, pk, f.w, &o), ZP_OK);
        zp__proof want, got;
        zp__ioerr why = {""};
        CHECK_EQ_INT(zp__prove(&want, pk, f.w, pk->n_vars, &o, NULL, &why), ZP_OK);
        CHECK_EQ_INT(zp__g16_finish_verify_ahead(&got, pk, &sums, f.w, &ah, &o, NULL, &why),
                     ZP_OK);
        CHECK(memcmp(&want, &got, sizeof want) == 0);
        /* Sums that do not match the witness, or a vk_x of other inputs:
         * the verify refuses. */
        CHECK_EQ_INT(zp__g16_finish_verify_ahead(&got, pk, &q, f.w, &ah, &o, NULL, &why),
                     ZP_E_UNSATISFIED);
        zp__g16_ahead bad = ah;
        zp_g1_affine_neg(&bad.vk_x, &bad.vk_x);
        CHECK_EQ_INT(zp__g16_finish_verify_ahead(&got, pk, &sums, f.w, &bad, &o, NULL, &why),
                     ZP_E_UNSATISFIED);
        /* Split at ΣH (zp__g16_early_make during H, then the rest): the
         * same proof; a wrong ΣH or vk_x is refused. */
        zp__g16_early early;
        zp__g16_early_make(&early, pk, &sums, &ah);
        CHECK_EQ_INT(early.e, ZP_OK);
        memset(&got, 0, sizeof got);
        CHECK_EQ_INT(zp__g16_finish_verify_early(&got, pk, &sums.h, &early, NULL, &why), ZP_OK);
        CHECK(memcmp(&want, &got, sizeof want) == 0);
        zp__g16_sums qh = sums;
        zp_g1_jac_add(&qh.h, &qh.h, &qh.l);
        CHECK_EQ_INT(zp__g16_finish_verify_early(&got, pk, &qh.h, &early, NULL, &why),
                     ZP_E_UNSATISFIED);
        zp__g16_early_make(&early, pk, &sums, &bad);
        CHECK_EQ_INT(zp__g16_finish_verify_early(&got, pk, &sums.h, &early, NULL, &why),
                     ZP_E_UNSATISFIED);
        zp__g16_early_make(&early, pk, &q, &ah); /* other sums over w */
        CHECK_EQ_INT(zp__g16_finish_verify_early(&got, pk, &sums.h, &early, NULL, &why),
                     ZP_E_UNSATISFIED);
        CHECK(memcmp(&want, &got, sizeof want) == 0); /* untouched when refused */
        /* Without r, s the OS gives them; the proof still verifies. */
        CHECK_EQ_INT(zp__g16_ahead_make(&ah, pk, f.w, NULL), ZP_OK);
        CHECK_EQ_INT(zp__g16_finish_verify_ahead(&got, pk, &sums, f.w, &ah, &o, NULL, &why),
                     ZP_OK);
        CHECK_EQ_INT(zp__verify(&pk->vk, f.w + 1, pk->n_public, &got), ZP_OK);
        fix_free(&f);
    }
}

/* ------------------------------------- stage KATs from independent JS code */

static const char *FIXTURES[] = {"multiplier", "chain", "poseidon", "manypub", "bits"};

/* r and s of kat_proof.json (tests/interop/README.md), big-endian hex. */
static const char KAT_R[] = "0f0e0d0c0b0a09080706050403020100f0e1d2c3b4a5968778695a4b3c2d1e0f";
static const char KAT_S[] = "3141592653589793238462643383279502884197169399375105820974944592";

static bool hex_fr(zp_fr *out, const char *hex)
{
    uint8_t b[32];
    return zp__hex_decode(b, hex, 64) && zp_fr_from_be(out, b) == ZP_OK;
}

/* Reads the four sections of stages.txt ("a", "b", "c", "h", each followed
 * by n lines of 64 hex digits) into v[0..4n). */
static bool read_stages(zp_fr *v, size_t n, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[128];
    const char *names = "abch";
    bool ok = true;
    for (int k = 0; k < 4 && ok; k++) {
        ok = fgets(line, sizeof line, f) && line[0] == names[k] && line[1] == '\n';
        for (size_t i = 0; i < n && ok; i++)
            ok = fgets(line, sizeof line, f) && strlen(line) == 65 &&
                 hex_fr(&v[k * n + i], line);
    }
    ok = ok && !fgets(line, sizeof line, f); /* nothing after h */
    fclose(f);
    return ok;
}

static size_t count_diff(const zp_fr *x, const zp_fr *y, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += !zp_fr_eq(&x[i], &y[i]);
    return d;
}

static void kat_one(const char *name)
{
    char path[256];
    zp__ioerr why = {""};
    zp__pk pk;
    zp_fr *w = NULL;
    uint64_t nw = 0;
    snprintf(path, sizeof path, "interop/fixtures/%s/circuit.zkey", name);
    CHECK_EQ_INT(zp__zkey_load(&pk, path, &why), ZP_OK);
    snprintf(path, sizeof path, "interop/fixtures/%s/w.wtns", name);
    CHECK_EQ_INT(zp__wtns_load(&w, &nw, path, pk.n_vars, &why), ZP_OK);
    size_t n = (size_t)pk.domain_size;
    zp_fr *want = malloc(4 * n * sizeof *want), *got = malloc(3 * n * sizeof *got);
    snprintf(path, sizeof path, "interop/fixtures/%s/stages.txt", name);
    bool have = w && want && got && read_stages(want, n, path);
    CHECK(have); /* missing or malformed fixture data fails */
    if (have) {
        zp__g16_eval(got, got + n, got + 2 * n, &pk, w, 2);
        size_t da = count_diff(got, want, n), db = count_diff(got + n, want + n, n);
        size_t dc = count_diff(got + 2 * n, want + 2 * n, n);
        CHECK_EQ_INT(zp__g16_h(got, got, got + n, got + 2 * n, &pk, 2), ZP_OK);
        size_t dh = count_diff(got, want + 3 * n, n);
        if (da || db || dc || dh)
            fprintf(stderr, "%s: values that differ: a %zu, b %zu, c %zu, h %zu of %zu\n", name,
                    da, db, dc, dh, n);
        CHECK(da == 0 && db == 0 && dc == 0 && dh == 0);
        /* Fixed r, s: kat_proof.json exactly. */
        zp_fr r, s;
        CHECK(hex_fr(&r, KAT_R) && hex_fr(&s, KAT_S));
        zp__prove_opts o;
        zp__prove_opts_default(&o);
        o.r = &r;
        o.s = &s;
        zp__proof p, kat;
        snprintf(path, sizeof path, "interop/fixtures/%s/kat_proof.json", name);
        CHECK_EQ_INT(zp__proof_json_load(&kat, path, &why), ZP_OK);
        CHECK_EQ_INT(zp__prove(&p, &pk, w, nw, &o, NULL, &why), ZP_OK);
        CHECK(zp_g1_affine_eq(&p.a, &kat.a) && zp_g2_affine_eq(&p.b, &kat.b) &&
              zp_g1_affine_eq(&p.c, &kat.c));
    }
    free(want);
    free(got);
    free(w);
    zp__pk_free(&pk);
}

static void test_stage_kat(void)
{
    for (size_t i = 0; i < sizeof FIXTURES / sizeof *FIXTURES; i++)
        kat_one(FIXTURES[i]);
}

int main(void)
{
    RUN(test_prove_verify_both_conventions);
    RUN(test_fixed_rs_bit_exact);
    RUN(test_tampered_refused);
    RUN(test_bad_witness);
    RUN(test_snarkjs_data);
    RUN(test_stage_eval_ref);
    RUN(test_stage_h_ref);
    RUN(test_stage_msm_ref);
    RUN(test_finish_ahead);
    RUN(test_stage_kat);
    return FINISH();
}
