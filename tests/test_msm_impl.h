/*
 * MSM tests written once for G1 and G2; test_msm.c includes this file once
 * per group after defining
 *   G(op)   the group's functions (zp_g1_##op)   T(name)  name##_g1
 *   AFF, JAC, MSM, PIP, PIPM (pippenger_mode), SUM, REF, and SMALL (1 for G2: fewer, smaller cases,
 *   because the reference costs a full scalar multiplication per point).
 */

/* n distinct points k0 G + i k1 G; every `inf_every`-th (when nonzero) is
 * the point at infinity. */
static AFF *T(points)(size_t n, size_t inf_every)
{
    AFF g, *out = malloc((n ? n : 1) * sizeof *out);
    JAC *jac = malloc((n ? n : 1) * sizeof *jac), gj, step;
    uint64_t k0[4] = {check_rand64(), check_rand64(), 0, 0}, k1[2] = {check_rand64(), 1};
    G(generator)(&g);
    G(jac_from_affine)(&gj, &g);
    G(jac_mul_vartime)(&step, &gj, k1, 2);
    if (n)
        G(jac_mul_vartime)(&jac[0], &gj, k0, 4);
    for (size_t i = 1; i < n; i++)
        G(jac_add)(&jac[i], &jac[i - 1], &step);
    G(batch_to_affine)(out, jac, n);
    for (size_t i = 0; inf_every && i < n; i += inf_every)
        memset(&out[i], 0, sizeof out[i]);
    free(jac);
    return out;
}

/* Fast paths (split with 1 and 2 threads, Pippenger alone) vs reference. */
static void T(check_all)(const AFF *p, const zp_fr *s, size_t n)
{
    JAC want, got;
    REF(&want, p, s, n);
    CHECK_EQ_INT(MSM(&got, p, s, n, 1), ZP_OK);
    CHECK(G(jac_eq)(&got, &want));
    CHECK_EQ_INT(MSM(&got, p, s, n, 2), ZP_OK);
    CHECK(G(jac_eq)(&got, &want));
    CHECK_EQ_INT(PIP(&got, p, s, NULL, n, 0, 2), ZP_OK);
    CHECK(G(jac_eq)(&got, &want));
}

static void T(test_sizes)(void)
{
    size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 255, 256, 257};
    size_t count = SMALL ? 10 : sizeof sizes / sizeof sizes[0];
    for (size_t t = 0; t < count; t++) {
        size_t n = sizes[t];
        AFF *p = T(points)(n, 0);
        zp_fr *s = scalars(n, KIND_RANDOM);
        T(check_all)(p, s, n);
        free(p);
        free(s);
    }
}

/* Every scalar of one kind, then each kind mixed among the others. */
static void T(test_kinds)(void)
{
    size_t n = SMALL ? 5 : 17;
    AFF *p = T(points)(n, 0);
    for (int k = 0; k < KIND_COUNT; k++) {
        zp_fr *s = scalars(n, k);
        T(check_all)(p, s, n);
        free(s);
    }
    zp_fr *s = scalars(n, KIND_MIXED);
    T(check_all)(p, s, n);
    free(s);
    free(p);
}

/* Mostly zeros and ones (as in a real witness), a dense tail. */
static void T(test_sparse)(void)
{
    size_t n = SMALL ? 40 : 600;
    AFF *p = T(points)(n, 0);
    zp_fr *s = scalars(n, KIND_RANDOM);
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)(check_rand64() % 10);
        if (r < 9)
            scalar_kind(&s[i], r < 5 ? KIND_ZERO : KIND_ONE);
    }
    T(check_all)(p, s, n);
    free(p);
    free(s);
}

/* The same point many times: buckets meet P + P (doubling) and P + (-P)
 * (cancellation) inside the mixed additions. */
static void T(test_repeated)(void)
{
    size_t n = SMALL ? 8 : 40;
    AFF *p = T(points)(1, 0), *rep = malloc(n * sizeof *rep);
    for (size_t i = 0; i < n; i++)
        rep[i] = p[0];
    zp_fr *s = scalars(n, KIND_SMALL);
    T(check_all)(rep, s, n);
    for (size_t i = 0; i < n; i++) /* identical scalars: all in one bucket */
        s[i] = s[0];
    T(check_all)(rep, s, n);
    for (size_t i = 0; i + 1 < n; i += 2) { /* s and r - s cancel in pairs */
        scalar_kind(&s[i], KIND_RANDOM);
        scalar_neg(&s[i + 1], &s[i]);
    }
    T(check_all)(rep, s, n);
    JAC got;
    CHECK_EQ_INT(MSM(&got, rep, s, n & ~(size_t)1, 2), ZP_OK);
    CHECK(G(jac_is_inf)(&got));
    free(p);
    free(rep);
    free(s);
}

static void T(test_infinity)(void)
{
    size_t n = SMALL ? 12 : 100;
    AFF *p = T(points)(n, 3);
    for (int k = 0; k < 2; k++) {
        zp_fr *s = scalars(n, k ? KIND_MIXED : KIND_RANDOM);
        T(check_all)(p, s, n);
        free(s);
    }
    memset(p, 0, n * sizeof *p); /* nothing but infinity */
    zp_fr *s = scalars(n, KIND_RANDOM);
    JAC got;
    CHECK_EQ_INT(MSM(&got, p, s, n, 2), ZP_OK);
    CHECK(G(jac_is_inf)(&got));
    free(p);
    free(s);
}

/* Every forced window size against the reference: digit extraction at all
 * c, including windows that straddle limbs and the top window. */
static void T(test_windows)(void)
{
    size_t n = SMALL ? 4 : 12;
    AFF *p = T(points)(n, 5);
    zp_fr *s = scalars(n, KIND_MIXED);
    JAC want, got;
    REF(&want, p, s, n);
    for (unsigned c = 1; c <= 16; c++) {
        /* A window's bucket fold costs 2^c adds whatever n is: skip the
         * costliest sizes (the digit code is shared by both groups). */
        if (SMALL ? c % 4 != 1 : c == 14 || c == 15)
            continue;
        CHECK_EQ_INT(PIP(&got, p, s, NULL, n, c, 1 + c % 3), ZP_OK);
        CHECK(G(jac_eq)(&got, &want));
    }
    CHECK_EQ_INT(PIP(&got, p, s, NULL, n, 17, 1), ZP_E_INVALID_ARG);
    free(p);
    free(s);
}

/* Pippenger over an index subset = the reference over the gathered pairs;
 * plain sums (all points, or those with scalar 1). */
static void T(test_pieces)(void)
{
    size_t n = SMALL ? 10 : 64;
    AFF *p = T(points)(n, 7), *sub = malloc(n * sizeof *sub);
    zp_fr *s = scalars(n, KIND_MIXED), *ssub = malloc(n * sizeof *ssub);
    uint32_t *idx = malloc(n * sizeof *idx);
    size_t m = 0;
    for (size_t i = 0; i < n; i += 1 + (size_t)(check_rand64() % 3)) {
        idx[m] = (uint32_t)i;
        sub[m] = p[i];
        ssub[m++] = s[i];
    }
    JAC want, got;
    REF(&want, sub, ssub, m);
    CHECK_EQ_INT(PIP(&got, p, s, idx, m, 0, 2), ZP_OK);
    CHECK(G(jac_eq)(&got, &want));

    zp_fr *ones = scalars(n, KIND_ONE);
    REF(&want, p, ones, n);
    CHECK_EQ_INT(SUM(&got, p, NULL, n, 3), ZP_OK);
    CHECK(G(jac_eq)(&got, &want));
    for (size_t i = 0; i < n; i++) /* SUM with scalars keeps only the ones */
        if (!(s[i].l[0] == 1 && !(s[i].l[1] | s[i].l[2] | s[i].l[3])))
            scalar_kind(&ones[i], KIND_ZERO);
    REF(&want, p, ones, n);
    CHECK_EQ_INT(SUM(&got, p, s, n, 2), ZP_OK);
    CHECK(G(jac_eq)(&got, &want));
    CHECK_EQ_INT(SUM(&got, p, s, 0, 2), ZP_OK);
    CHECK(G(jac_is_inf)(&got));
    free(p);
    free(sub);
    free(s);
    free(ssub);
    free(idx);
    free(ones);
}

/* Thread counts agree with one thread and the reference. Small scalars
 * make few windows, so the windows split into point ranges. */
static void T(test_threads)(void)
{
    size_t n = SMALL ? 30 : 500;
    AFF *p = T(points)(n, 11);
    for (int k = 0; k < 2; k++) {
        zp_fr *s = scalars(n, k ? KIND_SMALL : KIND_MIXED);
        JAC want, got;
        REF(&want, p, s, n);
        int threads[] = {1, 2, 3, 16, 0};
        for (int t = 0; t < 5; t++) {
            CHECK_EQ_INT(MSM(&got, p, s, n, threads[t]), ZP_OK);
            CHECK(G(jac_eq)(&got, &want));
            CHECK_EQ_INT(PIP(&got, p, s, NULL, n, 0, threads[t]), ZP_OK);
            CHECK(G(jac_eq)(&got, &want));
        }
        free(s);
    }
    free(p);
}

/* ------------------------------------------------- the affine method */

/* Both bucket methods against the reference, over window sizes (0: the
 * automatic choice) and batch capacities small enough that n pairs fill
 * many batches, queue and spill. */
static void T(check_modes)(const AFF *p, const zp_fr *s, size_t n)
{
    static const unsigned windows[] = {0, 5, 8};
    static const size_t batches[] = {0, 1, 2, 3, 7};
    JAC want, got;
    REF(&want, p, s, n);
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        CHECK_EQ_INT(PIPM(&got, p, s, NULL, n, windows[w], ZP__MSM_XYZZ, 0, 1), ZP_OK);
        CHECK(G(jac_eq)(&got, &want));
        for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
            if (SMALL && b % 2)
                continue;
            int threads = 1 + (int)((w + b) % 2);
            CHECK_EQ_INT(PIPM(&got, p, s, NULL, n, windows[w], ZP__MSM_AFFINE, batches[b],
                              threads), ZP_OK);
            CHECK(G(jac_eq)(&got, &want));
        }
    }
}

/* Sizes around the batch capacities (1, 2, 3, 7 and 64 for c = 9 by default). */
static void T(test_affine_sizes)(void)
{
    size_t sizes[] = {1, 2, 3, 6, 7, 8, 14, 15, 16, 63, 64, 65, 129};
    size_t count = SMALL ? 8 : sizeof sizes / sizeof sizes[0];
    for (size_t t = 0; t < count; t++) {
        size_t n = sizes[t];
        AFF *p = T(points)(n, t % 3 == 2 ? 4 : 0);
        zp_fr *s = scalars(n, t % 2 ? KIND_MIXED : KIND_RANDOM);
        T(check_modes)(p, s, n);
        free(p);
        free(s);
    }
}

/*
 * Collisions in one bucket: the same point with one scalar puts every pair
 * in the same bucket of every window (doublings in the batch, then a full
 * queue, spills to the side buckets, the drain); P and -P with one scalar
 * cancel there; runs of P, P, -P, P, ... mix doubling, cancelling and
 * re-filling an emptied bucket.
 */
static void T(test_affine_collisions)(void)
{
    size_t n = SMALL ? 24 : 70;
    AFF *one = T(points)(2, 0), *p = malloc(n * sizeof *p), neg;
    G(affine_neg)(&neg, &one[0]);
    zp_fr *s = scalars(n, KIND_RANDOM);
    for (size_t i = 0; i < n; i++) {
        p[i] = one[0];
        s[i] = s[0];
    }
    T(check_modes)(p, s, n); /* n P: all in one bucket */
    for (size_t i = 1; i < n; i += 2)
        p[i] = neg;
    T(check_modes)(p, s, n); /* P, -P, ...: zero */
    JAC got;
    CHECK_EQ_INT(PIPM(&got, p, s, NULL, n & ~(size_t)1, 8, ZP__MSM_AFFINE, 3, 2), ZP_OK);
    CHECK(G(jac_is_inf)(&got));
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)(check_rand64() % 8);
        p[i] = r < 3 ? neg : r < 7 ? one[0] : one[1];
    }
    T(check_modes)(p, s, n); /* random runs of P, -P and a second point Q */
    zp_fr *small = scalars(n, KIND_SMALL);
    for (size_t i = 0; i < n; i++)
        small[i].l[0] &= 0x1f; /* few buckets, so many meet in one batch */
    T(check_modes)(p, small, n);
    free(one);
    free(p);
    free(s);
    free(small);
}

/* Distinct points, all scalars equal: one bucket per window, many
 * distinct additions (no doubling) queued and spilled. */
static void T(test_affine_equal_scalars)(void)
{
    size_t n = SMALL ? 20 : 90;
    AFF *p = T(points)(n, 9);
    zp_fr *s = scalars(n, KIND_RANDOM);
    for (size_t i = 1; i < n; i++)
        s[i] = s[0];
    T(check_modes)(p, s, n);
    free(p);
    free(s);
}
