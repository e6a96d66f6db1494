/*
 * The 192-byte bellperson proof encoding and its k-partition concatenation:
 * round trips, the layout (A ‖ B ‖ C, zcash compressed), and refusal of
 * infinity, points outside the subgroup or the curve, bad flags and bad
 * lengths.
 */
#include "test_g16_util.h"
#include "test_io_util.h"

static void rand_proof(zp__proof *p)
{
    zp_g1_affine g1;
    zp_g2_affine g2;
    zp_g1_jac j1;
    zp_g2_jac j2;
    zp_fr k;
    zp_g1_generator(&g1);
    zp_g2_generator(&g2);
    for (int i = 0; i < 3; i++) {
        rand_fr(&k);
        zp_fr_from_mont(&k, &k);
        if (i == 1) {
            zp_g2_jac_from_affine(&j2, &g2);
            zp_g2_jac_mul_vartime(&j2, &j2, k.l, 4);
            zp_g2_jac_to_affine(&p->b, &j2);
        } else {
            zp_g1_jac_from_affine(&j1, &g1);
            zp_g1_jac_mul_vartime(&j1, &j1, k.l, 4);
            zp_g1_jac_to_affine(i ? &p->c : &p->a, &j1);
        }
    }
}

static void test_round_trip_and_layout(void)
{
    for (int t = 0; t < 5; t++) {
        zp__proof p, q;
        rand_proof(&p);
        uint8_t b[ZP__PROOF_BYTES], x[ZP_G2_COMPRESSED];
        CHECK_EQ_INT(zp__proof_encode(b, &p), ZP_OK);
        CHECK_EQ_INT(zp__proof_decode(&q, b, sizeof b), ZP_OK);
        CHECK_MEM(&p, &q, sizeof p);
        zp_g1_encode(x, &p.a, true);
        CHECK_MEM(b, x, 48);
        zp_g2_encode(x, &p.b, true);
        CHECK_MEM(b + 48, x, 96);
        zp_g1_encode(x, &p.c, true);
        CHECK_MEM(b + 144, x, 48);
        CHECK((b[0] & 0x80) && (b[48] & 0x80) && (b[144] & 0x80));
    }
    /* The generator as A: bytes 97f1d3a7 (docs/formats.md, Constants and point encoding). */
    zp__proof p;
    rand_proof(&p);
    zp_g1_generator(&p.a);
    uint8_t b[ZP__PROOF_BYTES];
    CHECK_EQ_INT(zp__proof_encode(b, &p), ZP_OK);
    static const uint8_t gen[4] = {0x97, 0xf1, 0xd3, 0xa7};
    CHECK_MEM(b, gen, 4);
}

static void test_refusals(void)
{
    zp__proof p, q, sentinel;
    uint8_t good[ZP__PROOF_BYTES], b[ZP__PROOF_BYTES];
    rand_proof(&p);
    CHECK_EQ_INT(zp__proof_encode(good, &p), ZP_OK);
    memset(&sentinel, 0x5a, sizeof sentinel);
    q = sentinel;

    /* Infinity anywhere: refused when writing and when reading. */
    for (int i = 0; i < 3; i++) {
        zp__proof t = p;
        if (i == 0)
            memset(&t.a, 0, sizeof t.a);
        else if (i == 1)
            memset(&t.b, 0, sizeof t.b);
        else
            memset(&t.c, 0, sizeof t.c);
        CHECK_EQ_INT(zp__proof_encode(b, &t), ZP_E_INFINITY);
        memcpy(b, good, sizeof b);
        size_t off = i == 0 ? 0 : i == 1 ? 48 : 144, len = i == 1 ? 96 : 48;
        memset(b + off, 0, len);
        b[off] = 0xc0; /* compressed infinity */
        CHECK_EQ_INT(zp__proof_decode(&q, b, sizeof b), ZP_E_INFINITY);
    }
    /* Outside the subgroup (on the curve). */
    zp_g1_affine ns1;
    zp_g2_affine ns2;
    g1_non_subgroup(&ns1);
    g2_non_subgroup(&ns2);
    CHECK(!zp_g1_affine_in_subgroup(&ns1) && !zp_g2_affine_in_subgroup(&ns2));
    memcpy(b, good, sizeof b);
    zp_g1_encode(b + 144, &ns1, true);
    CHECK_EQ_INT(zp__proof_decode(&q, b, sizeof b), ZP_E_NOT_IN_SUBGROUP);
    memcpy(b, good, sizeof b);
    zp_g2_encode(b + 48, &ns2, true);
    CHECK_EQ_INT(zp__proof_decode(&q, b, sizeof b), ZP_E_NOT_IN_SUBGROUP);
    /* Uncompressed flag (bit 7 cleared) and a bad x. */
    memcpy(b, good, sizeof b);
    b[0] &= 0x7f;
    CHECK(zp__proof_decode(&q, b, sizeof b) != ZP_OK);
    memcpy(b, good, sizeof b);
    memset(b + 1, 0xff, 47); /* x >= q */
    CHECK(zp__proof_decode(&q, b, sizeof b) != ZP_OK);
    /* Lengths. */
    CHECK_EQ_INT(zp__proof_decode(&q, good, 191), ZP_E_BAD_LENGTH);
    CHECK_EQ_INT(zp__proof_decode(&q, good, 193), ZP_E_BAD_LENGTH);
    CHECK_EQ_INT(zp__proof_decode(&q, good, 0), ZP_E_BAD_LENGTH);
    CHECK_MEM(&q, &sentinel, sizeof q); /* nothing written on failure */
    CHECK_EQ_INT(zp__proof_decode(&q, good, sizeof good), ZP_OK);
}

static void test_partitions(void)
{
    enum { K = 4 };
    zp__proof p[K], q[K];
    uint8_t b[K * ZP__PROOF_BYTES + 1];
    for (int i = 0; i < K; i++)
        rand_proof(&p[i]);
    CHECK_EQ_INT(zp__proofs_encode(b, p, K), ZP_OK);
    for (int i = 0; i < K; i++) {
        uint8_t one[ZP__PROOF_BYTES];
        CHECK_EQ_INT(zp__proof_encode(one, &p[i]), ZP_OK);
        CHECK_MEM(b + i * ZP__PROOF_BYTES, one, sizeof one);
    }
    size_t k = 99;
    CHECK_EQ_INT(zp__proofs_decode(q, K, &k, b, K * ZP__PROOF_BYTES), ZP_OK);
    CHECK_EQ_INT(k, K);
    CHECK_MEM(p, q, sizeof p);
    CHECK_EQ_INT(zp__proofs_decode(q, K - 1, &k, b, K * ZP__PROOF_BYTES), ZP_E_TOO_LARGE);
    CHECK_EQ_INT(k, 0);
    CHECK_EQ_INT(zp__proofs_decode(q, K, &k, b, K * ZP__PROOF_BYTES + 1), ZP_E_BAD_LENGTH);
    CHECK_EQ_INT(zp__proofs_decode(q, K, &k, b, K * ZP__PROOF_BYTES - 1), ZP_E_BAD_LENGTH);
    CHECK_EQ_INT(zp__proofs_decode(q, K, &k, b, 0), ZP_E_BAD_LENGTH);
    /* A bad point in partition 2 fails the whole input. */
    memset(b + 2 * ZP__PROOF_BYTES + 144, 0, 48);
    b[2 * ZP__PROOF_BYTES + 144] = 0xc0;
    CHECK_EQ_INT(zp__proofs_decode(q, K, &k, b, K * ZP__PROOF_BYTES), ZP_E_INFINITY);
    CHECK_EQ_INT(k, 0);
    /* An infinity in the input to encode is refused. */
    memset(&p[3].b, 0, sizeof p[3].b);
    CHECK_EQ_INT(zp__proofs_encode(b, p, K), ZP_E_INFINITY);
}

/* A real proof survives the byte form and still verifies. */
static void test_real_proof(void)
{
    g16_fix f;
    CHECK(fix_make(&f, "chain:4", ZP_H_TAU, 3) == 0);
    zp__proof p, q;
    CHECK_EQ_INT(zp__prove(&p, &f.pk, f.w, f.pk.n_vars, NULL, NULL, NULL), ZP_OK);
    uint8_t b[ZP__PROOF_BYTES];
    CHECK_EQ_INT(zp__proof_encode(b, &p), ZP_OK);
    CHECK_EQ_INT(zp__proof_decode(&q, b, sizeof b), ZP_OK);
    CHECK_EQ_INT(zp__verify(&f.pk.vk, f.w + 1, f.pk.n_public, &q), ZP_OK);
    fix_free(&f);
}

int main(void)
{
    RUN(test_round_trip_and_layout);
    RUN(test_refusals);
    RUN(test_partitions);
    RUN(test_real_proof);
    return FINISH();
}
