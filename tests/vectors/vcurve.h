/*
 * The checks of g1.txt and g2.txt (and the MSM sums of msm.txt), written once
 * for both groups. test_vectors.c defines VG(name) (the zp_g1_/zp_g2_
 * prefix), VAFF, VJAC, VXYZZ (the types), VCB and VUB (compressed and
 * uncompressed sizes) and VC(name) (a prefix for the static names made here),
 * then includes this file.
 */

/* A point the data says is valid: it must decode. */
static bool VC(decode)(vfile *vf, VAFF *out, const char *hex, size_t want_len)
{
    uint8_t b[VUB];
    if (strlen(hex) != 2 * want_len || !hex_to_bytes(b, want_len, hex)) {
        VFAIL(vf, "malformed point");
        return false;
    }
    zp_err e = VG(decode)(out, b, want_len);
    if (e != ZP_OK) {
        VFAIL(vf, "decode refused a valid point:");
        if (vf->failed <= VR_MAX_PRINTED)
            fprintf(stderr, "    got %s for %s\n", zp_errname(e), hex);
        return false;
    }
    return true;
}

static void VC(expect_enc)(vfile *vf, const VAFF *p, const char *hex, bool compressed)
{
    size_t n = compressed ? VCB : VUB;
    uint8_t want[VUB], have[VUB];
    if (!hex_to_bytes(want, n, hex)) {
        VFAIL(vf, "malformed expected encoding");
        return;
    }
    VG(encode)(have, p, compressed);
    VCHECK(vf, memcmp(have, want, n) == 0);
}

static void VC(expect_jac)(vfile *vf, const VJAC *got, const VAFF *want)
{
    VAFF a;
    VG(jac_to_affine)(&a, got);
    VCHECK(vf, VG(affine_eq)(&a, want));
}

/* mul k -> U C: k*G by the reference multiplication, both encodings both ways. */
static void VC(mul)(vfile *vf, const vec *v)
{
    uint64_t k[16];
    size_t nk = hex_limbs(k, 16, v->arg[0]);
    VAFF u, c, g;
    if (v->narg != 1 || v->nres != 2 || !nk) {
        VFAIL(vf, "malformed");
        return;
    }
    if (!VC(decode)(vf, &u, v->res[0], VUB) || !VC(decode)(vf, &c, v->res[1], VCB))
        return;
    VCHECK(vf, VG(affine_eq)(&u, &c));
    VG(generator)(&g);
    VJAC gj, r, uj;
    VG(jac_from_affine)(&gj, &g);
    VG(jac_mul_vartime)(&r, &gj, k, nk);
    VC(expect_jac)(vf, &r, &u);
    VG(jac_from_affine)(&uj, &u);
    VCHECK(vf, VG(jac_eq)(&r, &uj));
    VCHECK(vf, VG(jac_is_inf)(&r) == VG(affine_is_inf)(&u));
    VAFF b;
    VG(batch_to_affine)(&b, &r, 1);
    VCHECK(vf, VG(affine_eq)(&b, &u));
    VC(expect_enc)(vf, &u, v->res[0], false);
    VC(expect_enc)(vf, &u, v->res[1], true);
}

/* add P Q -> R through every addition formula the header offers. */
static void VC(add)(vfile *vf, const vec *v)
{
    VAFF p, q, r, t;
    if (v->narg != 2 || v->nres != 1) {
        VFAIL(vf, "malformed");
        return;
    }
    if (!VC(decode)(vf, &p, v->arg[0], VUB) || !VC(decode)(vf, &q, v->arg[1], VUB) ||
        !VC(decode)(vf, &r, v->res[0], VUB))
        return;
    VJAC pj, qj, s;
    VG(jac_from_affine)(&pj, &p);
    VG(jac_from_affine)(&qj, &q);
    VG(jac_add)(&s, &pj, &qj);
    VC(expect_jac)(vf, &s, &r);
    VG(jac_add_affine)(&s, &pj, &q);
    VC(expect_jac)(vf, &s, &r);
    VXYZZ px, qx, sx;
    VG(xyzz_from_affine)(&px, &p);
    VG(xyzz_from_affine)(&qx, &q);
    VG(xyzz_add)(&sx, &px, &qx);
    VG(xyzz_to_jac)(&s, &sx);
    VC(expect_jac)(vf, &s, &r);
    VG(xyzz_add_affine)(&sx, &px, &q);
    VG(xyzz_to_jac)(&s, &sx);
    VC(expect_jac)(vf, &s, &r);
    if (VG(affine_eq)(&p, &q)) {
        VG(jac_dbl)(&s, &pj);
        VC(expect_jac)(vf, &s, &r);
        VG(xyzz_dbl)(&sx, &px);
        VG(xyzz_to_jac)(&s, &sx);
        VC(expect_jac)(vf, &s, &r);
    }
    if (VG(affine_is_inf)(&r)) { /* q = -p */
        VG(affine_neg)(&t, &p);
        VCHECK(vf, VG(affine_eq)(&t, &q));
        VG(jac_neg)(&s, &pj);
        VC(expect_jac)(vf, &s, &q);
    }
    VCHECK(vf, VG(affine_on_curve)(&r) && VG(affine_in_subgroup)(&r));
}

/* bad X -> CODE why: decode must refuse with exactly that code. */
static void VC(bad)(vfile *vf, const vec *v, unsigned long *by_code, const char *const *codes)
{
    size_t len = 0;
    uint8_t *in = v->narg == 1 && v->nres >= 1 ? hex_alloc(v->arg[0], &len) : NULL;
    if (!in) {
        VFAIL(vf, "malformed");
        return;
    }
    VAFF out;
    zp_err e = VG(decode)(&out, in, len);
    free(in);
    const char *got = zp_errname(e);
    if (strcmp(got, v->res[0]) != 0) {
        VFAIL(vf, "decode gave the wrong result:");
        if (vf->failed <= VR_MAX_PRINTED)
            fprintf(stderr, "    want %s (%s), got %s for %s\n", v->res[0],
                    v->nres > 1 ? v->res[1] : "", got, v->arg[0]);
    }
    for (int i = 0; codes[i]; i++)
        by_code[i] += strcmp(codes[i], v->res[0]) == 0;
}

static const char *const VC(codes)[] = {"ZP_E_BAD_LENGTH", "ZP_E_BAD_FLAGS", "ZP_E_NOT_CANONICAL",
                                        "ZP_E_NOT_ON_CURVE", "ZP_E_NOT_IN_SUBGROUP", NULL};
static unsigned long VC(by_code)[5];

static void VC(line)(vfile *vf, const vec *v)
{
    if (!strcmp(v->op, "mul"))
        VC(mul)(vf, v);
    else if (!strcmp(v->op, "add"))
        VC(add)(vf, v);
    else if (!strcmp(v->op, "bad"))
        VC(bad)(vf, v, VC(by_code), VC(codes));
}

/* Every rejection rule must be exercised: report the codes seen. */
static void VC(report_codes)(const char *name)
{
    printf("  %s rejections:", name);
    for (int i = 0; VC(codes)[i]; i++) {
        printf(" %s %lu", VC(codes)[i], VC(by_code)[i]);
        CHECK(VC(by_code)[i] > 0);
    }
    printf("\n");
}

/* g1|g2 n P1..Pn k1..kn -> S, summed the simple way: k_i*P_i and additions. */
static void VC(msm)(vfile *vf, const vec *v)
{
    int n = atoi(v->arg[0]);
    if (n < 0 || v->narg != 1 + 2 * n || v->nres != 1) {
        VFAIL(vf, "malformed");
        return;
    }
    VAFF s, p;
    if (!VC(decode)(vf, &s, v->res[0], VUB))
        return;
    VJAC acc, pj, t;
    VG(jac_inf)(&acc);
    for (int i = 0; i < n; i++) {
        uint64_t k[4];
        if (!VC(decode)(vf, &p, v->arg[1 + i], VUB))
            return;
        if (strlen(v->arg[1 + n + i]) != 64 || hex_limbs(k, 4, v->arg[1 + n + i]) != 4) {
            VFAIL(vf, "malformed scalar");
            return;
        }
        VG(jac_from_affine)(&pj, &p);
        VG(jac_mul_vartime)(&t, &pj, k, 4);
        VG(jac_add)(&acc, &acc, &t);
    }
    VC(expect_jac)(vf, &acc, &s);
}

#undef VG
#undef VAFF
#undef VJAC
#undef VXYZZ
#undef VCB
#undef VUB
#undef VC
