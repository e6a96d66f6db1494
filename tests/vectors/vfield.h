/*
 * The checks of fp.txt and fr.txt, written once for both prime fields.
 * test_vectors.c defines VF(name) (the zp_fp_/zp_fr_ prefix), VT (the type),
 * VN (bytes), VL (limbs), VFN(name) (a prefix for the static names made
 * here) and VHAS_LEX, then includes this file.
 */

/* A field element from its vector text (always canonical in the data). */
static bool VFN(parse)(vfile *vf, VT *out, const char *hex)
{
    uint8_t b[VN];
    if (!hex_to_bytes(b, VN, hex)) {
        VFAIL(vf, "malformed field element");
        return false;
    }
    if (VF(from_be)(out, b) != ZP_OK) {
        VFAIL(vf, "from_be refused a canonical vector value");
        return false;
    }
    return true;
}

/* Compare through to_be, so the byte output is checked on every vector. */
static void VFN(expect)(vfile *vf, const VT *got, const char *hex)
{
    uint8_t want[VN], have[VN];
    if (!hex_to_bytes(want, VN, hex)) {
        VFAIL(vf, "malformed expected value");
        return;
    }
    VF(to_be)(have, got);
    VCHECK(vf, memcmp(have, want, VN) == 0);
}

/* from_be / from_le: canonical values round-trip, the others are refused. */
static void VFN(bytes)(vfile *vf, const vec *v, bool le)
{
    uint8_t in[VN], out[VN];
    if (!hex_to_bytes(in, VN, v->arg[0])) {
        VFAIL(vf, "malformed bytes");
        return;
    }
    VT x;
    zp_err e = le ? VF(from_le)(&x, in) : VF(from_be)(&x, in);
    if (strcmp(v->res[0], "ok") == 0) {
        VCHECK(vf, e == ZP_OK);
        if (e != ZP_OK)
            return;
        if (le)
            VF(to_le)(out, &x);
        else
            VF(to_be)(out, &x);
        VCHECK(vf, memcmp(in, out, VN) == 0);
    } else {
        VCHECK(vf, strcmp(zp_errname(e), v->res[0]) == 0);
    }
}

static void VFN(sqrt)(vfile *vf, const VT *a, const char *want)
{
    VT s, s2, neg;
    bool ok = VF(sqrt)(&s, a);
    if (strcmp(want, "none") == 0) {
        VCHECK(vf, !ok);
        return;
    }
    VCHECK(vf, ok);
    if (!ok)
        return;
    /* Either root is right: compare up to sign, and square it back. */
    VT w;
    if (!VFN(parse)(vf, &w, want))
        return;
    VF(neg)(&neg, &w);
    VCHECK(vf, VF(eq)(&s, &w) || VF(eq)(&s, &neg));
    VF(sqr)(&s2, &s);
    VCHECK(vf, VF(eq)(&s2, a));
}

static void VFN(line)(vfile *vf, const vec *v)
{
    const char *op = v->op;
    if (strcmp(op, "from_be") == 0 || strcmp(op, "from_le") == 0) {
        if (v->narg != 1 || v->nres != 1)
            VFAIL(vf, "malformed");
        else
            VFN(bytes)(vf, v, op[5] == 'l');
        return;
    }
    bool binary = !strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul");
    bool is_pow = !strcmp(op, "pow");
    if (v->narg != (binary || is_pow ? 2 : 1) || v->nres != 1) {
        VFAIL(vf, "malformed");
        return;
    }
    VT a, b, out;
    if (!VFN(parse)(vf, &a, v->arg[0]))
        return;
    if (binary && !VFN(parse)(vf, &b, v->arg[1]))
        return;
    const char *want = v->res[0];
    if (!strcmp(op, "add")) {
        VF(add)(&out, &a, &b);
    } else if (!strcmp(op, "sub")) {
        VF(sub)(&out, &a, &b);
    } else if (!strcmp(op, "mul")) {
        VF(mul)(&out, &a, &b);
    } else if (!strcmp(op, "sqr")) {
        VF(sqr)(&out, &a);
    } else if (!strcmp(op, "dbl")) {
        VF(dbl)(&out, &a);
    } else if (!strcmp(op, "neg")) {
        VF(neg)(&out, &a);
    } else if (!strcmp(op, "inv")) {
        VF(inv)(&out, &a);
    } else if (is_pow) {
        uint64_t e[16];
        size_t n = hex_limbs(e, 16, v->arg[1]);
        if (!n) {
            VFAIL(vf, "malformed exponent");
            return;
        }
        VF(pow)(&out, &a, e, n);
    } else if (!strcmp(op, "legendre")) {
        VCHECK(vf, VF(legendre)(&a) == atoi(want));
        return;
    } else if (!strcmp(op, "sqrt")) {
        VFN(sqrt)(vf, &a, want);
        return;
#if VHAS_LEX
    } else if (!strcmp(op, "lex")) {
        VCHECK(vf, VF(is_lex_largest)(&a) == (atoi(want) == 1));
        return;
#endif
    } else {
        return; /* unknown ops were already reported by the reader */
    }
    VFN(expect)(vf, &out, want);
}

#undef VF
#undef VT
#undef VN
#undef VL
#undef VFN
#undef VHAS_LEX
