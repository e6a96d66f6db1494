/*
 * The daemon's pieces that need no engine: the base64/hex codecs (against
 * a bit-by-bit twin), the route table, the JSON of a key's GPU plan and of
 * a GPU, listen address parsing and unix socket hygiene, the limits on
 * unauthenticated connections (against an array twin) and the body
 * budget. Links libzkpipe_server; the daemon itself is exercised end to
 * end by server.test.sh, its client by test_client.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/codec.h"
#include "check.h"
#include "server/api.h"
#include "server/server.h"

/* ------------------------------------------------------- codecs */

/* The twin: one bit at a time. */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_ref(char *out, const uint8_t *in, size_t n)
{
    size_t bits = 8 * n, o = 0;
    for (size_t b = 0; b < bits; b += 6) {
        unsigned v = 0;
        for (size_t k = 0; k < 6; k++) {
            size_t at = b + k;
            unsigned bit = at < bits ? (in[at / 8] >> (7 - at % 8)) & 1 : 0;
            v = v << 1 | bit;
        }
        out[o++] = b64[v];
    }
    while (o % 4)
        out[o++] = '=';
    out[o] = 0;
}

static void test_b64_vectors(void)
{
    /* RFC 4648 §10 */
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char out[16];
        uint8_t back[16];
        size_t n = 99;
        zp__b64_encode(out, (const uint8_t *)plain[i], strlen(plain[i]));
        CHECK(strcmp(out, enc[i]) == 0);
        CHECK_EQ_INT(zp__b64_len(strlen(plain[i])), strlen(enc[i]));
        CHECK(zp__b64_decode(back, &n, enc[i], strlen(enc[i])));
        CHECK_EQ_INT(n, strlen(plain[i]));
        CHECK_MEM(back, plain[i], n);
    }
}

static void test_b64_random(void)
{
    uint8_t in[300] = {0}, back[300];
    char a[401], b[401];
    for (size_t n = 0; n <= 300; n++) {
        for (size_t i = 0; i < n; i++)
            in[i] = (uint8_t)check_rand64();
        if (n % 7 == 0)
            memset(in, 0xff, n); /* an edge: all ones */
        zp__b64_encode(a, in, n);
        b64_ref(b, in, n);
        CHECK(strcmp(a, b) == 0);
        size_t m = 0;
        CHECK(zp__b64_decode(back, &m, a, strlen(a)));
        CHECK_EQ_INT(m, n);
        CHECK_MEM(back, in, n);
    }
}

static void test_b64_rejects(void)
{
    uint8_t out[16];
    size_t n;
    CHECK(!zp__b64_decode(out, &n, "Zg=", 3));          /* length */
    CHECK(!zp__b64_decode(out, &n, "Zg==Zg==", 8));     /* padding inside */
    CHECK(!zp__b64_decode(out, &n, "Zh==", 4));         /* stray low bits */
    CHECK(!zp__b64_decode(out, &n, "Zm9=", 4));         /* stray low bits */
    CHECK(!zp__b64_decode(out, &n, "Zm 9", 4));         /* space */
    CHECK(!zp__b64_decode(out, &n, "Z===", 4));         /* three pads */
    CHECK(!zp__b64_decode(out, &n, "Zm-v", 4));         /* url alphabet */
    CHECK(zp__b64_decode(out, &n, "+/+/", 4) && n == 3);
}

static void test_hex(void)
{
    uint8_t in[64], back[64];
    char h[129];
    for (size_t i = 0; i < 64; i++)
        in[i] = (uint8_t)(i * 37 + 5);
    zp__hex_encode(h, in, 64);
    CHECK_EQ_INT(strlen(h), 128);
    CHECK(zp__hex_decode(back, h, 128));
    CHECK_MEM(back, in, 64);
    CHECK(zp__hex_decode(back, "ABff", 4) && back[0] == 0xab && back[1] == 0xff);
    CHECK(!zp__hex_decode(back, "abc", 3));
    CHECK(!zp__hex_decode(back, "0g", 2));
    /* Every byte value against the definition. */
    for (int c = -128; c < 256; c++) {
        int want = c >= '0' && c <= '9' ? c - '0'
                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
                   : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
        CHECK_EQ_INT(zp__hex_digit(c), want);
    }
}

/* The twin: long division by 10 of a big-endian byte string. */
static void dec_ref(char *out, const uint8_t le[32])
{
    uint8_t be[32];
    char rev[100];
    int n = 0;
    for (int i = 0; i < 32; i++)
        be[i] = le[31 - i];
    for (;;) {
        unsigned rem = 0;
        bool any = false;
        for (int i = 0; i < 32; i++) {
            unsigned cur = rem << 8 | be[i];
            be[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
            any |= be[i] != 0;
        }
        rev[n++] = (char)('0' + rem);
        if (!any)
            break;
    }
    for (int i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    out[n] = 0;
}

static void test_ends_with(void)
{
    CHECK(zp__ends_with("porep.params", ".params"));
    CHECK(zp__ends_with(".params", ".params"));
    CHECK(zp__ends_with("x", ""));
    CHECK(zp__ends_with("", ""));
    CHECK(!zp__ends_with("porep.params.zpk", ".params"));
    CHECK(!zp__ends_with("params", ".params"));
    CHECK(!zp__ends_with("", ".zpk"));
    CHECK(!zp__ends_with("a.ZPK", ".zpk"));
}

static void test_u256_dec(void)
{
    static const struct {
        int bit; /* a single set bit; -1 for zero */
        const char *dec;
    } pow2[] = {{-1, "0"}, {0, "1"}, {64, "18446744073709551616"},
                {255, "57896044618658097711785492504343953926634992332820282019728792003956564819968"}};
    uint8_t v[32];
    char d[ZP__U256_DEC_MAX], r[100];
    for (size_t i = 0; i < sizeof pow2 / sizeof pow2[0]; i++) {
        memset(v, 0, 32);
        if (pow2[i].bit >= 0)
            v[pow2[i].bit / 8] = (uint8_t)(1u << (pow2[i].bit % 8));
        zp__u256_le_to_dec(d, v);
        CHECK(strcmp(d, pow2[i].dec) == 0);
    }
    memset(v, 0xff, 32);
    zp__u256_le_to_dec(d, v);
    CHECK(!strcmp(d, "115792089237316195423570985008687907853269984665640564039457584007913129639935"));
    /* 10^19 exactly: the base of the fast path's division. */
    memset(v, 0, 32);
    uint64_t ten19 = 10000000000000000000ULL;
    for (int b = 0; b < 8; b++)
        v[b] = (uint8_t)(ten19 >> (8 * b));
    zp__u256_le_to_dec(d, v);
    CHECK(!strcmp(d, "10000000000000000000"));
    for (int t = 0; t < 2000; t++) {
        int len = t % 33; /* values of every byte length */
        memset(v, 0, 32);
        for (int i = 0; i < len; i++)
            v[i] = (uint8_t)check_rand64();
        zp__u256_le_to_dec(d, v);
        dec_ref(r, v);
        CHECK(strcmp(d, r) == 0);
    }
}

/* ------------------------------------------------------- routes */

static unsigned route(const char *method, const char *path, const char **allow, zp__route_match *m)
{
    return zp__route(m, method, path, allow);
}

static void test_routes(void)
{
    static const struct {
        const char *method, *path;
        zp__route_fn fn;
    } ok[] = {
        {"GET", "/healthz", zp__api_healthz},
        {"HEAD", "/healthz", zp__api_healthz},
        {"GET", "/metrics", zp__api_metrics},
        {"GET", "/v1/status", zp__api_status},
        {"GET", "/v1/keys", zp__api_keys},
        {"POST", "/v1/jobs", zp__api_submit},
        {"GET", "/v1/jobs/abc", zp__api_job_get},
        {"DELETE", "/v1/jobs/a.b_c-d:e", zp__api_job_cancel},
        {"POST", "/v1/keys/porep/preload", zp__api_key_preload},
        {"POST", "/v1/keys/porep-32g.v1/evict", zp__api_key_evict},
    };
    const char *allow;
    zp__route_match m;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECK_EQ_INT(route(ok[i].method, ok[i].path, &allow, &m), 0);
        CHECK(m.fn == ok[i].fn);
    }
    CHECK_EQ_INT(route("GET", "/v1/jobs/j1", &allow, &m), 0);
    CHECK(m.has_param && strcmp(m.param, "j1") == 0);
    CHECK_EQ_INT(m.body, ZP__BODY_NONE);
    CHECK_EQ_INT(route("POST", "/v1/jobs", &allow, &m), 0);
    CHECK_EQ_INT(m.body, ZP__BODY_WITNESS);

    CHECK_EQ_INT(route("GET", "/", &allow, &m), 404);
    CHECK_EQ_INT(route("GET", "/v1/jobs/", &allow, &m), 400);     /* empty id */
    CHECK_EQ_INT(route("GET", "/v1/jobs/a/b", &allow, &m), 404);  /* two segments */
    CHECK_EQ_INT(route("GET", "/v1/status/", &allow, &m), 404);
    CHECK_EQ_INT(route("GET", "/v1/jobs/a%20b", &allow, &m), 400);
    CHECK_EQ_INT(route("POST", "/v1/keys/a:b/preload", &allow, &m), 400); /* ':' only in job ids */
    CHECK_EQ_INT(route("PUT", "/v1/jobs", &allow, &m), 405);
    CHECK(allow && strcmp(allow, "POST") == 0);
    CHECK_EQ_INT(route("POST", "/v1/jobs/x", &allow, &m), 405);
    CHECK(allow && strstr(allow, "DELETE"));
    CHECK_EQ_INT(route("GET", "/v1/jobs", &allow, &m), 405);
    CHECK_EQ_INT(route("DELETE", "/healthz", &allow, &m), 405);

    char id[80];
    memset(id, 'a', sizeof id);
    strcpy(id, "/v1/jobs/");
    memset(id + 9, 'x', 64);
    id[9 + 64] = 0;
    CHECK_EQ_INT(route("GET", id, &allow, &m), 0);
    id[9 + 64] = 'x';
    id[9 + 65] = 0;
    CHECK_EQ_INT(route("GET", id, &allow, &m), 400);
}

/* ------------------------------------------------------- addresses */

static void test_listen_parse(void)
{
    zp__listen_addr a;
    char why[256];
    CHECK(zp__listen_parse(&a, "unix:///tmp/z.sock", why, sizeof why) && a.is_unix &&
          !strcmp(a.path, "/tmp/z.sock"));
    CHECK(zp__listen_parse(&a, "unix:rel.sock", why, sizeof why) && a.is_unix && !strcmp(a.path, "rel.sock"));
    CHECK(zp__listen_parse(&a, "tcp://127.0.0.1:0", why, sizeof why) && !a.is_unix &&
          !strcmp(a.host, "127.0.0.1") && !strcmp(a.port, "0"));
    CHECK(zp__listen_parse(&a, "tcp://[::1]:8080", why, sizeof why) && !strcmp(a.host, "::1") &&
          !strcmp(a.port, "8080"));
    CHECK(zp__listen_parse(&a, "tcp://localhost:65535", why, sizeof why));
    static const char *const bad[] = {"", "http://x:1", "tcp://x", "tcp://:80", "tcp://x:", "tcp://x:65536",
                                      "tcp://x:8a", "tcp://::1:80", "tcp://[::1]80", "unix://", "/tmp/z.sock"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = 0;
        CHECK(!zp__listen_parse(&a, bad[i], why, sizeof why));
        CHECK(why[0] != 0);
    }
    char longp[200] = "unix:///";
    memset(longp + 8, 'p', 120);
    longp[128] = 0;
    CHECK(!zp__listen_parse(&a, longp, why, sizeof why));
}

static char tmpdir[64];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/zp_test_server_XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
}

static void test_unix_socket(void)
{
    zp__listen_addr a;
    char why[256], bound[300];
    snprintf(a.path, sizeof a.path, "%s/d.sock", tmpdir);
    char spec[200];
    snprintf(spec, sizeof spec, "unix://%s", a.path);
    CHECK(zp__listen_parse(&a, spec, why, sizeof why));

    int fd = zp__listen_open(&a, bound, sizeof bound, why, sizeof why);
    CHECK(fd >= 0);
    CHECK(strcmp(bound, spec) == 0);
    struct stat st;
    CHECK(stat(a.path, &st) == 0 && S_ISSOCK(st.st_mode));
    CHECK_EQ_INT(st.st_mode & 0777, 0600);

    /* A live daemon on the path: the second one must not steal it. */
    int fd2 = zp__listen_open(&a, bound, sizeof bound, why, sizeof why);
    CHECK(fd2 < 0);
    CHECK(strstr(why, "already listening") != NULL);
    CHECK(stat(a.path, &st) == 0);

    /* The first one dies without unlinking: the file is stale, reused. */
    close(fd);
    fd2 = zp__listen_open(&a, bound, sizeof bound, why, sizeof why);
    CHECK(fd2 >= 0);
    close(fd2);
    unlink(a.path);

    /* A regular file is never replaced. */
    FILE *f = fopen(a.path, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK(zp__listen_open(&a, bound, sizeof bound, why, sizeof why) < 0);
    CHECK(strstr(why, "not a socket") != NULL);
    CHECK(stat(a.path, &st) == 0 && S_ISREG(st.st_mode));
    unlink(a.path);
}

static void test_tcp_ephemeral(void)
{
    zp__listen_addr a;
    char why[256], bound[300];
    CHECK(zp__listen_parse(&a, "tcp://127.0.0.1:0", why, sizeof why));
    int fd = zp__listen_open(&a, bound, sizeof bound, why, sizeof why);
    CHECK(fd >= 0);
    CHECK(strncmp(bound, "tcp://127.0.0.1:", 16) == 0 && atoi(bound + 16) > 0);
    if (fd >= 0)
        close(fd);
}

/* /v1/keys' plan of a key on a GPU and /v1/status' GPU, printed: arrays
 * wholly resident listed, the others with the share that streams (four
 * places, never 0 for one point streamed nor 1 for one point kept), and
 * 64-bit byte counts exact. */
static void test_plan_json(void)
{
    zp_key_gpu_plan p;
    memset(&p, 0, sizeof p);
    p.resident = true;
    const uint64_t pts[ZP_KEY_ARRAYS] = {100, 200, 100, 10000000, 10000000};
    const uint64_t res[ZP_KEY_ARRAYS] = {100, 200, 62, 1, 9999999};
    memcpy(p.points, pts, sizeof pts);
    memcpy(p.resident_points, res, sizeof res);
    p.pinned_bytes = 12884901888ull;
    p.ring_buffer_bytes = 1ull << 30;
    p.slot_bytes = 5ull << 30;
    p.slots = 2;
    p.device_bytes = 7;
    snprintf(p.summary, sizeof p.summary, "resident L A; streamed ...");
    char *s = zp__api_print(zp__api_key_plan_json(1, &p));
    CHECK(s != NULL);
    const char *want = "{\"gpu\":1,\"resident\":[\"L\",\"A\"],"
                       "\"streamed\":{\"B1\":0.38,\"B2\":0.9999,\"H\":0.0001},"
                       "\"pinned_bytes\":12884901888,\"ring_buffer_bytes\":1073741824,"
                       "\"slot_bytes\":5368709120,\"slots\":2,\"device_bytes\":7,"
                       "\"plan\":\"resident L A; streamed ...\"}";
    if (s && strcmp(s, want))
        fprintf(stderr, "got  %s\nwant %s\n", s, want);
    CHECK(s && !strcmp(s, want));
    free(s);
    /* Nothing resident but the fixed part: every array streams whole. */
    memset(p.resident_points, 0, sizeof p.resident_points);
    s = zp__api_print(zp__api_key_plan_json(0, &p));
    CHECK(s && strstr(s, "\"resident\":[],\"streamed\":{\"L\":1,\"A\":1,\"B1\":1,"
                         "\"B2\":1,\"H\":1}"));
    free(s);
    zp_gpu_info g = {.ordinal = 0, .healthy = true, .arena_bytes = 17179869184ull,
                     .arena_used = 3, .slots = 2, .slots_admitted = 1, .working_sets = 1,
                     .ring_bytes = 2147483648ull, .pinned_bytes = 4,
                     .h2d_bytes = 1ull << 50, .streamed_bytes = (1ull << 50) - 5,
                     .outside_free_at_open = 1073741824ull, .outside_free = 6};
    s = zp__api_print(zp__api_gpu_json(&g));
    want = "{\"gpu\":0,\"healthy\":true,\"arena_bytes\":17179869184,\"arena_used\":3,"
           "\"slots\":2,\"slots_admitted\":1,\"working_sets\":1,\"ring_bytes\":2147483648,"
           "\"pinned_bytes\":4,\"h2d_bytes\":1125899906842624,"
           "\"streamed_bytes\":1125899906842619,\"outside_free_at_open\":1073741824,"
           "\"outside_free\":6}";
    if (s && strcmp(s, want))
        fprintf(stderr, "got  %s\nwant %s\n", s, want);
    CHECK(s && !strcmp(s, want));
    free(s);
}

/* ------------------------------------------------- connections */

/* The twin of conns.c: an array in order of start, scanned in full. */
#define NC 64
struct ref_conns {
    int id[NC], peer[NC];
    double t0[NC];
    int n;
};

static void ref_drop(struct ref_conns *r, int at)
{
    memmove(r->id + at, r->id + at + 1, (size_t)(r->n - at - 1) * sizeof r->id[0]);
    memmove(r->peer + at, r->peer + at + 1, (size_t)(r->n - at - 1) * sizeof r->peer[0]);
    memmove(r->t0 + at, r->t0 + at + 1, (size_t)(r->n - at - 1) * sizeof r->t0[0]);
    r->n--;
}

static int ref_find(const struct ref_conns *r, int id)
{
    for (int i = 0; i < r->n; i++)
        if (r->id[i] == id)
            return i;
    return -1;
}

struct evicted {
    int ids[NC * 4];
    int n;
    zp__conn *base;
};

static void note_evict(void *ctx, zp__conn *c)
{
    struct evicted *e = ctx;
    e->ids[e->n++] = (int)(c - e->base);
}

static void test_conns_limits(void)
{
    /* Fixed cases: cap 3, two per peer. */
    zp__conn c[NC];
    struct evicted ev = {.base = c};
    zp__conns t;
    zp__conns_init(&t, 3, 2, 10, note_evict, &ev);
    memset(c, 0, sizeof c);
    for (int i = 0; i < 8; i++) {
        c[i].peer_len = 2;
        c[i].peer[0] = 4;
        c[i].peer[1] = (uint8_t)(i < 4 ? 1 : 2 + i % 2); /* 0..3 peer 1; 4,6 peer 2; 5,7 peer 3 */
    }
    zp__conns_add(&t, &c[0], 0);
    zp__conns_add(&t, &c[1], 1);
    CHECK_EQ_INT(ev.n, 0);
    zp__conns_add(&t, &c[2], 2); /* peer 1's third: its oldest goes */
    CHECK_EQ_INT(ev.n, 1);
    CHECK_EQ_INT(ev.ids[0], 0);
    zp__conns_authenticated(&t, &c[1]); /* leaves the list: peer 1 holds one */
    zp__conns_add(&t, &c[3], 3);
    zp__conns_add(&t, &c[4], 4);
    CHECK_EQ_INT(ev.n, 1);
    zp__conns_add(&t, &c[5], 5); /* fourth unauthenticated: the oldest of all goes */
    CHECK_EQ_INT(ev.n, 2);
    CHECK_EQ_INT(ev.ids[1], 2);
    zp__conns_stats st;
    zp__conns_counts(&t, &st);
    CHECK_EQ_INT(st.unauthenticated, 3);
    CHECK_EQ_INT(st.evicted_peer, 1);
    CHECK_EQ_INT(st.evicted_reserve, 1);
    /* Expiry, 10 s timeout: those started at 3 and 4 go at 13 and 14. */
    CHECK_EQ_INT(zp__conns_expire(&t, 12.99), 0);
    CHECK_EQ_INT(zp__conns_expire(&t, 13), 1);
    CHECK_EQ_INT(zp__conns_expire(&t, 14.5), 1);
    CHECK_EQ_INT(ev.ids[2], 3);
    CHECK_EQ_INT(ev.ids[3], 4);
    zp__conns_remove(&t, &c[5]);
    zp__conns_remove(&t, &c[3]); /* evicted already: nothing happens */
    zp__conns_counts(&t, &st);
    CHECK_EQ_INT(st.unauthenticated, 0);
    CHECK_EQ_INT(st.evicted_timeout, 2);
    zp__conns_destroy(&t);

    /* Random operations against the twin, with a peer cap and without. */
    for (int round = 0; round < 2; round++) {
        unsigned cap = 5, per_peer = round ? 0 : 3;
        struct ref_conns r = {.n = 0};
        ev.n = 0;
        zp__conns_init(&t, cap, per_peer, 7, note_evict, &ev);
        memset(c, 0, sizeof c);
        bool open[NC] = {0};
        double now = 0;
        for (int step = 0; step < 4000; step++) {
            int op = (int)(check_rand64() % 4), id = (int)(check_rand64() % NC);
            now += (double)(check_rand64() % 100) / 100;
            int want[NC * 2], nw = 0;
            ev.n = 0;
            if (op <= 1 && !open[id]) {
                int p = (int)(check_rand64() % 3);
                memset(&c[id], 0, sizeof c[id]);
                c[id].peer[0] = 4;
                c[id].peer[1] = (uint8_t)p;
                c[id].peer_len = 2;
                open[id] = true;
                zp__conns_add(&t, &c[id], now);
                r.id[r.n] = id, r.peer[r.n] = p, r.t0[r.n] = now, r.n++;
                int mine = 0, first = -1;
                for (int i = 0; i < r.n; i++)
                    if (r.peer[i] == p && mine++ == 0)
                        first = i;
                if (per_peer && mine > (int)per_peer) {
                    want[nw++] = r.id[first];
                    ref_drop(&r, first);
                }
                if (r.n > (int)cap) {
                    want[nw++] = r.id[0];
                    ref_drop(&r, 0);
                }
                CHECK(ref_find(&r, id) >= 0); /* the new one always stays */
            } else if (op == 2 && open[id]) {
                if (check_rand64() % 2) {
                    zp__conns_authenticated(&t, &c[id]);
                } else {
                    zp__conns_remove(&t, &c[id]);
                    open[id] = false;
                }
                int at = ref_find(&r, id);
                if (at >= 0)
                    ref_drop(&r, at);
            } else if (op == 3) {
                size_t got = zp__conns_expire(&t, now);
                while (r.n && now - r.t0[0] >= 7) {
                    want[nw++] = r.id[0];
                    ref_drop(&r, 0);
                }
                CHECK_EQ_INT(got, nw);
            }
            /* Evicted ones close later; a closed one may reopen. */
            for (int i = 0; i < ev.n; i++)
                open[ev.ids[i]] = false;
            CHECK_EQ_INT(ev.n, nw);
            for (int i = 0; i < nw && i < ev.n; i++)
                CHECK_EQ_INT(ev.ids[i], want[i]);
            zp__conns_counts(&t, &st);
            CHECK_EQ_INT(st.unauthenticated, r.n);
            CHECK(st.unauthenticated <= cap);
        }
        zp__conns_destroy(&t);
    }
}

static void test_body_budget(void)
{
    _Atomic uint64_t used = 0;
    CHECK(zp__budget_take(&used, 100, 60));
    CHECK(!zp__budget_take(&used, 100, 41));
    CHECK(zp__budget_take(&used, 100, 40));
    CHECK(!zp__budget_take(&used, 100, 1));
    CHECK(!zp__budget_take(&used, 100, UINT64_MAX)); /* no wrap-around */
    zp__budget_give(&used, 60);
    CHECK_EQ_INT(atomic_load(&used), 40);
    CHECK(!zp__budget_take(&used, 100, 61));
    CHECK(zp__budget_take(&used, 100, 60));
    CHECK_EQ_INT(atomic_load(&used), 100);
}

int main(void)
{
    make_tmpdir();
    RUN(test_b64_vectors);
    RUN(test_b64_random);
    RUN(test_b64_rejects);
    RUN(test_hex);
    RUN(test_ends_with);
    RUN(test_u256_dec);
    RUN(test_routes);
    RUN(test_plan_json);
    RUN(test_listen_parse);
    RUN(test_unix_socket);
    RUN(test_tcp_ephemeral);
    RUN(test_conns_limits);
    RUN(test_body_budget);
    rmdir(tmpdir);
    return FINISH();
}
