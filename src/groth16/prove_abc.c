/*
 * The CPU prover from evaluated a, b, c (abc.h): the eval stage replaced by
 * a copy of the caller's a, b, c, the density maps made from bellperson's
 * three bitmaps, then the stages of prove.c and prove_msm.c unchanged.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/pool.h"
#include "groth16/abc.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Set bits of the first nbits bits of words. */
static uint64_t popcount_bits(const uint64_t *words, uint64_t nbits)
{
    uint64_t n = 0, full = nbits / 64;
    for (uint64_t i = 0; i < full; i++)
        n += (uint64_t)__builtin_popcountll(words[i]);
    if (nbits % 64)
        n += (uint64_t)__builtin_popcountll(words[full] & ((1ULL << (nbits % 64)) - 1));
    return n;
}

static zp_err check_map(const char *name, const uint64_t *words, uint64_t bits, uint64_t pop,
                        uint64_t want_bits, const char *of, zp__ioerr *why)
{
    if (bits != want_bits)
        return zp__fail(why, ZP_E_BAD_LENGTH,
                        "the %s density has %llu bits; the %s has %llu values", name,
                        (unsigned long long)bits, of, (unsigned long long)want_bits);
    if (bits && !words)
        return zp__fail(why, ZP_E_INVALID_ARG, "the %s density is a null pointer", name);
    uint64_t have = bits ? popcount_bits(words, bits) : 0;
    if (have != pop)
        return zp__fail(why, ZP_E_BAD_LENGTH,
                        "the %s density has %llu bits set, not the %llu given", name,
                        (unsigned long long)have, (unsigned long long)pop);
    return ZP_OK;
}

zp_err zp__abc_check(const zp__abc_in *in, const zp__pk *pk, zp__ioerr *why)
{
    if (!in)
        return zp__fail(why, ZP_E_INVALID_ARG, "the assignment is a null pointer");
    uint64_t n_inp = (uint64_t)pk->n_public + 1;
    if (in->n_inp != n_inp || in->n_inp + in->n_aux != pk->n_vars)
        return zp__fail(why, ZP_E_WITNESS,
                        "%llu inputs and %llu aux values; the key has %llu inputs and %llu aux "
                        "variables", (unsigned long long)in->n_inp,
                        (unsigned long long)in->n_aux, (unsigned long long)n_inp,
                        (unsigned long long)(pk->n_vars - n_inp));
    if (!in->inp || (in->n_aux && !in->aux))
        return zp__fail(why, ZP_E_INVALID_ARG, "the input or aux assignment is a null pointer");
    if (!in->a || !in->b || !in->c)
        return zp__fail(why, ZP_E_INVALID_ARG, "a, b or c is a null pointer");
    if (in->abc_size > pk->domain_size)
        return zp__fail(why, ZP_E_BAD_LENGTH, "abc_size %llu exceeds the key's domain of %llu",
                        (unsigned long long)in->abc_size, (unsigned long long)pk->domain_size);
    zp_err e;
    if ((e = check_map("A aux", in->a_aux, in->a_aux_bits, in->a_aux_pop, in->n_aux,
                       "aux assignment", why)) ||
        (e = check_map("B input", in->b_inp, in->b_inp_bits, in->b_inp_pop, in->n_inp,
                       "input assignment", why)) ||
        (e = check_map("B aux", in->b_aux, in->b_aux_bits, in->b_aux_pop, in->n_aux,
                       "aux assignment", why)))
        return e;
    if (in->n_inp + in->a_aux_pop != pk->n_a)
        return zp__fail(why, ZP_E_BAD_LENGTH,
                        "%llu inputs + %llu aux in A make %llu A points; the key has %llu",
                        (unsigned long long)in->n_inp, (unsigned long long)in->a_aux_pop,
                        (unsigned long long)(in->n_inp + in->a_aux_pop),
                        (unsigned long long)pk->n_a);
    if (in->b_inp_pop + in->b_aux_pop != pk->n_b)
        return zp__fail(why, ZP_E_BAD_LENGTH,
                        "%llu inputs + %llu aux in B make %llu B points; the key has %llu",
                        (unsigned long long)in->b_inp_pop, (unsigned long long)in->b_aux_pop,
                        (unsigned long long)(in->b_inp_pop + in->b_aux_pop),
                        (unsigned long long)pk->n_b);
    if (!zp_fr_is_one(&in->inp[0]))
        return zp__fail(why, ZP_E_WITNESS, "the input assignment does not start with ONE");
    return ZP_OK;
}

/* Bits [0, n) of src into dst from bit `at` on (dst zeroed there), a word
 * at a time: at porep:27 the maps are 130 M bits each, made per proof. */
static void put_bits(zp__bitmap *dst, uint64_t at, const uint64_t *src, uint64_t n)
{
    const unsigned sh = (unsigned)(at % 64);
    uint64_t *d = dst->words + at / 64;
    for (uint64_t k = 0; k * 64 < n; k++) {
        uint64_t v = src[k];
        if (n - k * 64 < 64)
            v &= (1ULL << (n - k * 64)) - 1; /* the bits past n are not ours */
        d[k] |= v << sh;
        if (sh && (v >> (64 - sh)))
            d[k + 1] |= v >> (64 - sh);
    }
}

/* The reference: bit by bit. */
static void put_bits_ref(zp__bitmap *dst, uint64_t at, const uint64_t *src, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (src[i / 64] >> (i % 64) & 1)
            zp__bitmap_set(dst, at + i);
}

static zp_err density(zp__bitmap *a, zp__bitmap *b, const zp__abc_in *in,
                      void (*put)(zp__bitmap *, uint64_t, const uint64_t *, uint64_t))
{
    uint64_t n = in->n_inp + in->n_aux;
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    if (zp__bitmap_alloc(a, n) || zp__bitmap_alloc(b, n)) {
        zp__bitmap_free(a);
        zp__bitmap_free(b);
        return ZP_E_NOMEM;
    }
    for (uint64_t i = 0; i < in->n_inp; i++)
        zp__bitmap_set(a, i);
    put(a, in->n_inp, in->a_aux, in->n_aux);
    put(b, 0, in->b_inp, in->n_inp);
    put(b, in->n_inp, in->b_aux, in->n_aux);
    return ZP_OK;
}

zp_err zp__abc_density(zp__bitmap *a, zp__bitmap *b, const zp__abc_in *in)
{
    return density(a, b, in, put_bits);
}

zp_err zp__abc_density_ref(zp__bitmap *a, zp__bitmap *b, const zp__abc_in *in)
{
    return density(a, b, in, put_bits_ref);
}

void zp__abc_witness(zp_fr *w, const zp__abc_in *in, int threads)
{
    /* Several threads: at porep:27 it is 4 GiB, copied per proof. */
    zp__parallel_memcpy(w, in->inp, (size_t)in->n_inp * sizeof(zp_fr), threads);
    zp__parallel_memcpy(w + in->n_inp, in->aux, (size_t)in->n_aux * sizeof(zp_fr), threads);
}

typedef struct load_ctx {
    zp_fr *dst[3];
    const zp_fr *src[3];
    uint64_t m;
} load_ctx;

static void load_task(void *p, size_t begin, size_t end)
{
    const load_ctx *x = p;
    size_t cp_end = end < x->m ? end : (size_t)x->m;
    for (int k = 0; k < 3; k++) {
        if (begin < cp_end)
            memcpy(x->dst[k] + begin, x->src[k] + begin, (cp_end - begin) * sizeof(zp_fr));
        size_t z = begin > cp_end ? begin : cp_end;
        if (z < end)
            memset(x->dst[k] + z, 0, (end - z) * sizeof(zp_fr));
    }
}

void zp__abc_load(zp_fr *a, zp_fr *b, zp_fr *c, const zp__abc_in *in, uint64_t domain_size,
                  int threads)
{
    load_ctx x = {{a, b, c}, {in->a, in->b, in->c}, in->abc_size};
    zp__parallel_for((size_t)domain_size, 1 << 16, load_task, &x, threads);
}

bool zp__abc_key_ok(const zp__pk *pk)
{
    /* zp__pk_counts_ok less the density maps' part: they come with each
     * proof (zp__abc_check compares their popcounts with n_a, n_b). */
    uint64_t n = pk->domain_size;
    if (!n || (n & (n - 1)) || pk->n_public >= pk->n_vars ||
        pk->vk.n_ic != (uint64_t)pk->n_public + 1 || !pk->vk.ic)
        return false;
    if (pk->roots != ZP_ROOTS_SNARKJS && pk->roots != ZP_ROOTS_BELLPERSON)
        return false;
    uint64_t want_h = pk->h_conv == ZP_H_COSET ? n : pk->h_conv == ZP_H_TAU ? n - 1 : 0;
    if (!want_h || pk->n_h != want_h || pk->n_l != (uint64_t)pk->n_vars - pk->n_public - 1)
        return false;
    if (pk->n_a > pk->n_vars || pk->n_b > pk->n_vars)
        return false;
    return (!pk->n_a || pk->a) && (!pk->n_b || (pk->b1 && pk->b2)) && (!pk->n_l || pk->l) &&
           (!pk->n_h || pk->h);
}

void zp__abc_view(zp__pk *view, const zp__pk *pk, const zp__bitmap *a, const zp__bitmap *b)
{
    memcpy(view, pk, sizeof *view);
    view->a_density = *a;
    view->b_density = *b;
}

static zp_err run(zp__proof *out, const zp__pk *pk, const zp__abc_in *in, zp_fr *w,
                  const zp__prove_opts *o, zp__prove_times *t, zp__ioerr *why)
{
    size_t n = (size_t)pk->domain_size;
    if (n > SIZE_MAX / (3 * sizeof(zp_fr)))
        return zp__fail(why, ZP_E_TOO_LARGE, "domain of %zu is too large", n);
    zp__bitmap da, db;
    if (zp__abc_density(&da, &db, in))
        return zp__fail(why, ZP_E_NOMEM, "no memory for the density maps");
    zp_fr *abc = malloc(3 * n * sizeof *abc);
    if (!abc) {
        zp__bitmap_free(&da);
        zp__bitmap_free(&db);
        return zp__fail(why, ZP_E_NOMEM, "no memory for the a, b, c arrays of %zu values", n);
    }
    zp_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    zp__abc_witness(w, in, o->threads);
    double t0 = now();
    zp__abc_load(a, b, c, in, n, o->threads);
    double t1 = now();
    t->eval = t1 - t0;
    zp_err e = zp__g16_h(a, a, b, c, pk, o->threads);
    t->h = now() - t1;
    zp__g16_sums sums;
    zp__pk view;
    zp__abc_view(&view, pk, &da, &db);
    if (!e)
        e = zp__g16_msm(&sums, &view, w, a, o->threads, t);
    free(abc);
    zp__bitmap_free(&da);
    zp__bitmap_free(&db);
    if (e)
        return zp__fail(why, e, "proving failed: %s", zp_strerror(e));
    return zp__g16_finish_verify(out, pk, &sums, w, o, t, why);
}

zp_err zp__prove_abc(zp__proof *out, const zp__pk *pk, const zp__abc_in *in,
                     const zp__prove_opts *opt, zp__prove_times *times, zp__ioerr *why)
{
    zp__prove_opts def;
    zp__prove_times t;
    memset(&t, 0, sizeof t);
    if (!opt) {
        zp__prove_opts_default(&def);
        opt = &def;
    }
    zp_err e = ZP_OK;
    if (!zp__abc_key_ok(pk))
        e = zp__fail(why, ZP_E_INVALID_ARG,
                     "the proving key's counts disagree or its points are not on the host");
    else if ((opt->r == NULL) != (opt->s == NULL))
        e = zp__fail(why, ZP_E_INVALID_ARG, "fix both blinding factors r and s, or neither");
    if (!e)
        e = zp__abc_check(in, pk, why);
    zp_fr *w = NULL;
    if (!e && !(w = malloc(((size_t)pk->n_vars + 1) * sizeof *w)))
        e = zp__fail(why, ZP_E_NOMEM, "no memory for a witness of %u values", pk->n_vars);
    if (!e)
        e = run(out, pk, in, w, opt, &t, why);
    free(w);
    if (times)
        *times = t;
    return e;
}
