/*
 * Proving from a, b, c (groth16/abc.h) against proving from the R1CS and
 * the witness: for the same circuit, fixed r and s, the proofs must be
 * equal byte for byte, with the key zkpipe made and with that key written
 * as a bellperson .params and read back (no maps, no matrices: the maps
 * come from the bitmaps, the point order from the file). Then every input
 * check and a witness that does not satisfy the circuit.
 */
#include <stdio.h>
#include <unistd.h>

#include "io/bellperson.h"
#include "test_abc_util.h"

static const char *const SPECS[] = {"porep:8", "dense:5", "chain:6"};

/* The native proof and the one from a, b, c with key k; equal bytes. */
static void same_proof(const g16_fix *f, const zp__pk *k, const abc_fix *x, uint64_t seed)
{
    zp_fr r, s;
    fr_u64(&r, 1000 + seed);
    fr_u64(&s, 2000 + seed);
    zp__prove_opts o;
    zp__prove_opts_default(&o);
    o.r = &r;
    o.s = &s;
    o.threads = 2;
    zp__proof p1, p2;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__prove(&p1, &f->pk, f->w, f->pk.n_vars, &o, NULL, &why), ZP_OK);
    zp_err e = zp__prove_abc(&p2, k, &x->in, &o, NULL, &why);
    if (e)
        fprintf(stderr, "prove_abc: %s\n", why.msg);
    CHECK_EQ_INT(e, ZP_OK);
    uint8_t b1[ZP__PROOF_BYTES], b2[ZP__PROOF_BYTES];
    CHECK_EQ_INT(zp__proof_encode(b1, &p1), ZP_OK);
    CHECK_EQ_INT(zp__proof_encode(b2, &p2), ZP_OK);
    CHECK_MEM(b1, b2, ZP__PROOF_BYTES);
}

static void test_same_as_native(void)
{
    for (size_t i = 0; i < sizeof SPECS / sizeof *SPECS; i++) {
        for (int conv = 0; conv < 2; conv++) {
            g16_fix f;
            CHECK(fix_make(&f, SPECS[i], conv ? ZP_H_TAU : ZP_H_COSET, 5 + i) == 0);
            abc_fix x;
            abc_fix_make(&x, &f.cs, f.w);
            /* The bitmaps map onto the key's density maps. */
            zp__bitmap da, db;
            CHECK_EQ_INT(zp__abc_check(&x.in, &f.pk, NULL), ZP_OK);
            CHECK_EQ_INT(zp__abc_density(&da, &db, &x.in), ZP_OK);
            size_t words = (size_t)f.pk.n_vars / 64 + 1;
            CHECK_MEM(da.words, f.pk.a_density.words, words * 8);
            CHECK_MEM(db.words, f.pk.b_density.words, words * 8);
            zp__bitmap_free(&da);
            zp__bitmap_free(&db);
            CHECK_EQ_INT(x.in.abc_size, f.pk.ma.nrows);
            same_proof(&f, &f.pk, &x, i);
            if (conv) { /* through a .params file */
                char path[64];
                snprintf(path, sizeof path, "/tmp/zp-abc-%d.params", (int)getpid());
                zp__pk back;
                CHECK_EQ_INT(zp__params_save(path, &f.pk, 2, NULL), ZP_OK);
                CHECK_EQ_INT(zp__params_load(&back, path, 2, NULL), ZP_OK);
                unlink(path);
                CHECK(back.a_density.nbits == 0 && back.ma.nrows == 0);
                CHECK(zp__abc_key_ok(&back));
                same_proof(&f, &back, &x, i + 10);
                zp__pk_free(&back);
            }
            abc_fix_free(&x);
            fix_free(&f);
        }
    }
}

/* abc_size below the domain is zero-padded; at the domain it is taken as
 * is (trailing zero rows given explicitly give the same proof). */
static void test_padding(void)
{
    g16_fix f;
    CHECK(fix_make(&f, "porep:8", ZP_H_TAU, 3) == 0);
    abc_fix x;
    abc_fix_make(&x, &f.cs, f.w);
    uint64_t n = f.pk.domain_size, m = x.in.abc_size;
    CHECK(m < n);
    zp_fr *full = calloc(3 * n, sizeof *full);
    memcpy(full, x.in.a, m * sizeof *full);
    memcpy(full + n, x.in.b, m * sizeof *full);
    memcpy(full + 2 * n, x.in.c, m * sizeof *full);
    abc_fix y = x;
    y.in.a = full;
    y.in.b = full + n;
    y.in.c = full + 2 * n;
    y.in.abc_size = n;
    same_proof(&f, &f.pk, &y, 1);
    same_proof(&f, &f.pk, &x, 1);
    free(full);
    abc_fix_free(&x);
    fix_free(&f);
}

static zp_err try_abc(const g16_fix *f, const zp__abc_in *in, const char *want)
{
    zp__proof p;
    zp__ioerr why = {{0}};
    zp_err e = zp__prove_abc(&p, &f->pk, in, NULL, NULL, &why);
    if (want && !strstr(why.msg, want)) {
        fprintf(stderr, "message \"%s\" does not name \"%s\"\n", why.msg, want);
        CHECK(0);
    }
    return e;
}

static void test_bad_inputs(void)
{
    g16_fix f;
    CHECK(fix_make(&f, "porep:8", ZP_H_TAU, 9) == 0);
    abc_fix x;
    abc_fix_make(&x, &f.cs, f.w);
    zp__abc_in in;

    in = x.in;
    in.a_aux_pop++;
    CHECK_EQ_INT(try_abc(&f, &in, "A aux density"), ZP_E_BAD_LENGTH);
    in = x.in;
    in.b_inp_bits--;
    CHECK_EQ_INT(try_abc(&f, &in, "B input density"), ZP_E_BAD_LENGTH);
    in = x.in;
    in.b_aux_bits++;
    CHECK_EQ_INT(try_abc(&f, &in, "B aux density"), ZP_E_BAD_LENGTH);
    in = x.in;
    in.abc_size = f.pk.domain_size + 1;
    CHECK_EQ_INT(try_abc(&f, &in, "abc_size"), ZP_E_BAD_LENGTH);
    in = x.in;
    in.b = NULL;
    CHECK_EQ_INT(try_abc(&f, &in, "null"), ZP_E_INVALID_ARG);
    in = x.in;
    in.b_aux = NULL;
    CHECK_EQ_INT(try_abc(&f, &in, "null"), ZP_E_INVALID_ARG);
    in = x.in;
    in.n_aux--;
    CHECK_EQ_INT(try_abc(&f, &in, "aux"), ZP_E_WITNESS);
    CHECK_EQ_INT(try_abc(&f, NULL, "null"), ZP_E_INVALID_ARG);

    /* A bit moved: same popcount, wrong variable set; the point counts
     * still agree, so only the proof's verification can tell. */
    uint64_t *words = (uint64_t *)x.in.a_aux;
    uint64_t i = 0;
    while (!(words[i / 64] >> (i % 64) & 1) || (words[(i + 1) / 64] >> ((i + 1) % 64) & 1))
        i++;
    words[i / 64] ^= 1ULL << (i % 64);
    words[(i + 1) / 64] ^= 1ULL << ((i + 1) % 64);
    CHECK_EQ_INT(try_abc(&f, &x.in, "does not verify"), ZP_E_UNSATISFIED);
    words[i / 64] ^= 1ULL << (i % 64);
    words[(i + 1) / 64] ^= 1ULL << ((i + 1) % 64);

    /* A witness that does not satisfy the circuit. */
    zp_fr keep = x.abc[0];
    zp_fr_add(&x.abc[0], &x.abc[0], &x.abc[0]);
    zp_fr_add(&x.abc[0], &x.abc[0], &f.w[0]);
    CHECK_EQ_INT(try_abc(&f, &x.in, "does not verify"), ZP_E_UNSATISFIED);
    x.abc[0] = keep;
    zp_fr_add(&((zp_fr *)x.in.aux)[0], &x.in.aux[0], &f.w[0]);
    CHECK_EQ_INT(try_abc(&f, &x.in, "does not verify"), ZP_E_UNSATISFIED);
    abc_fix_free(&x);
    fix_free(&f);
}

/* The word-wise maps against the bit-by-bit reference, at every input
 * count's offset mod 64 and with garbage past each bitmap's bit length. */
static void test_density_ref(void)
{
    for (uint64_t n_inp = 1; n_inp <= 130; n_inp += 3) {
        for (uint64_t n_aux = 0; n_aux <= 200; n_aux += 67) {
            uint64_t words[3][5];
            for (int k = 0; k < 3; k++)
                for (int i = 0; i < 5; i++)
                    words[k][i] = check_rand64();
            zp__abc_in in = {.a_aux = words[0], .b_inp = words[1], .b_aux = words[2],
                             .n_inp = n_inp, .n_aux = n_aux};
            zp__bitmap a1, b1, a2, b2;
            CHECK_EQ_INT(zp__abc_density(&a1, &b1, &in), ZP_OK);
            CHECK_EQ_INT(zp__abc_density_ref(&a2, &b2, &in), ZP_OK);
            size_t nw = (size_t)(n_inp + n_aux) / 64 + 1;
            CHECK_MEM(a1.words, a2.words, nw * 8);
            CHECK_MEM(b1.words, b2.words, nw * 8);
            zp__bitmap_free(&a1);
            zp__bitmap_free(&b1);
            zp__bitmap_free(&a2);
            zp__bitmap_free(&b2);
        }
    }
}

int main(void)
{
    RUN(test_density_ref);
    RUN(test_same_as_native);
    RUN(test_padding);
    RUN(test_bad_inputs);
    return FINISH();
}
