/*
 * Reading the known-answer vector files of tests/vectors/ (format in
 * README.md there): one vector per line, "op args... -> results...",
 * '#' comments. Only test_vectors.c includes this; it keeps the parsing
 * apart from the checks so that both stay short.
 */
#ifndef ZP_TESTS_VREADER_H
#define ZP_TESTS_VREADER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"
#include "check.h"

#define VR_MAX_OPS 24
#define VR_MAX_PRINTED 12 /* failing vectors shown per file; the rest are counted */

/* One file being checked: where we are, and what was seen. */
typedef struct vfile {
    const char *name;
    unsigned long lineno;
    const char *op;
    const char *ops[VR_MAX_OPS];
    unsigned long counts[VR_MAX_OPS];
    int nops;
    unsigned long failed;
} vfile;

/* One parsed line: the op, its arguments, and what "->" promises. */
typedef struct vec {
    const char *op;
    char **arg;
    int narg;
    char **res;
    int nres;
} vec;

/* A failed vector: name the data line, not only the C line. */
static void vr_fail(vfile *vf, const char *what, const char *cfile, int cline)
{
    if (vf->failed < VR_MAX_PRINTED)
        fprintf(stderr, "vectors/%s:%lu: %s: %s (%s:%d)\n", vf->name, vf->lineno,
                vf->op ? vf->op : "?", what, cfile, cline);
    vf->failed++;
    check_failed_count++;
    check_test_failed = 1;
}

#define VFAIL(vf, what) vr_fail((vf), (what), __FILE__, __LINE__)
#define VCHECK(vf, cond)                                                        \
    do {                                                                        \
        if (!(cond))                                                            \
            vr_fail((vf), #cond, __FILE__, __LINE__);                           \
    } while (0)

/* Exactly n bytes from exactly 2n hex digits. */
static bool hex_to_bytes(uint8_t *out, size_t n, const char *hex)
{
    return strlen(hex) == 2 * n && zp__hex_decode(out, hex, 2 * n);
}

/* Bytes of any length, in a buffer of exactly that size (so that a decoder
 * reading past its input trips the sanitizer); "-" is the empty input. */
static uint8_t *hex_alloc(const char *hex, size_t *len)
{
    size_t n = strcmp(hex, "-") == 0 ? 0 : strlen(hex) / 2;
    uint8_t *b = malloc(n ? n : 1);
    if (!b)
        return NULL;
    if (n && !hex_to_bytes(b, n, hex)) {
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

/* A big-endian integer of any even hex length as little-endian 64-bit limbs;
 * returns the limb count (leading zero limbs kept), 0 when malformed or
 * longer than max limbs. */
static size_t hex_limbs(uint64_t *limbs, size_t max, const char *hex)
{
    size_t len = strlen(hex);
    if (len == 0 || len % 2)
        return 0;
    size_t nbytes = len / 2, n = (nbytes + 7) / 8;
    if (n > max)
        return 0;
    memset(limbs, 0, n * sizeof *limbs);
    for (size_t i = 0; i < nbytes; i++) {
        int hi = zp__hex_digit(hex[2 * i]), lo = zp__hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        size_t pos = nbytes - 1 - i; /* byte position from the little end */
        limbs[pos / 8] |= (uint64_t)(hi << 4 | lo) << (8 * (pos % 8));
    }
    return n;
}

static void vr_count(vfile *vf, const char *op)
{
    for (int i = 0; i < vf->nops; i++) {
        if (strcmp(vf->ops[i], op) == 0) {
            vf->counts[i]++;
            return;
        }
    }
    VFAIL(vf, "unknown op");
}

/* Split a line in place at spaces. Returns the token count; tok must hold
 * one slot per space plus one. */
static int vr_split(char *line, char **tok)
{
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n"))
        tok[n++] = p;
    return n;
}

typedef void (*vr_handler)(vfile *vf, const vec *v);

/*
 * Check every vector of vectors/<name> with handler. required lists the ops
 * the file must contain (NULL-terminated); a missing file, an empty one, a
 * malformed line or a required op with no vector is a failure: a vector file
 * that silently shrank must not pass.
 */
static void vr_run_file(const char *name, const char *const *required, vr_handler handler)
{
    vfile vf = {.name = name};
    for (const char *const *r = required; *r && vf.nops < VR_MAX_OPS; r++)
        vf.ops[vf.nops++] = *r;
    char path[256];
    snprintf(path, sizeof path, "vectors/%s", name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: missing (run from tests/; regenerate with tests/js/gen_vectors.mjs)\n", path);
        check_failed_count++;
        check_test_failed = 1;
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned long total = 0;
    while (getline(&line, &cap, f) >= 0) {
        vf.lineno++;
        vf.op = NULL;
        if (line[0] == '#' || line[0] == '\n' || line[0] == '\0')
            continue;
        size_t spaces = 1;
        for (const char *p = line; *p; p++)
            spaces += *p == ' ';
        char **tok = malloc(spaces * sizeof *tok);
        if (!tok) {
            VFAIL(&vf, "out of memory");
            break;
        }
        int n = vr_split(line, tok), arrow = -1;
        for (int i = 0; i < n && arrow < 0; i++)
            if (strcmp(tok[i], "->") == 0)
                arrow = i;
        if (n > 0)
            vf.op = tok[0];
        if (arrow < 1 || arrow == n - 1) {
            VFAIL(&vf, "malformed line (no op or no '->' with results)");
        } else {
            vec v = {tok[0], tok + 1, arrow - 1, tok + arrow + 1, n - arrow - 1};
            vr_count(&vf, v.op);
            handler(&vf, &v);
            total++;
        }
        free(tok);
    }
    free(line);
    fclose(f);
    printf("  %s: %lu vectors:", name, total);
    for (int i = 0; i < vf.nops; i++)
        printf(" %s %lu%s", vf.ops[i], vf.counts[i], i + 1 < vf.nops ? "," : "\n");
    if (vf.failed)
        printf("  %s: %lu FAILED\n", name, vf.failed);
    if (total == 0) {
        fprintf(stderr, "%s: no vectors\n", path);
        check_failed_count++;
        check_test_failed = 1;
    }
    for (int i = 0; i < vf.nops; i++) {
        if (vf.counts[i] == 0) {
            fprintf(stderr, "%s: no '%s' vectors\n", path, vf.ops[i]);
            check_failed_count++;
            check_test_failed = 1;
        }
    }
}

#endif
