/* The optimal ate pairing: known answers from @noble/curves 2.4.0,
 * the final exponentiation against plain exponentiation, bilinearity,
 * non-degeneracy, inverses, multi-pairing products and GT membership; the
 * Miller loop over lines made ahead against the plain one, bit for bit. */
#include "base/codec.h"
#include "check.h"
#include "math/mont.h"
#include "math/pairing.h"
#include "math/tower.h"
#include "zkpipe.h"

/* ---------------------------------------------------------------- data */

/* Printed by tests/js/pairing_kat.mjs (noble Fp12.toBytes, hex):
 * e(G1, G2); the final exponentiation of the element whose Fp coefficients
 * are 1..12 in toBytes order; e(5 G1, 7 G2). */
static const char KAT_E_G1_G2[] =
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6"
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f"
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87"
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f"
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5"
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6"
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d"
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a"
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57"
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2"
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef"
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631";
static const char KAT_FE_OUT[] =
    "09ec3161bd9e7442885d9a5003c62d24da10176b5c0cf1f6b25539e17fccae6eb440c4bb20157b25e276afe09e3adc30"
    "0e637f05c38a877ea28b2f94ea0100d6b913241b16b11cca7af03b92d69ea87574b77c878c9b3dcb47adfcd69311e00b"
    "11ee03dbfb8473297afc1ecd192088de0aa665d85607ac107aec8ad15bdfe291adc4a561bf5263a89ee1efc11eb5d3c9"
    "0ecbb2ff827a6aa034e813ac551040d6c06effb1f27372ce743302bc56013e3a5edde28d66acc2b21281c79a322464f2"
    "09a0e0be17e1c12f29114fa361bb59389b259e9f2dfa905d2c3cc6f58fb7a105f921188e188035a9b989f8e3f4a831da"
    "07116f0252632816d7040e719838172bbc89a383dc5f2e3454b436bdcdd32c9ae0e3da53a863fa3b0cd5d04c796b2443"
    "0516ef439fc87fd2dbabe3b27fda4ccc74ed7f81593743d178581533c7b2b7cb07debeda4fdf487b00d62af18aeefc27"
    "14797f842bff1cbd7cc8fe138bcf9e229b5b2df4ec2ff5d67e6606b7b319504d908a380d697c2f99763dfecb61e9effe"
    "0cdafa84c22b742b5bfb5ac065c9ecb86e12b06e235c0ac74fc990128524b4a548cb8cc1b5025bc434bf221ca37cb2e7"
    "0879daa12376c4dd77ac19348184e3b5799f56f5f9d3b420acdd6f6dbcbc4e109327728628ee255e604508ffa0c6a06b"
    "145fe8afbe79d32ee10e485419040b3b563a318531fd64db812245284857aa52686719c8b1105a486ff298667b2bd3c2"
    "13ba5184d194323878c427ff2cd1865dc123099693e2700f6fd472e6c2b0b98f9ca2aad9516cc52ae2cf79b6e7c0cefe";
static const char KAT_E_5G1_7G2[] =
    "016cab6a2a187ac996d062aad5f25c52d9211493b1434398d964368cd5ec1de2ddc196fcbc56f2a194a6fb8f256085e6"
    "0ba88e19d2045e8a7dbb1dc59d5d8edb68e1ee7a795eab19ca9afc2741d7bdc3667114b5e80d630d71cb34873066df13"
    "11be383ae281b84132b65252f7d909d7dd38df6442499e0bd42afe38b2b7565b2d4060a8d6dc956cec721d6cbcf80afe"
    "12d1178da6bc5e1724cc1259556b60896df6f840279c26ba15a8b2fa8bc8bf998edb9f201c848fb1dfcf66312c13ef47"
    "00664b432d8a8a6a02dd38881449f1cd760080aedd769b4fa38e1826c10454c6b2634531f7a962e451398317a5e24967"
    "13696d0422f7122122fc4a6946d757b7a865ceb7441357744d379e00291ad5e80a43f17347acfde6fdd94ecd7bdce849"
    "01ca814ff7083094975f2186a643146a7440e3e451905945743752b1401bc11a377d49af8939df3388152e89ad3d7f8e"
    "14b3f4389d9347fa57f8cb1036f6a43936bc5c5fd3c36230112ea895bd6c45a554327d63d2125c19a887d30b3c6f64ef"
    "173f8d588daf92c713fccb463c052c8359021710b2b03fc987305afc2438e723104abcc268c48a2e2583a02bd555916e"
    "0b40356ba88972c575266d95cc1c8fd1615cdbbec72de888d956f0a2cfffa74e90f20b78fee5c08a55863e45f606dda9"
    "00e4919a80ad50e8284b62cc2c32de5a34ff7024c9417943c38623e6cca63503092558c4d7cc575d4ce8936f3d20e92f"
    "16dd215f3d476c02356ee7741f7ced89d248a7c4ad28b374337e3b50eab071aeed42fe13cc7cde247c801bc05d563943";
/* 3 (q^12 - 1)/r, 68 limbs */
static const uint64_t FINAL_EXP_E[68] = {
    0x42362d2019e05f30ULL, 0x71ec9292b3a3f16eULL, 0xcc14f35af381dd9bULL,
    0xaa8e8db57364b4e0ULL, 0xbbd8542f1f4e813cULL, 0x67448d0357e60280ULL,
    0x37e374d545d9b34bULL, 0x0dbe98538990b886ULL, 0x4f37addccc764259ULL,
    0xb126a5693d0c1648ULL, 0xe2fab93c0cbe7336ULL, 0x5be26fa7d750500cULL,
    0x0fd55b32bc26877fULL, 0x2789939db85ffd7eULL, 0x8a8dbc483bf8b74cULL,
    0xee57b6df108eff59ULL, 0x44dc2a7f86c253a4ULL, 0x1ab9a096b98465d0ULL,
    0xa19abe6ea2accb45ULL, 0xd458de749460d4a2ULL, 0xefda3b46ebf86211ULL,
    0xbf503bd6ec0a0679ULL, 0xee452496f5166c25ULL, 0x533883a3513435f3ULL,
    0x0c49ebcd2352765fULL, 0xdd3ed254fdeda030ULL, 0xf337b31c79222145ULL,
    0xdc89d154af91ad54ULL, 0x48986b14d9098746ULL, 0xb600e6c98003bf85ULL,
    0xe543c4bc40bcd4c0ULL, 0x1e5f07600ce6b407ULL, 0x5017931d6740bda7ULL,
    0x99edd44084bd2372ULL, 0xb20f28c19e4105abULL, 0x56cfa8c3574363efULL,
    0x376e521070d29c9dULL, 0x24ed5e515911037bULL, 0xa9f5aa7994cec31bULL,
    0xc2f98fcdd0dd36caULL, 0xc2cb543d69430c37ULL, 0xd4c1f3ac25e3167eULL,
    0x6f3496b2dd38e722ULL, 0x0c4347bb5a7e405dULL, 0x312d8a7d76233637ULL,
    0x167ff1323d6e99acULL, 0x4dde0523678105d9ULL, 0x4e2513d6e4a5d3bbULL,
    0x9f28efa0d355b022ULL, 0x773528bbae870697ULL, 0x7ab1cd294a502304ULL,
    0x4b9783d9c6aa8129ULL, 0x133bdc3ca9412b98ULL, 0x16e296a72928cfeeULL,
    0xfb77b732ba5f9948ULL, 0xa9d6ff3a07dbd34eULL, 0x54207282314fc0deULL,
    0x5958cb8bfdae2d2dULL, 0x15eacb2cf3218a16ULL, 0x42009fe1bd6fcbceULL,
    0x913caba6579c08fdULL, 0x7315a664019fbd84ULL, 0x468d8f473094aecbULL,
    0x5a2b2fe3bea73dfbULL, 0x7dc671be77cf1771ULL, 0xdc3e541f9dca04bbULL,
    0x96587127a538fd40ULL, 0x0000000008ca5921ULL,
};

/* ------------------------------------------------------------- helpers */

static bool fp12_eq_hex(const zp_fp12 *a, const char *hex)
{
    uint8_t got[576], want[576];
    CHECK_EQ_INT(strlen(hex), 1152);
    CHECK(zp__hex_decode(want, hex, 1152));
    zp_fp12_to_bytes(got, a);
    return memcmp(got, want, 576) == 0;
}

/* A uniform-enough scalar below 2^254 < r, as plain limbs. */
static void rand_scalar(uint64_t k[4])
{
    for (int i = 0; i < 4; i++)
        k[i] = check_rand64();
    k[3] &= 0x3fffffffffffffffULL;
}

/* (a b) mod r as plain limbs. */
static void scalar_mul(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    zp_fr x, y;
    memcpy(x.l, a, 32);
    memcpy(y.l, b, 32);
    zp_fr_to_mont(&x, &x);
    zp_fr_to_mont(&y, &y);
    zp_fr_mul(&x, &x, &y);
    zp_fr_from_mont(&x, &x);
    memcpy(out, x.l, 32);
}

static void g1_mul(zp_g1_affine *out, const zp_g1_affine *p, const uint64_t *k, size_t n)
{
    zp_g1_jac j;
    zp_g1_jac_from_affine(&j, p);
    zp_g1_jac_mul_vartime(&j, &j, k, n);
    zp_g1_jac_to_affine(out, &j);
}

static void g2_mul(zp_g2_affine *out, const zp_g2_affine *q, const uint64_t *k, size_t n)
{
    zp_g2_jac j;
    zp_g2_jac_from_affine(&j, q);
    zp_g2_jac_mul_vartime(&j, &j, k, n);
    zp_g2_jac_to_affine(out, &j);
}

/* out = a * b for little-endian limb integers (out has na + nb limbs). */
static void big_mul(uint64_t *out, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    memset(out, 0, (na + nb) * 8);
    for (size_t i = 0; i < na; i++) {
        zp__u128 c = 0;
        for (size_t j = 0; j < nb; j++) {
            c += (zp__u128)a[i] * b[j] + out[i + j];
            out[i + j] = (uint64_t)c;
            c >>= 64;
        }
        out[i + nb] = (uint64_t)c;
    }
}

static void fp12_from_small(zp_fp12 *out, uint64_t first)
{
    zp_fp *slots[12] = {
        &out->c0.c0.c0, &out->c0.c0.c1, &out->c0.c1.c0, &out->c0.c1.c1,
        &out->c0.c2.c0, &out->c0.c2.c1, &out->c1.c0.c0, &out->c1.c0.c1,
        &out->c1.c1.c0, &out->c1.c1.c1, &out->c1.c2.c0, &out->c1.c2.c1,
    };
    for (int i = 0; i < 12; i++)
        zp_fp_from_u64(slots[i], first + (uint64_t)i);
}

/* --------------------------------------------------------------- tests */

static void test_kat_generators(void)
{
    zp_g1_affine p;
    zp_g2_affine q;
    zp_fp12 e;
    zp_g1_generator(&p);
    zp_g2_generator(&q);
    zp_pairing(&e, &p, &q);
    CHECK(fp12_eq_hex(&e, KAT_E_G1_G2));
    CHECK(!zp_fp12_is_one(&e)); /* non-degenerate */

    uint64_t five = 5, seven = 7;
    zp_g1_affine p5;
    zp_g2_affine q7;
    g1_mul(&p5, &p, &five, 1);
    g2_mul(&q7, &q, &seven, 1);
    zp_pairing(&e, &p5, &q7);
    CHECK(fp12_eq_hex(&e, KAT_E_5G1_7G2));
}

/* The exponent table is only trusted after checking E * r = 3 (q^12 - 1). */
static void test_final_exp_exponent_table(void)
{
    uint64_t q12[80] = {1}, t[80];
    size_t n = 1;
    for (int k = 0; k < 12; k++) {
        big_mul(t, q12, n, ZP_FP_MODULUS.l, 6);
        n += 6;
        memcpy(q12, t, n * 8);
    }
    q12[0] -= 1; /* q^12 is odd */
    uint64_t three = 3;
    big_mul(t, q12, n, &three, 1); /* 3 (q^12 - 1), n + 1 limbs */
    uint64_t er[80];
    size_t ne = sizeof FINAL_EXP_E / 8;
    big_mul(er, FINAL_EXP_E, ne, ZP_FR_MODULUS.l, 4);
    size_t nt = n + 1, nr = ne + 4;
    size_t m = nt > nr ? nt : nr;
    for (size_t i = 0; i < m; i++) {
        uint64_t a = i < nt ? t[i] : 0, b = i < nr ? er[i] : 0;
        CHECK(a == b);
    }
}

static void test_final_exp(void)
{
    zp_fp12 f, got, want;
    fp12_from_small(&f, 1);
    zp_final_exp(&got, &f);
    CHECK(fp12_eq_hex(&got, KAT_FE_OUT));
    /* Reference twin: plain square-and-multiply by 3 (q^12 - 1)/r. */
    for (uint64_t first = 1; first <= 3; first += 2) {
        fp12_from_small(&f, first * 1000003);
        zp_final_exp(&got, &f);
        zp_fp12_pow(&want, &f, FINAL_EXP_E, sizeof FINAL_EXP_E / 8);
        CHECK(zp_fp12_eq(&got, &want));
    }
    zp_fp12_one(&f);
    zp_final_exp(&got, &f);
    CHECK(zp_fp12_is_one(&got));
}

static void test_miller_then_final_exp(void)
{
    zp_g1_affine p;
    zp_g2_affine q;
    zp_fp12 m, a, b;
    zp_g1_generator(&p);
    zp_g2_generator(&q);
    zp_miller_loop(&m, &p, &q);
    zp_final_exp(&a, &m);
    zp_pairing(&b, &p, &q);
    CHECK(zp_fp12_eq(&a, &b));
}

static void test_bilinearity(void)
{
    zp_g1_affine g1, ap, abp;
    zp_g2_affine g2, bq;
    zp_fp12 e, eab, lhs, mid;
    zp_g1_generator(&g1);
    zp_g2_generator(&g2);
    zp_pairing(&e, &g1, &g2);
    for (int it = 0; it < 3; it++) {
        uint64_t a[4], b[4], ab[4];
        rand_scalar(a);
        rand_scalar(b);
        scalar_mul(ab, a, b);
        g1_mul(&ap, &g1, a, 4);
        g2_mul(&bq, &g2, b, 4);
        g1_mul(&abp, &g1, ab, 4);
        zp_pairing(&lhs, &ap, &bq);
        zp_fp12_pow(&eab, &e, ab, 4);
        zp_pairing(&mid, &abp, &g2);
        CHECK(zp_fp12_eq(&lhs, &eab));
        CHECK(zp_fp12_eq(&mid, &eab));
        /* Linearity in each argument separately: e(aP + P, Q) = e(aP, Q) e(P, Q). */
        zp_g1_jac j;
        zp_g1_affine ap1;
        zp_g1_jac_from_affine(&j, &ap);
        zp_g1_jac_add_affine(&j, &j, &g1);
        zp_g1_jac_to_affine(&ap1, &j);
        zp_pairing(&lhs, &ap1, &bq);
        zp_pairing(&mid, &ap, &bq);
        zp_pairing(&eab, &g1, &bq);
        zp_fp12_mul(&mid, &mid, &eab);
        CHECK(zp_fp12_eq(&lhs, &mid));
    }
}

static void test_inverse_and_gt(void)
{
    zp_g1_affine p, np;
    zp_g2_affine q, nq;
    zp_fp12 e, en, t;
    uint64_t k[4];
    zp_g1_generator(&p);
    zp_g2_generator(&q);
    rand_scalar(k);
    g1_mul(&p, &p, k, 4);
    zp_g2_affine_neg(&nq, &q);
    zp_g1_affine_neg(&np, &p);
    zp_pairing(&e, &p, &q);
    zp_pairing(&en, &p, &nq);
    zp_fp12_mul(&t, &e, &en);
    CHECK(zp_fp12_is_one(&t));
    zp_pairing(&en, &np, &q);
    zp_fp12_mul(&t, &e, &en);
    CHECK(zp_fp12_is_one(&t));
    zp_fp12_conj(&t, &e); /* GT is cyclotomic: the inverse is the conjugate */
    CHECK(zp_fp12_eq(&t, &en));
    /* e^r = 1, and e != 1 */
    zp_fp12_pow(&t, &e, ZP_FR_MODULUS.l, 4);
    CHECK(zp_fp12_is_one(&t));
    CHECK(!zp_fp12_is_one(&e));
}

static void test_infinity(void)
{
    zp_g1_affine p, p0;
    zp_g2_affine q, q0;
    zp_fp12 e;
    zp_g1_generator(&p);
    zp_g2_generator(&q);
    memset(&p0, 0, sizeof p0);
    memset(&q0, 0, sizeof q0);
    zp_pairing(&e, &p0, &q);
    CHECK(zp_fp12_is_one(&e));
    zp_pairing(&e, &p, &q0);
    CHECK(zp_fp12_is_one(&e));
    zp_pairing(&e, &p0, &q0);
    CHECK(zp_fp12_is_one(&e));
    zp_miller_loop(&e, &p0, &q);
    CHECK(zp_fp12_is_one(&e));
    zp_multi_pairing(&e, &p, &q, 0);
    CHECK(zp_fp12_is_one(&e));
}

/* n pairs (a_i G1, b_i G2), with pair `inf` (if < n) given an infinity. */
static void check_multi(size_t n, size_t inf, int inf_side)
{
    zp_g1_affine p[10], g1;
    zp_g2_affine q[10], g2;
    zp_fp12 want, e, got;
    zp_g1_generator(&g1);
    zp_g2_generator(&g2);
    zp_fp12_one(&want);
    for (size_t i = 0; i < n; i++) {
        uint64_t a = check_rand64() >> 40, b = check_rand64() >> 40;
        g1_mul(&p[i], &g1, &a, 1);
        g2_mul(&q[i], &g2, &b, 1);
        if (i == inf) {
            if (inf_side == 1)
                memset(&p[i], 0, sizeof p[i]);
            else
                memset(&q[i], 0, sizeof q[i]);
        }
        zp_pairing(&e, &p[i], &q[i]);
        zp_fp12_mul(&want, &want, &e);
    }
    zp_multi_pairing(&got, p, q, n);
    CHECK(zp_fp12_eq(&got, &want));
}

static void test_multi_pairing(void)
{
    check_multi(1, 99, 0);
    check_multi(2, 99, 0);
    check_multi(3, 99, 0);
    check_multi(3, 1, 1); /* infinity in G1 in the middle */
    check_multi(3, 0, 2); /* infinity in G2 first */
    check_multi(9, 8, 1); /* crosses the 8-pair chunk, infinity last */
    check_multi(10, 99, 0);

    /* The Groth16 shape: e(aG1, bG2) e(-(ab)G1, G2) = 1. */
    zp_g1_affine p[2];
    zp_g2_affine q[2];
    zp_fp12 got;
    uint64_t a[4], b[4], ab[4];
    rand_scalar(a);
    rand_scalar(b);
    scalar_mul(ab, a, b);
    zp_g1_generator(&p[0]);
    zp_g2_generator(&q[1]);
    g1_mul(&p[1], &p[0], ab, 4);
    zp_g1_affine_neg(&p[1], &p[1]);
    g1_mul(&p[0], &p[0], a, 4);
    g2_mul(&q[0], &q[1], b, 4);
    zp_multi_pairing(&got, p, q, 2);
    CHECK(zp_fp12_is_one(&got));
    /* ...and a wrong scalar breaks it. */
    ab[0] ^= 1;
    zp_g1_generator(&p[1]);
    g1_mul(&p[1], &p[1], ab, 4);
    zp_g1_affine_neg(&p[1], &p[1]);
    zp_multi_pairing(&got, p, q, 2);
    CHECK(!zp_fp12_is_one(&got));
}

/*
 * n plain pairs and m pairs with lines made ahead (random full-width
 * multiples of the generators); the pair at index inf of all n + m gets an
 * infinity on side inf_side (1: G1, 2: G2). The prepared loop must give the
 * plain multi-pair Miller loop's Fp12 bytes exactly, and the product of the
 * one-pair loops: the lines are the plain loop's, only made earlier.
 */
static void check_prepared(size_t n, size_t m, size_t inf, int inf_side)
{
    enum { MAX = 12 };
    zp_g1_affine p[MAX], g1;
    zp_g2_affine q[MAX], g2;
    static zp__g2_lines lines[MAX];
    const zp__g2_lines *r[MAX];
    zp_g1_generator(&g1);
    zp_g2_generator(&g2);
    for (size_t i = 0; i < n + m; i++) {
        uint64_t a[4], b[4];
        rand_scalar(a);
        rand_scalar(b);
        g1_mul(&p[i], &g1, a, 4);
        g2_mul(&q[i], &g2, b, 4);
        if (i == inf)
            memset(inf_side == 1 ? (void *)&p[i] : (void *)&q[i], 0,
                   inf_side == 1 ? sizeof p[i] : sizeof q[i]);
    }
    for (size_t j = 0; j < m; j++) {
        zp__g2_lines_make(&lines[j], &q[n + j]);
        r[j] = &lines[j];
    }
    zp_fp12 got, plain, one_by_one, f, e_got, e_plain;
    zp__miller_prepared(&got, p, q, n, p + n, r, m);
    zp__miller_prepared(&plain, p, q, n + m, NULL, NULL, 0);
    CHECK_MEM(&got, &plain, sizeof got);
    zp_fp12_one(&one_by_one);
    for (size_t i = 0; i < n + m; i++) {
        zp_miller_loop(&f, &p[i], &q[i]);
        zp_fp12_mul(&one_by_one, &one_by_one, &f);
    }
    CHECK_MEM(&got, &one_by_one, sizeof got);
    zp_final_exp(&e_got, &got);
    zp_multi_pairing(&e_plain, p, q, n + m);
    CHECK_MEM(&e_got, &e_plain, sizeof e_got);
}

static void test_prepared_lines(void)
{
    check_prepared(1, 2, 99, 0); /* the Groth16 verifier's shape */
    check_prepared(0, 1, 99, 0);
    check_prepared(0, 3, 99, 0);
    check_prepared(2, 0, 99, 0);
    check_prepared(1, 2, 1, 1); /* a prepared pair's G1 point is infinity */
    check_prepared(1, 2, 2, 2); /* lines of infinity */
    check_prepared(1, 2, 0, 1); /* the plain pair's G1 point is infinity */
    check_prepared(1, 2, 0, 2);
    check_prepared(3, 9, 99, 0); /* crosses the 8-pair chunk */
    check_prepared(9, 3, 11, 2);
    check_prepared(0, 1, 0, 2);  /* nothing left: 1 */
    for (int k = 0; k < 4; k++)
        check_prepared(1 + (size_t)k % 2, 2 + (size_t)k, 99, 0);
}

int main(void)
{
    RUN(test_kat_generators);
    RUN(test_final_exp_exponent_table);
    RUN(test_final_exp);
    RUN(test_miller_then_final_exp);
    RUN(test_bilinearity);
    RUN(test_inverse_and_gt);
    RUN(test_infinity);
    RUN(test_multi_pairing);
    RUN(test_prepared_lines);
    return FINISH();
}
