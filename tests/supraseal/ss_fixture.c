/*
 * Writes what the Rust crate's tests (rust/supraseal-c2) prove from: a
 * synthetic circuit's TEST-ONLY key as a .params, and for each of its
 * circuits bellperson's side of the boundary (tests/test_abc_util.h) with
 * zkpipe's native proof for the same r and s, which the crate's proofs
 * must equal byte for byte.
 *
 * usage: ss_fixture DIR [SPEC [CIRCUITS]]   (defaults porep:8, 3)
 *
 * DIR/circuit.params   the key
 * DIR/meta.txt         "key value" lines: circuits, abc_size, n_inp, n_aux,
 *                      a_aux_pop, b_inp_pop, b_aux_pop, a_aux_words,
 *                      b_inp_words, b_aux_words
 * DIR/maps.bin         the three density bitmaps' words (u64, little
 *                      endian), a_aux then b_inp then b_aux
 * DIR/N.abc            circuit N's a, b, c (abc_size scalars each)
 * DIR/N.w              its input then aux assignments
 * DIR/N.rs             its r then s
 * DIR/N.proof          the native proof, 384 bytes
 * Scalars are 32 bytes, Montgomery form, as the boundary takes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/bellperson.h"
/* The fixture helpers come with the test harness's counters, unused here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#include "test_abc_util.h"
#pragma GCC diagnostic pop

static void die(const char *what)
{
    fprintf(stderr, "ss_fixture: %s\n", what);
    exit(1);
}

static void put(const char *dir, const char *name, const void *p, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(p, 1, len, f) != len) || fclose(f))
        die(path);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: ss_fixture DIR [SPEC [CIRCUITS]]\n");
        return 2;
    }
    const char *dir = argv[1], *spec = argc > 2 ? argv[2] : "porep:8";
    const long n = argc > 3 ? strtol(argv[3], NULL, 10) : 3;
    if (n < 1 || n > 16)
        die("CIRCUITS is 1..16");
    mkdir(dir, 0700);
    g16_fix fix;
    if (fix_make(&fix, spec, ZP_H_TAU, 1))
        die("the circuit or its key");
    char path[512];
    snprintf(path, sizeof path, "%s/circuit.params", dir);
    if (zp__params_save(path, &fix.pk, 1, NULL))
        die(path);
    const uint64_t n_inp = (uint64_t)fix.cs.n_public + 1, n_aux = fix.cs.n_vars - n_inp;
    const uint64_t wa = n_aux / 64 + 1, wi = n_inp / 64 + 1;
    for (long i = 0; i < n; i++) {
        zp_fr *w = malloc((size_t)fix.cs.n_vars * sizeof *w);
        if (!w || zp__synth_witness(w, &fix.cs, &fix.sp, 10 + (uint64_t)i))
            die("a witness");
        abc_fix x;
        abc_fix_make(&x, &fix.cs, w);
        if (i == 0) {
            FILE *f;
            snprintf(path, sizeof path, "%s/meta.txt", dir);
            if (!(f = fopen(path, "w")))
                die(path);
            fprintf(f, "circuits %ld\nabc_size %llu\nn_inp %llu\nn_aux %llu\n", n,
                    (unsigned long long)x.in.abc_size, (unsigned long long)n_inp,
                    (unsigned long long)n_aux);
            fprintf(f, "a_aux_pop %llu\nb_inp_pop %llu\nb_aux_pop %llu\n",
                    (unsigned long long)x.in.a_aux_pop, (unsigned long long)x.in.b_inp_pop,
                    (unsigned long long)x.in.b_aux_pop);
            fprintf(f, "a_aux_words %llu\nb_inp_words %llu\nb_aux_words %llu\n",
                    (unsigned long long)wa, (unsigned long long)wi, (unsigned long long)wa);
            if (fclose(f))
                die(path);
            put(dir, "maps.bin", x.maps, (2 * wa + wi) * sizeof(uint64_t));
        }
        zp_fr rs[2];
        fr_u64(&rs[0], 7 + 2 * (uint64_t)i);
        fr_u64(&rs[1], 70 + 3 * (uint64_t)i);
        zp__prove_opts o;
        zp__prove_opts_default(&o);
        o.r = &rs[0];
        o.s = &rs[1];
        o.threads = 1;
        zp__proof p;
        if (zp__prove(&p, &fix.pk, w, fix.pk.n_vars, &o, NULL, NULL))
            die("the native proof");
        uint8_t proof[384];
        memcpy(proof, &p.a, 96);
        memcpy(proof + 96, &p.b, 192);
        memcpy(proof + 288, &p.c, 96);
        char name[32];
        snprintf(name, sizeof name, "%ld.abc", i);
        put(dir, name, x.abc, 3 * x.in.abc_size * sizeof(zp_fr));
        snprintf(name, sizeof name, "%ld.w", i);
        put(dir, name, w, (size_t)fix.cs.n_vars * sizeof(zp_fr));
        snprintf(name, sizeof name, "%ld.rs", i);
        put(dir, name, rs, sizeof rs);
        snprintf(name, sizeof name, "%ld.proof", i);
        put(dir, name, proof, sizeof proof);
        abc_fix_free(&x);
        free(w);
    }
    fix_free(&fix);
    return 0;
}
