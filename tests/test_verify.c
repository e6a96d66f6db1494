/*
 * The prepared verifier (a key's α₁β₂ Miller loop and γ₂, δ₂ lines made
 * once) against its reference, the plain four-pair multi-pairing: the same
 * verdict and error on valid proofs, on proofs and inputs changed in every
 * way the checks allow (points moved, swapped, negated, infinity, off the
 * curve), on a snarkjs proof, and on keys made by hand that verify with
 * infinity where the prepared form special-cases it. Also when zp__verify makes the prepared form, that
 * a changed key falls back to the plain way, and that verifiers racing to
 * make it agree. zp__verify in two parts (zp__verify_vk_x, then
 * zp__verify_with_vk_x), and in three (zp__verify_early on π_A, π_B, then
 * zp__verify_late) agrees with both everywhere.
 */
#include <pthread.h>

#include "test_g16_util.h"

#include "io/io.h"

static const char *SPECS[] = {"porep:8", "dense:5", "chain:5"};
static const zp_h_conv CONVS[] = {ZP_H_COSET, ZP_H_TAU};

/* Both ways agree on (vk, pub, proof), and so does zp__verify in two
 * parts (vk_x first, as a prover makes it ahead; the plain way on a key's
 * first verify, the prepared way after); returns the verdict. */
static zp_err both(const zp__vk *vk, const zp__vk_prep *prep, const zp_fr *pub, size_t n,
                   const zp__proof *p)
{
    zp_err plain = zp__verify_plain(vk, pub, n, p);
    zp_err prepared = zp__verify_prepared(prep, vk, pub, n, p);
    CHECK_EQ_INT(prepared, plain);
    zp_g1_affine vk_x;
    zp_err split = zp__verify_vk_x(&vk_x, vk, pub, n);
    zp_err parts = split;
    if (!split)
        split = zp__verify_with_vk_x(vk, &vk_x, p);
    CHECK_EQ_INT(split, plain);
    /* And split at π_C, as a prover whose H sum still runs. */
    if (!parts) {
        zp__verify_part v;
        parts = zp__verify_early(&v, vk, &vk_x, &p->a, &p->b);
        if (!parts)
            parts = zp__verify_late(&v, vk, p);
    }
    CHECK_EQ_INT(parts, plain);
    return plain;
}

/* k·G1 and k·G2 for k in Montgomery form; k = 0 gives infinity. */
static void g1_of(zp_g1_affine *out, const zp_fr *k)
{
    zp_fr plain;
    zp_fr_from_mont(&plain, k);
    zp_g1_jac j;
    zp_g1_generator(out);
    zp_g1_jac_from_affine(&j, out);
    zp_g1_jac_mul_vartime(&j, &j, plain.l, 4);
    zp_g1_jac_to_affine(out, &j);
}

static void g2_of(zp_g2_affine *out, const zp_fr *k)
{
    zp_fr plain;
    zp_fr_from_mont(&plain, k);
    zp_g2_jac j;
    zp_g2_generator(out);
    zp_g2_jac_from_affine(&j, out);
    zp_g2_jac_mul_vartime(&j, &j, plain.l, 4);
    zp_g2_jac_to_affine(out, &j);
}

/* A random point of G1 (a random multiple of the generator). */
static void rand_g1(zp_g1_affine *out)
{
    zp_fr k;
    rand_fr(&k);
    g1_of(out, &k);
}

/* Every change to one valid proof p for (vk, pub): none may verify, and
 * both ways must say so alike. */
static void check_changed(const zp__vk *vk, const zp__vk_prep *prep, const zp_fr *pub, size_t n,
                          const zp__proof *p)
{
    zp__proof t;
    t = p[0], g1_add_gen(&t.a);
    CHECK_EQ_INT(both(vk, prep, pub, n, &t), ZP_E_VERIFY_FAILED);
    t = p[0], g2_add_gen(&t.b);
    CHECK_EQ_INT(both(vk, prep, pub, n, &t), ZP_E_VERIFY_FAILED);
    t = p[0], g1_add_gen(&t.c);
    CHECK_EQ_INT(both(vk, prep, pub, n, &t), ZP_E_VERIFY_FAILED);
    t = p[0], zp_g1_affine_neg(&t.a, &t.a);
    CHECK_EQ_INT(both(vk, prep, pub, n, &t), ZP_E_VERIFY_FAILED);
    t = p[0], t.a = p->c, t.c = p->a;
    CHECK_EQ_INT(both(vk, prep, pub, n, &t), ZP_E_VERIFY_FAILED);
    t = p[0], rand_g1(&t.c);
    CHECK_EQ_INT(both(vk, prep, pub, n, &t), ZP_E_VERIFY_FAILED);
    /* Infinity, point by point: the checks let it through, the pairing
     * counts it as 1. */
    t = p[0], memset(&t.a, 0, sizeof t.a);
    CHECK(both(vk, prep, pub, n, &t) != ZP_OK);
    t = p[0], memset(&t.b, 0, sizeof t.b);
    CHECK(both(vk, prep, pub, n, &t) != ZP_OK);
    t = p[0], memset(&t.c, 0, sizeof t.c);
    CHECK(both(vk, prep, pub, n, &t) != ZP_OK);
    /* Off the curve: refused before any pairing, the same way. */
    zp_fp one;
    zp_fp_one(&one);
    t = p[0], zp_fp_add(&t.a.y, &t.a.y, &one);
    CHECK_EQ_INT(both(vk, prep, pub, n, &t), ZP_E_NOT_ON_CURVE);
    t = p[0], zp_fp_add(&t.b.y.c0, &t.b.y.c0, &one);
    CHECK_EQ_INT(both(vk, prep, pub, n, &t), ZP_E_NOT_ON_CURVE);
    /* Each public input off by one, then the wrong count. */
    zp_fr *bad = malloc((n + 1) * sizeof *bad), fr_one;
    zp_fr_one(&fr_one);
    for (size_t i = 0; i < n; i++) {
        memcpy(bad, pub, n * sizeof *bad);
        zp_fr_add(&bad[i], &bad[i], &fr_one);
        CHECK_EQ_INT(both(vk, prep, bad, n, p), ZP_E_VERIFY_FAILED);
    }
    memcpy(bad, pub, n * sizeof *bad);
    zp_fr_zero(&bad[n]);
    CHECK_EQ_INT(both(vk, prep, bad, n + 1, p), ZP_E_BAD_LENGTH);
    if (n > 0)
        CHECK_EQ_INT(both(vk, prep, bad, n - 1, p), ZP_E_BAD_LENGTH);
    free(bad);
}

/* The verify split at π_C (zp__verify_early, zp__verify_late): on a vk's
 * first use (no prepared form yet: the late part verifies it all) and
 * after; a π_C not of the proof, a vk_x of other inputs, and a late part
 * given other π_A, π_B (it verifies that proof whole) all get the
 * verdicts zp__verify gives. */
static void test_early_late(void)
{
    for (int c = 0; c < 2; c++) {
        g16_fix f;
        CHECK(fix_make(&f, "porep:8", CONVS[c], 77) == 0);
        const zp__vk *vk = &f.pk.vk;
        zp__proof p, p2, mix;
        CHECK_EQ_INT(zp__prove(&p, &f.pk, f.w, f.pk.n_vars, NULL, NULL, NULL), ZP_OK);
        CHECK_EQ_INT(zp__prove(&p2, &f.pk, f.w, f.pk.n_vars, NULL, NULL, NULL), ZP_OK);
        zp_g1_affine vk_x, bad_x;
        CHECK_EQ_INT(zp__verify_vk_x(&vk_x, vk, f.w + 1, f.pk.n_public), ZP_OK);
        zp_g1_affine_neg(&bad_x, &vk_x);
        /* A copy of the vk never used: its first early part has no
         * prepared form, its second one has. */
        zp__vk fresh;
        memcpy(&fresh, vk, sizeof fresh);
        atomic_store(&fresh.prep, NULL);
        atomic_store(&fresh.used, false);
        zp__verify_part v;
        CHECK_EQ_INT(zp__verify_early(&v, &fresh, &vk_x, &p.a, &p.b), ZP_OK);
        CHECK(v.prep == NULL);
        CHECK_EQ_INT(zp__verify_late(&v, &fresh, &p), ZP_OK);
        CHECK_EQ_INT(zp__verify_early(&v, &fresh, &vk_x, &p.a, &p.b), ZP_OK);
        CHECK(v.prep != NULL);
        CHECK_EQ_INT(zp__verify_late(&v, &fresh, &p), ZP_OK);
        zp__vk_prep_free(atomic_load(&fresh.prep));
        /* The key itself (prepared by now): the right π_C only. */
        CHECK_EQ_INT(zp__verify_early(&v, vk, &vk_x, &p.a, &p.b), ZP_OK);
        CHECK(v.prep != NULL);
        CHECK_EQ_INT(zp__verify_late(&v, vk, &p), ZP_OK);
        mix = p;
        mix.c = p2.c;
        CHECK_EQ_INT(zp__verify_late(&v, vk, &mix), ZP_E_VERIFY_FAILED);
        CHECK_EQ_INT(zp__verify_late(&v, vk, &p2), ZP_OK); /* whole: p2 is valid */
        mix = p;
        mix.a = p2.a;
        CHECK_EQ_INT(zp__verify_late(&v, vk, &mix), ZP_E_VERIFY_FAILED);
        mix = p;
        zp_g1_affine_neg(&mix.c, &mix.c);
        CHECK_EQ_INT(zp__verify_late(&v, vk, &mix), ZP_E_VERIFY_FAILED);
        zp_fp one;
        zp_fp_one(&one);
        zp_fp_add(&mix.c.y, &mix.c.y, &one); /* off the curve */
        CHECK_EQ_INT(zp__verify_late(&v, vk, &mix), ZP_E_NOT_ON_CURVE);
        CHECK_EQ_INT(zp__verify_early(&v, vk, &bad_x, &p.a, &p.b), ZP_OK);
        CHECK_EQ_INT(zp__verify_late(&v, vk, &p), ZP_E_VERIFY_FAILED);
        mix = p;
        zp_fp_add(&mix.a.y, &mix.a.y, &one);
        CHECK_EQ_INT(zp__verify_early(&v, vk, &vk_x, &mix.a, &mix.b), ZP_E_NOT_ON_CURVE);
        fix_free(&f);
    }
}

static void test_prepared_matches_plain(void)
{
    for (size_t i = 0; i < sizeof SPECS / sizeof *SPECS; i++) {
        for (int c = 0; c < 2; c++) {
            g16_fix f;
            CHECK(fix_make(&f, SPECS[i], CONVS[c], 40 + i) == 0);
            zp__vk_prep *prep;
            CHECK_EQ_INT(zp__vk_prep_make(&prep, &f.pk.vk), ZP_OK);
            const zp_fr *pub = f.w + 1;
            size_t n = f.pk.n_public;
            for (int k = 0; k < 3; k++) { /* fresh r, s each time */
                zp__proof p;
                CHECK_EQ_INT(zp__prove(&p, &f.pk, f.w, f.pk.n_vars, NULL, NULL, NULL), ZP_OK);
                CHECK_EQ_INT(both(&f.pk.vk, prep, pub, n, &p), ZP_OK);
                if (k == 0)
                    check_changed(&f.pk.vk, prep, pub, n, &p);
            }
            zp__vk_prep_free(prep);
            fix_free(&f);
        }
    }
}

/*
 * A key and proof made by hand from known logarithms, so that they verify
 * with any of them zero, i.e. with infinity where the prepared form
 * special-cases it (lines of infinity, α₁β₂ = 1, vk_x = O, π_A or π_C = O):
 * α₁ = a, β₂ = b, γ₂ = g, δ₂ = d, vk_x = IC₀ = x (the one public input 0),
 * π_A = 1, π_B = ab + xg + cd, π_C = c, times the generators. zero_mask
 * bit k zeroes the k-th of a, b, g, d, x, c; bit 6 makes π_A = O instead
 * (then π_B is 1 and the rest must cancel: bits 0, 4 and 5 are set too).
 */
static void check_by_hand(unsigned zero_mask)
{
    zp_fr v[6], one, e, t;
    for (int k = 0; k < 6; k++) {
        rand_fr(&v[k]);
        if (zero_mask >> k & 1)
            zp_fr_zero(&v[k]);
    }
    zp_fr_one(&one);
    zp_fr_mul(&e, &v[0], &v[1]);
    zp_fr_mul(&t, &v[4], &v[2]);
    zp_fr_add(&e, &e, &t);
    zp_fr_mul(&t, &v[5], &v[3]);
    zp_fr_add(&e, &e, &t);
    zp__vk vk;
    memset(&vk, 0, sizeof vk);
    vk.n_ic = 2;
    vk.ic = malloc(2 * sizeof *vk.ic);
    g1_of(&vk.alpha1, &v[0]);
    g2_of(&vk.beta2, &v[1]);
    g2_of(&vk.gamma2, &v[2]);
    g2_of(&vk.delta2, &v[3]);
    g1_of(&vk.ic[0], &v[4]);
    rand_g1(&vk.ic[1]);
    zp__proof p;
    bool a_inf = zero_mask >> 6 & 1;
    zp_fr zero;
    zp_fr_zero(&zero);
    g1_of(&p.a, a_inf ? &zero : &one);
    g2_of(&p.b, a_inf ? &one : &e);
    g1_of(&p.c, &v[5]);
    zp_fr pub[1];
    zp_fr_zero(&pub[0]);
    zp__vk_prep *prep;
    CHECK_EQ_INT(zp__vk_prep_make(&prep, &vk), ZP_OK);
    CHECK_EQ_INT(both(&vk, prep, pub, 1, &p), ZP_OK);
    /* Changes that matter (π_B with π_A ≠ O, vk_x with γ₂ ≠ O) fail;
     * those that do not still verify; either way both ways agree. */
    zp__proof t2 = p;
    g2_add_gen(&t2.b);
    CHECK_EQ_INT(both(&vk, prep, pub, 1, &t2), a_inf ? ZP_OK : ZP_E_VERIFY_FAILED);
    zp_fr_one(&pub[0]); /* vk_x moves by IC₁ */
    bool g_zero = zero_mask >> 2 & 1;
    CHECK_EQ_INT(both(&vk, prep, pub, 1, &p), g_zero ? ZP_OK : ZP_E_VERIFY_FAILED);
    zp__vk_prep_free(prep);
    zp__vk_free(&vk);
}

static void test_infinity_by_hand(void)
{
    check_by_hand(0);
    for (unsigned k = 0; k < 6; k++)
        check_by_hand(1u << k);
    check_by_hand(0x3f);                    /* every point of the key O */
    check_by_hand(0x40 | 0x01 | 0x10 | 0x20); /* π_A = O, π_C = O, vk_x = O */
    check_by_hand(0x40 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20);
}

/* A proof made by snarkjs, and its key read from JSON. */
static void test_snarkjs_proof(void)
{
    zp__ioerr why = {""};
    zp__vk vk;
    zp__proof sp;
    zp_fr *pub = NULL;
    size_t np = 0;
    CHECK_EQ_INT(zp__vk_json_load(&vk, "data/vk.json", &why), ZP_OK);
    CHECK_EQ_INT(zp__proof_json_load(&sp, "data/proof.json", &why), ZP_OK);
    CHECK_EQ_INT(zp__public_json_load(&pub, &np, "data/public.json", &why), ZP_OK);
    zp__vk_prep *prep;
    CHECK_EQ_INT(zp__vk_prep_make(&prep, &vk), ZP_OK);
    if (pub && np + 1 == vk.n_ic) {
        CHECK_EQ_INT(both(&vk, prep, pub, np, &sp), ZP_OK);
        check_changed(&vk, prep, pub, np, &sp);
    } else {
        CHECK(0);
    }
    zp__vk_prep_free(prep);
    zp__vk_free(&vk);
    free(pub);
}

/* zp__verify makes vk->prep at its second call, keeps it, and does not
 * use it once the vk's points change. */
static void test_made_on_second_use(void)
{
    g16_fix f, g;
    CHECK(fix_make(&f, "dense:5", ZP_H_COSET, 8) == 0);
    CHECK(fix_make(&g, "dense:5", ZP_H_COSET, 8) == 0); /* same circuit, other key */
    zp__proof p, q;
    CHECK_EQ_INT(zp__prove(&p, &f.pk, f.w, f.pk.n_vars, NULL, NULL, NULL), ZP_OK);
    CHECK_EQ_INT(zp__prove(&q, &g.pk, g.w, g.pk.n_vars, NULL, NULL, NULL), ZP_OK);
    zp__vk *vk = &f.pk.vk;
    size_t n = f.pk.n_public;
    /* zp__prove verified its proof once already. */
    CHECK(atomic_load(&vk->used));
    CHECK(atomic_load(&vk->prep) == NULL);
    CHECK_EQ_INT(zp__verify(vk, f.w + 1, n, &p), ZP_OK);
    zp__vk_prep *made = atomic_load(&vk->prep);
    CHECK(made != NULL);
    CHECK_EQ_INT(zp__verify(vk, f.w + 1, n, &p), ZP_OK);
    CHECK(atomic_load(&vk->prep) == made);
    CHECK_EQ_INT(zp__verify(vk, g.w + 1, n, &q), ZP_E_VERIFY_FAILED);
    /* Give f's vk g's points (ic too): a stale prep must not decide. */
    zp_g1_affine *ic = vk->ic;
    vk->alpha1 = g.pk.vk.alpha1, vk->beta2 = g.pk.vk.beta2;
    vk->gamma2 = g.pk.vk.gamma2, vk->delta2 = g.pk.vk.delta2;
    vk->ic = g.pk.vk.ic;
    CHECK(zp__vk_prep_get(vk) == NULL);
    CHECK_EQ_INT(zp__verify_prepared(made, vk, g.w + 1, n, &q), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__verify(vk, g.w + 1, n, &q), ZP_OK);
    CHECK_EQ_INT(zp__verify(vk, f.w + 1, n, &p), ZP_E_VERIFY_FAILED);
    vk->ic = ic;
    fix_free(&f); /* frees made: ASan builds would see a leak otherwise */
    fix_free(&g);
}

struct racer {
    const zp__vk *vk;
    const zp_fr *pub;
    size_t n;
    const zp__proof *p;
    int ok;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    r->ok = 0;
    for (int k = 0; k < 3; k++)
        r->ok += zp__verify(r->vk, r->pub, r->n, r->p) == ZP_OK;
    return NULL;
}

/* Verifiers sharing one key race to make its prep: one copy survives. */
static void test_racing_verifiers(void)
{
    enum { T = 4 };
    g16_fix f;
    CHECK(fix_make(&f, "chain:5", ZP_H_COSET, 9) == 0);
    zp__proof p;
    CHECK_EQ_INT(zp__prove(&p, &f.pk, f.w, f.pk.n_vars, NULL, NULL, NULL), ZP_OK);
    CHECK(atomic_load(&f.pk.vk.prep) == NULL);
    pthread_t th[T];
    struct racer r[T];
    for (int i = 0; i < T; i++) {
        r[i] = (struct racer){&f.pk.vk, f.w + 1, f.pk.n_public, &p, 0};
        CHECK_EQ_INT(pthread_create(&th[i], NULL, race, &r[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(r[i].ok, 3);
    }
    CHECK(atomic_load(&f.pk.vk.prep) != NULL);
    fix_free(&f);
}

int main(void)
{
    RUN(test_prepared_matches_plain);
    RUN(test_early_late);
    RUN(test_infinity_by_hand);
    RUN(test_snarkjs_proof);
    RUN(test_made_on_second_use);
    RUN(test_racing_verifiers);
    return FINISH();
}
