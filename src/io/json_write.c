/*
 * snarkjs JSON writers: proof.json, public.json, verification_key.json,
 * laid out byte for byte as snarkjs writes them (JSON.stringify with an
 * indent of one space, no final newline), so files from either tool diff
 * cleanly. Points are affine, standard form, decimal; infinity is written
 * the way ffjavascript writes it: G1 [0, 1, 0], G2 [[0,0],[1,0],[0,0]].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

#define JW_MAX_DEPTH 8

/* A pretty-printer with JSON.stringify(value, null, 1)'s layout. */
typedef struct jw {
    zp__sb sb;
    int depth;
    bool after_key;
    bool empty[JW_MAX_DEPTH]; /* no item written yet at this depth */
} jw;

static void jw_sep(jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0)
        return;
    zp__sb_puts(&w->sb, w->empty[w->depth] ? "\n" : ",\n");
    w->empty[w->depth] = false;
    for (int i = 0; i < w->depth; i++)
        zp__sb_putc(&w->sb, ' ');
}

static void jw_open(jw *w, char c)
{
    jw_sep(w);
    zp__sb_putc(&w->sb, c);
    w->depth++;
    w->empty[w->depth] = true;
}

static void jw_close(jw *w, char c)
{
    if (!w->empty[w->depth]) {
        zp__sb_putc(&w->sb, '\n');
        for (int i = 0; i < w->depth - 1; i++)
            zp__sb_putc(&w->sb, ' ');
    }
    w->depth--;
    zp__sb_putc(&w->sb, c);
}

static void jw_key(jw *w, const char *k)
{
    jw_sep(w);
    zp__sb_json_str(&w->sb, k, strlen(k));
    zp__sb_puts(&w->sb, ": ");
    w->after_key = true;
}

static void jw_str(jw *w, const char *s)
{
    jw_sep(w);
    zp__sb_json_str(&w->sb, s, strlen(s));
}

static void jw_raw(jw *w, const char *s)
{
    jw_sep(w);
    zp__sb_puts(&w->sb, s);
}

static void jw_fp(jw *w, const zp_fp *a)
{
    char d[ZP__FP_DEC_MAX];
    zp__fp_to_dec(d, a);
    jw_str(w, d);
}

static void jw_fp2(jw *w, const zp_fp2 *a)
{
    jw_open(w, '[');
    jw_fp(w, &a->c0);
    jw_fp(w, &a->c1);
    jw_close(w, ']');
}

static void jw_g1(jw *w, const zp_g1_affine *p)
{
    jw_open(w, '[');
    if (zp_g1_affine_is_inf(p)) {
        jw_str(w, "0");
        jw_str(w, "1");
        jw_str(w, "0");
    } else {
        jw_fp(w, &p->x);
        jw_fp(w, &p->y);
        jw_str(w, "1");
    }
    jw_close(w, ']');
}

static void jw_g2(jw *w, const zp_g2_affine *p)
{
    bool inf = zp_g2_affine_is_inf(p);
    zp_fp2 zero, one;
    zp_fp2_zero(&zero);
    zp_fp2_one(&one);
    jw_open(w, '[');
    jw_fp2(w, inf ? &zero : &p->x);
    jw_fp2(w, inf ? &one : &p->y);
    jw_fp2(w, inf ? &zero : &one);
    jw_close(w, ']');
}

static void jw_fp12(jw *w, const zp_fp12 *a)
{
    const zp_fp6 *h[2] = {&a->c0, &a->c1};
    jw_open(w, '[');
    for (int i = 0; i < 2; i++) {
        jw_open(w, '[');
        jw_fp2(w, &h[i]->c0);
        jw_fp2(w, &h[i]->c1);
        jw_fp2(w, &h[i]->c2);
        jw_close(w, ']');
    }
    jw_close(w, ']');
}

static zp_err jw_finish(jw *w, char **out, size_t *len)
{
    if (w->sb.oom) {
        free(w->sb.p);
        return ZP_E_NOMEM;
    }
    *out = w->sb.p;
    *len = w->sb.len;
    return ZP_OK;
}

zp_err zp__proof_to_json(char **out, size_t *len, const zp__proof *p)
{
    jw w = {0};
    jw_open(&w, '{');
    jw_key(&w, "pi_a");
    jw_g1(&w, &p->a);
    jw_key(&w, "pi_b");
    jw_g2(&w, &p->b);
    jw_key(&w, "pi_c");
    jw_g1(&w, &p->c);
    jw_key(&w, "protocol");
    jw_str(&w, "groth16");
    jw_key(&w, "curve");
    jw_str(&w, "bls12381");
    jw_close(&w, '}');
    return jw_finish(&w, out, len);
}

zp_err zp__public_to_json(char **out, size_t *len, const zp_fr *pub, size_t n)
{
    jw w = {0};
    jw_open(&w, '[');
    for (size_t i = 0; i < n; i++) {
        char d[ZP__FR_DEC_MAX];
        zp__fr_to_dec(d, &pub[i]);
        jw_str(&w, d);
    }
    jw_close(&w, ']');
    return jw_finish(&w, out, len);
}

zp_err zp__vk_to_json(char **out, size_t *len, const zp__vk *vk)
{
    if (vk->n_ic == 0)
        return ZP_E_INVALID_ARG;
    char num[16];
    snprintf(num, sizeof num, "%u", vk->n_ic - 1);
    zp_fp12 ab;
    zp_pairing(&ab, &vk->alpha1, &vk->beta2);
    jw w = {0};
    jw_open(&w, '{');
    jw_key(&w, "protocol");
    jw_str(&w, "groth16");
    jw_key(&w, "curve");
    jw_str(&w, "bls12381");
    jw_key(&w, "nPublic");
    jw_raw(&w, num);
    jw_key(&w, "vk_alpha_1");
    jw_g1(&w, &vk->alpha1);
    jw_key(&w, "vk_beta_2");
    jw_g2(&w, &vk->beta2);
    jw_key(&w, "vk_gamma_2");
    jw_g2(&w, &vk->gamma2);
    jw_key(&w, "vk_delta_2");
    jw_g2(&w, &vk->delta2);
    jw_key(&w, "vk_alphabeta_12");
    jw_fp12(&w, &ab);
    jw_key(&w, "IC");
    jw_open(&w, '[');
    for (uint32_t i = 0; i < vk->n_ic; i++)
        jw_g1(&w, &vk->ic[i]);
    jw_close(&w, ']');
    jw_close(&w, '}');
    return jw_finish(&w, out, len);
}

/* Serialises with fn and writes the text atomically. */
static zp_err save_text(const char *path, zp_err e, char *text, size_t len, zp__ioerr *why)
{
    if (e)
        return zp__fail(why, e, "%s: %s", path, zp_strerror(e));
    e = zp__file_write_atomic(path, text, len, why);
    free(text);
    return e;
}

zp_err zp__proof_json_save(const char *path, const zp__proof *p, zp__ioerr *why)
{
    char *t = NULL;
    size_t n = 0;
    zp_err e = zp__proof_to_json(&t, &n, p);
    return save_text(path, e, t, n, why);
}

zp_err zp__public_json_save(const char *path, const zp_fr *pub, size_t n, zp__ioerr *why)
{
    char *t = NULL;
    size_t len = 0;
    zp_err e = zp__public_to_json(&t, &len, pub, n);
    return save_text(path, e, t, len, why);
}

zp_err zp__vk_json_save(const char *path, const zp__vk *vk, zp__ioerr *why)
{
    char *t = NULL;
    size_t n = 0;
    zp_err e = zp__vk_to_json(&t, &n, vk);
    return save_text(path, e, t, n, why);
}
