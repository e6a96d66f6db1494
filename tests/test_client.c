/*
 * The daemon's client (libzkpipe_client): address parsing, and the HTTP
 * transport against a scripted fake server on a unix socket or on TCP
 * (127.0.0.1, an ephemeral port): Content-Length, chunked and until-close
 * answers, 100-continue, an early refusal before a large upload, bodies
 * streamed from a file, bounded answers, unreachable addresses and a
 * silent server. The client against the real daemon is server.test.sh.
 * Exit 77 (skipped) after the address tests in a build without libcurl.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "client/client.h"

static void test_client_addr(void)
{
    zp__cli_addr a;
    char why[256];
    CHECK(zp__cli_addr_parse(&a, "unix:///run/z.sock", why, sizeof why) && a.is_unix &&
          !strcmp(a.path, "/run/z.sock"));
    CHECK(zp__cli_addr_parse(&a, "http://127.0.0.1:8080", why, sizeof why) && !a.is_unix &&
          !strcmp(a.host, "127.0.0.1") && !strcmp(a.port, "8080"));
    CHECK(zp__cli_addr_parse(&a, "http://[::1]:9/", why, sizeof why) && !strcmp(a.host, "::1") &&
          !strcmp(a.port, "9"));
    CHECK(zp__cli_addr_parse(&a, "tcp://h:1", why, sizeof why));
    CHECK(!zp__cli_addr_parse(&a, "http://h", why, sizeof why));
    CHECK(!zp__cli_addr_parse(&a, "ftp://h:1", why, sizeof why));
    CHECK(!zp__cli_addr_parse(&a, "unix://", why, sizeof why));
}

static char tmpdir[64];

/* ------------------------------------------------------- the fake server */

/* Accepts one connection, reads the request head, then: sends first (if
 * any); with second, reads body_len body bytes and sends second; with
 * drain, reads until the client closes. It records the head, the first
 * bytes of the body, how many body bytes came and their checksum. */
struct fake {
    bool tcp;
    const char *first;
    const char *second;
    size_t body_len;
    bool drain;
    int lfd;
    char head[4096];
    char body[256];
    size_t got;
    uint64_t sum;
};

static uint64_t sum_step(uint64_t s, unsigned char c) { return (s ^ c) * 0x100000001b3ULL; }

static void read_head_raw(int fd, char *out, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t k = recv(fd, out + n, 1, 0);
        if (k <= 0)
            break;
        n++;
        if (n >= 4 && !memcmp(out + n - 4, "\r\n\r\n", 4))
            break;
    }
    out[n] = 0;
}

/* Reads body bytes until want have come (SIZE_MAX: until EOF). */
static void read_body_raw(struct fake *f, int c, size_t want)
{
    char buf[65536];
    while (f->got < want) {
        size_t ask = want - f->got < sizeof buf ? want - f->got : sizeof buf;
        ssize_t k = recv(c, buf, ask, 0);
        if (k <= 0)
            break;
        for (ssize_t i = 0; i < k; i++) {
            if (f->got + (size_t)i < sizeof f->body)
                f->body[f->got + (size_t)i] = buf[i];
            f->sum = sum_step(f->sum, (unsigned char)buf[i]);
        }
        f->got += (size_t)k;
    }
}

static void *fake_main(void *arg)
{
    struct fake *f = arg;
    int c = accept(f->lfd, NULL, NULL);
    if (c < 0)
        return NULL;
    read_head_raw(c, f->head, sizeof f->head);
    if (f->first)
        send(c, f->first, strlen(f->first), MSG_NOSIGNAL);
    if (f->second) {
        read_body_raw(f, c, f->body_len);
        send(c, f->second, strlen(f->second), MSG_NOSIGNAL);
    } else if (f->drain) {
        read_body_raw(f, c, SIZE_MAX);
    }
    close(c);
    return NULL;
}

/* A listening socket for f; its address in spec. */
static bool fake_listen(struct fake *f, char *spec, size_t cap)
{
    if (f->tcp) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t sl = sizeof sa;
        f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&sa, sizeof sa) ||
            getsockname(f->lfd, (struct sockaddr *)&sa, &sl))
            return false;
        snprintf(spec, cap, "http://127.0.0.1:%d", ntohs(sa.sin_port));
    } else {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/fake.sock", tmpdir);
        unlink(sa.sun_path);
        f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&sa, sizeof sa))
            return false;
        snprintf(spec, cap, "unix://%s", sa.sun_path);
    }
    return listen(f->lfd, 4) == 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char last_why[512];
static double last_s; /* how long the last call took */

static bool fake_call_t(struct fake *f, zp__http_resp *r, const char *method, const char *target,
                        const zp__http_body *body, size_t max, double timeout_s)
{
    char spec[200];
    bool up = fake_listen(f, spec, sizeof spec);
    CHECK(up);
    if (!up)
        return false;
    pthread_t t;
    pthread_create(&t, NULL, fake_main, f);
    zp__cli_addr a;
    CHECK(zp__cli_addr_parse(&a, spec, last_why, sizeof last_why));
    last_why[0] = 0;
    double t0 = now_s();
    bool ok = zp__http_do(r, &a, "s3cret", method, target, body, timeout_s, max, last_why, sizeof last_why);
    last_s = now_s() - t0;
    if (!ok)
        printf("     (%s)\n", last_why);
    shutdown(f->lfd, SHUT_RDWR); /* a fake never reached leaves accept() */
    pthread_join(t, NULL);
    close(f->lfd);
    return ok;
}

static bool fake_call(struct fake *f, zp__http_resp *r, const char *method, const char *target,
                      const zp__http_body *body, size_t max)
{
    return fake_call_t(f, r, method, target, body, max, 5);
}

/* ------------------------------------------------------- the tests */

static void test_answers(void)
{
    zp__http_resp r;
    for (int tcp = 0; tcp < 2; tcp++) {
        struct fake f = {.tcp = tcp,
                         .first = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                  "Content-Length: 7\r\n\r\n{\"a\":1}"};
        CHECK(fake_call(&f, &r, "GET", "/v1/jobs/x?wait=1.5", NULL, 1000));
        CHECK_EQ_INT(r.status, 200);
        CHECK(r.len == 7 && !strcmp(r.body, "{\"a\":1}"));
        CHECK(!strcmp(r.ctype, "application/json"));
        CHECK(!strncmp(f.head, "GET /v1/jobs/x?wait=1.5 HTTP/1.1\r\n", 34));
        CHECK(strstr(f.head, "\r\nAuthorization: Bearer s3cret\r\n") != NULL);
        zp__http_resp_free(&r);
    }

    /* Characters outside the query-safe set go percent-encoded. */
    struct fake p = {.first = "HTTP/1.1 204 No Content\r\n\r\n"};
    CHECK(fake_call(&p, &r, "DELETE", "/v1/jobs/a!b c", NULL, 1000));
    CHECK(r.status == 204 && r.len == 0 && r.body && !r.body[0]);
    CHECK(!strncmp(p.head, "DELETE /v1/jobs/a%21b%20c HTTP/1.1\r\n", 36));
    zp__http_resp_free(&r);

    struct fake g = {.first = "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n"};
    CHECK(fake_call(&g, &r, "GET", "/x", NULL, 1000));
    CHECK_EQ_INT(r.status, 404);
    CHECK(r.len == 19 && !strcmp(r.body, "abc0123456789abcdef"));
    zp__http_resp_free(&r);

    struct fake h = {.first = "HTTP/1.0 200 OK\r\n\r\nuntil close"};
    CHECK(fake_call(&h, &r, "GET", "/x", NULL, 1000));
    CHECK(r.status == 200 && !strcmp(r.body, "until close"));
    zp__http_resp_free(&r);
}

static void test_bodies(void)
{
    zp__http_resp r;
    /* 100-continue, then the body, then the answer. */
    zp__http_body body = {.data = "{\"k\":2}", .len = 7, .fd = -1, .ctype = "application/json"};
    struct fake c = {.first = "HTTP/1.1 100 Continue\r\n\r\n", .body_len = 7,
                     .second = "HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok"};
    CHECK(fake_call(&c, &r, "POST", "/v1/jobs", &body, 1000));
    CHECK(r.status == 202 && !strcmp(r.body, "ok"));
    CHECK(!memcmp(c.body, "{\"k\":2}", 7));
    CHECK(strstr(c.head, "Content-Length: 7\r\n") && strstr(c.head, "Expect: 100-continue\r\n"));
    CHECK(strstr(c.head, "Content-Type: application/json\r\n") != NULL);
    zp__http_resp_free(&r);

    /* Chunked: the same body in chunk framing. */
    static const char framed[] = "7\r\n{\"k\":2}\r\n0\r\n\r\n";
    body.chunked = true;
    struct fake k = {.tcp = true, .first = "HTTP/1.1 100 Continue\r\n\r\n", .body_len = sizeof framed - 1,
                     .second = "HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok"};
    CHECK(fake_call(&k, &r, "POST", "/v1/jobs", &body, 1000));
    CHECK(r.status == 202 && !strcmp(r.body, "ok"));
    CHECK(k.got == sizeof framed - 1 && !memcmp(k.body, framed, sizeof framed - 1));
    CHECK(strstr(k.head, "Transfer-Encoding: chunked\r\n") && !strstr(k.head, "Content-Length"));
    zp__http_resp_free(&r);

    /* A server that never says "100 Continue" gets the body anyway. */
    body.chunked = false;
    struct fake s = {.body_len = 7, .second = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"};
    CHECK(fake_call(&s, &r, "PUT", "/x", &body, 1000));
    CHECK(r.status == 201 && r.len == 0 && !memcmp(s.body, "{\"k\":2}", 7));
    CHECK(!strncmp(s.head, "PUT /x HTTP/1.1\r\n", 17));
    zp__http_resp_free(&r);
}

/* A file of n pseudo-random bytes, open for reading; its checksum in *sum. */
static int random_file(size_t n, uint64_t *sum)
{
    char path[128];
    snprintf(path, sizeof path, "%s/body.bin", tmpdir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return -1;
    *sum = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)check_rand64();
        *sum = sum_step(*sum, c);
        fputc(c, f);
    }
    fclose(f);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    unlink(path);
    return fd;
}

static void test_file_upload(void)
{
    zp__http_resp r;
    size_t n = (size_t)3 << 20;
    uint64_t sum;
    int fd = random_file(n, &sum);
    zp__http_body body = {.fd = fd, .len = n, .ctype = "application/octet-stream"};
    struct fake u = {.first = "HTTP/1.1 100 Continue\r\n\r\n", .body_len = n,
                     .second = "HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok"};
    CHECK(fake_call(&u, &r, "POST", "/v1/jobs?key=k", &body, 1000));
    CHECK(r.status == 202 && !strcmp(r.body, "ok"));
    CHECK(u.got == n && u.sum == sum);
    CHECK(strstr(u.head, "Content-Type: application/octet-stream\r\n") != NULL);
    zp__http_resp_free(&r);

    /* A file shorter than the length it was announced with. */
    lseek(fd, 0, SEEK_SET);
    body.len = n + 10;
    struct fake s = {.first = "HTTP/1.1 100 Continue\r\n\r\n", .drain = true};
    CHECK(!fake_call(&s, &r, "POST", "/v1/jobs?key=k", &body, 1000));
    CHECK(strstr(last_why, "request body") != NULL);
    close(fd);
}

/* An early refusal (401, 413) is the answer, and the body is never sent:
 * the fake counts what comes after its answer until the client closes. */
static void test_early_refusal(void)
{
    zp__http_resp r;
    uint64_t sum;
    size_t n = (size_t)8 << 20;
    int fd = random_file(n, &sum);
    zp__http_body big = {.fd = fd, .len = n, .ctype = "application/octet-stream"};
    for (int chunked = 0; chunked < 2; chunked++) {
        big.chunked = chunked;
        lseek(fd, 0, SEEK_SET);
        struct fake e = {.tcp = true, .drain = true,
                         .first = "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
                                  "Content-Length: 16\r\n\r\n{\"error\":\"auth\"}"};
        CHECK(fake_call(&e, &r, "POST", "/v1/jobs?key=k", &big, 1000));
        CHECK(r.status == 401 && !strcmp(r.body, "{\"error\":\"auth\"}"));
        CHECK_EQ_INT(e.got, 0);
        zp__http_resp_free(&r);
    }
    close(fd);

    zp__http_body body = {.data = "{\"k\":2}", .len = 7, .fd = -1, .ctype = "application/json"};
    struct fake e = {.first = "HTTP/1.1 413 Content Too Large\r\nContent-Length: 3\r\n\r\nbig"};
    CHECK(fake_call(&e, &r, "POST", "/v1/jobs", &body, 1000));
    CHECK(r.status == 413 && !strcmp(r.body, "big"));
    zp__http_resp_free(&r);
}

/* Bounded: an answer over max fails, with Content-Length or chunked; so do
 * garbage and an answer cut short. */
static void test_bad_answers(void)
{
    zp__http_resp r;
    struct fake big = {.first = "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n"};
    CHECK(!fake_call(&big, &r, "GET", "/x", NULL, 1000));
    CHECK_EQ_INT(r.status, 0);
    CHECK(r.body == NULL && strstr(last_why, "over 1000 bytes"));

    static char chunks[2048];
    char part[601];
    memset(part, 'x', 600);
    part[600] = 0;
    snprintf(chunks, sizeof chunks,
             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n%s\r\n258\r\n%s\r\n0\r\n\r\n", part,
             part);
    struct fake bigc = {.first = chunks};
    CHECK(!fake_call(&bigc, &r, "GET", "/x", NULL, 1000));
    CHECK(r.status == 0 && strstr(last_why, "over 1000 bytes"));
    struct fake okc = {.first = chunks};
    CHECK(fake_call(&okc, &r, "GET", "/x", NULL, 1200));
    CHECK(r.status == 200 && r.len == 1200);
    zp__http_resp_free(&r);

    struct fake junk = {.first = "SSH-2.0-OpenSSH\r\n\r\n"};
    CHECK(!fake_call(&junk, &r, "GET", "/x", NULL, 1000));
    struct fake cut = {.first = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"};
    CHECK(!fake_call(&cut, &r, "GET", "/x", NULL, 1000));
    CHECK(r.status == 0 && r.body == NULL);
}

static void test_unreachable(void)
{
    zp__cli_addr a;
    zp__http_resp r;
    char spec[200], why[512];
    snprintf(spec, sizeof spec, "unix://%s/nobody.sock", tmpdir);
    CHECK(zp__cli_addr_parse(&a, spec, why, sizeof why));
    CHECK(!zp__http_do(&r, &a, NULL, "GET", "/healthz", NULL, 5, 1000, why, sizeof why));
    CHECK(r.status == 0 && strstr(why, "cannot connect to") && strstr(why, spec));
    printf("     (%s)\n", why);

    /* A TCP port nobody listens on: bound, then closed. */
    struct fake f = {.tcp = true};
    CHECK(fake_listen(&f, spec, sizeof spec));
    close(f.lfd);
    CHECK(zp__cli_addr_parse(&a, spec, why, sizeof why));
    CHECK(!zp__http_do(&r, &a, NULL, "GET", "/healthz", NULL, 5, 1000, why, sizeof why));
    CHECK(r.status == 0 && strstr(why, "cannot connect to") && strstr(why, spec));
    printf("     (%s)\n", why);
}

/* A server that accepts and says nothing: the call gives up after its
 * timeout, not before, and says so. */
static void test_silent_server(void)
{
    zp__http_resp r;
    struct fake s = {.drain = true};
    CHECK(!fake_call_t(&s, &r, "GET", "/x", NULL, 1000, 1));
    CHECK(r.status == 0 && strstr(last_why, "timed out"));
    CHECK(last_s > 0.9 && last_s < 4);

    /* It also answers the head, then stalls in the body. */
    struct fake b = {.tcp = true, .drain = true, .first = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"};
    CHECK(!fake_call_t(&b, &r, "GET", "/x", NULL, 1000, 1));
    CHECK(r.status == 0 && strstr(last_why, "timed out"));
    CHECK(last_s > 0.9 && last_s < 4);
}

/* Several threads at once, as bench batch --addr runs them. */
static void *one_call(void *arg)
{
    struct fake *f = arg;
    zp__http_resp r;
    bool ok = fake_call(f, &r, "GET", "/x", NULL, 1000);
    f->got = ok && r.status == 200 && !strcmp(r.body, "hi");
    if (ok)
        zp__http_resp_free(&r);
    return NULL;
}

static void test_threads(void)
{
    enum { N = 4 };
    struct fake f[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        f[i] = (struct fake){.tcp = true, .first = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"};
        pthread_create(&t[i], NULL, one_call, &f[i]);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_INT(f[i].got, 1);
    }
}

/* In a build without libcurl every request fails saying so. */
static bool have_transport(void)
{
    zp__cli_addr a;
    zp__http_resp r;
    char why[512];
    zp__cli_addr_parse(&a, "unix:///nonexistent/zp.sock", why, sizeof why);
    return zp__http_do(&r, &a, NULL, "GET", "/", NULL, 1, 100, why, sizeof why) ||
           strcmp(why, ZP__HTTP_NO_CLIENT) != 0;
}

int main(void)
{
    RUN(test_client_addr);
    if (!have_transport()) {
        printf("%s: the HTTP tests are skipped\n", ZP__HTTP_NO_CLIENT);
        return tests_failed ? 1 : 77;
    }
    strcpy(tmpdir, "/tmp/zp_test_client_XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
    RUN(test_answers);
    RUN(test_bodies);
    RUN(test_file_upload);
    RUN(test_early_refusal);
    RUN(test_bad_answers);
    RUN(test_unreachable);
    RUN(test_silent_server);
    RUN(test_threads);
    rmdir(tmpdir);
    return FINISH();
}
