/* The log module (src/base/log.c): both formats, escaping, level filtering,
 * cut lines, and lines of many threads that never interleave. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "check.h"

static FILE *sink;

/* Points the log at a fresh temporary file. */
static void start(zp__log_level level, zp__log_format format)
{
    if (sink)
        fclose(sink);
    sink = tmpfile();
    CHECK(sink != NULL);
    zp__log_setup(level, format, fileno(sink));
}

/* Everything logged since start(), NUL-terminated. */
static char *logged(void)
{
    static char buf[1 << 20];
    long n = lseek(fileno(sink), 0, SEEK_CUR);
    CHECK(n >= 0 && n < (long)sizeof buf);
    ssize_t r = pread(fileno(sink), buf, (size_t)n, 0);
    CHECK(r == n);
    buf[r < 0 ? 0 : r] = 0;
    return buf;
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" at s. */
static int is_time(const char *s)
{
    static const char pat[] = "dddd-dd-ddTdd:dd:dd.dddZ";
    for (size_t i = 0; i < sizeof pat - 1; i++) {
        if (pat[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != pat[i])
            return 0;
    }
    return 1;
}

static void test_text(void)
{
    start(ZP__LOG_INFO, ZP__LOG_TEXT);
    zp__log(ZP__LOG_INFO, "key.resident", "key=%s gpu=%d plan=%s", "porep", 0,
            "resident L; streamed A");
    const char *s = logged();
    CHECK(is_time(s));
    CHECK(!strcmp(s + 24, " info key.resident key=porep gpu=0 plan=\"resident L; streamed A\"\n"));
}

static void test_json(void)
{
    start(ZP__LOG_INFO, ZP__LOG_JSON);
    zp__log(ZP__LOG_WARN, "key.resident", "key=%s gpu=%d plan=%s", "porep", 0,
            "resident L; streamed A");
    const char *s = logged();
    CHECK(!strncmp(s, "{\"time\":\"", 9));
    CHECK(is_time(s + 9));
    CHECK(!strcmp(s + 33, "\",\"level\":\"warn\",\"event\":\"key.resident\",\"key\":\"porep\","
                          "\"gpu\":0,\"plan\":\"resident L; streamed A\"}\n"));
}

/* Which values are numbers and which strings, in both forms. */
static void test_types(void)
{
    const char *fields = "a=%llu b=%zu c=%.1f d=%g e=%x f=sm_%d%d g=done h=%s i=%d%% j=%5d k=%ld";
#define ARGS 18446744073709551615ull, (size_t)7, 2.25, NAN, 255u, 9, 0, "", 50, 3, -4l
    start(ZP__LOG_DEBUG, ZP__LOG_JSON);
    zp__log(ZP__LOG_DEBUG, "t", fields, ARGS);
    const char *s = strstr(logged(), "\"event\"");
    CHECK(s && !strcmp(s, "\"event\":\"t\",\"a\":18446744073709551615,\"b\":7,\"c\":2.2,"
                          "\"d\":\"nan\",\"e\":\"ff\",\"f\":\"sm_90\",\"g\":\"done\",\"h\":\"\","
                          "\"i\":\"50%\",\"j\":\"    3\",\"k\":-4}\n"));
    start(ZP__LOG_DEBUG, ZP__LOG_TEXT);
    zp__log(ZP__LOG_DEBUG, "t", fields, ARGS);
    s = logged();
    CHECK(!strcmp(s + 24, " debug t a=18446744073709551615 b=7 c=2.2 d=nan e=ff f=sm_90 g=done "
                          "h=\"\" i=50% j=\"    3\" k=-4\n"));
#undef ARGS
    start(ZP__LOG_DEBUG, ZP__LOG_JSON);
    zp__log_ev ev;
    CHECK(zp__log_begin(&ev, ZP__LOG_ERROR, "b"));
    zp__log_bool(&ev, "y", true);
    zp__log_int(&ev, "i", -5);
    zp__log_uint(&ev, "u", 5);
    zp__log_num(&ev, "n", 1.5);
    zp__log_num(&ev, "inf", INFINITY);
    zp__log_str(&ev, "s", NULL);
    zp__log_end(&ev);
    s = strstr(logged(), "\"level\"");
    CHECK(s && !strcmp(s, "\"level\":\"error\",\"event\":\"b\",\"y\":true,\"i\":-5,\"u\":5,"
                          "\"n\":1.5,\"inf\":\"inf\",\"s\":\"(null)\"}\n"));
    zp__log(ZP__LOG_INFO, "none", NULL);
    CHECK(strstr(logged(), "\"event\":\"none\"}\n") != NULL);
}

/* Quotes, backslashes, control bytes, well-formed UTF-8 kept, and bytes
 * that are not UTF-8: stray continuations, a cut sequence, a surrogate,
 * an overlong form, 0xff. */
static void test_escaping(void)
{
    const char *v = "a\"b\\c\nd\x01\x7f\xff\xc3\xa9\xe2\x82\xed\xa0\x80\xc0\xaf\t\xf0\x9f\x98\x80";
    start(ZP__LOG_INFO, ZP__LOG_JSON);
    zp__log(ZP__LOG_INFO, "e\"v", "v=%s", v);
    const char *s = strstr(logged(), "\"event\"");
    CHECK(s && !strcmp(s, "\"event\":\"e\\\"v\",\"v\":\"a\\\"b\\\\c\\nd\\u0001\\u007f\\ufffd\xc3\xa9"
                          "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\t\xf0\x9f\x98\x80\"}\n"));
    start(ZP__LOG_INFO, ZP__LOG_TEXT);
    zp__log(ZP__LOG_INFO, "e", "v=%s w=%s x=%s", v, "a=b", "caf\xc3\xa9");
    s = logged();
    CHECK(!strcmp(s + 24, " info e v=\"a\\\"b\\\\c\\nd\\x01\\x7f\\xff\xc3\xa9\\xe2\\x82\\xed\\xa0\\x80"
                          "\\xc0\\xaf\\t\xf0\x9f\x98\x80\" w=\"a=b\" x=caf\xc3\xa9\n"));
}

static void test_levels(void)
{
    CHECK(!strcmp(zp__log_level_name(ZP__LOG_WARN), "warn"));
    zp__log_level l;
    zp__log_format f;
    CHECK(zp__log_level_parse(&l, "debug") && l == ZP__LOG_DEBUG);
    CHECK(zp__log_level_parse(&l, "error") && l == ZP__LOG_ERROR);
    CHECK(!zp__log_level_parse(&l, "verbose") && !zp__log_level_parse(&l, "INFO"));
    CHECK(zp__log_format_parse(&f, "json") && f == ZP__LOG_JSON);
    CHECK(zp__log_format_parse(&f, "text") && f == ZP__LOG_TEXT);
    CHECK(!zp__log_format_parse(&f, "xml"));

    start(ZP__LOG_WARN, ZP__LOG_TEXT);
    CHECK(zp__log_on(ZP__LOG_ERROR) && zp__log_on(ZP__LOG_WARN));
    CHECK(!zp__log_on(ZP__LOG_INFO) && !zp__log_on(ZP__LOG_DEBUG));
    zp__log(ZP__LOG_DEBUG, "d", NULL);
    zp__log(ZP__LOG_INFO, "i", NULL);
    zp__log(ZP__LOG_WARN, "w", NULL);
    zp__log(ZP__LOG_ERROR, "e", NULL);
    zp__log_ev ev;
    CHECK(!zp__log_begin(&ev, ZP__LOG_INFO, "i2"));
    const char *s = logged();
    CHECK(strlen(s) == 32 + 33);
    CHECK(!strncmp(s + 24, " warn w\n", 8) && !strcmp(s + 32 + 24, " error e\n"));
    start(ZP__LOG_ERROR, ZP__LOG_TEXT);
    zp__log(ZP__LOG_WARN, "w", NULL);
    CHECK(logged()[0] == 0);
}

/* A line past ZP__LOG_LINE_MAX is cut at an escape's edge and marked. */
static void test_cut(void)
{
    static char big[3 * ZP__LOG_LINE_MAX];
    for (int json = 0; json < 2; json++)
        for (int fill = 0; fill < 2; fill++) {
            memset(big, fill ? '"' : 'a', sizeof big - 1);
            start(ZP__LOG_INFO, json ? ZP__LOG_JSON : ZP__LOG_TEXT);
            zp__log(ZP__LOG_INFO, "big", "v=%s after=%d", big, 1);
            const char *s = logged();
            size_t n = strlen(s);
            CHECK(n <= ZP__LOG_LINE_MAX && n > ZP__LOG_LINE_MAX - 64);
            const char *tail = json   ? "\",\"cut\":true}\n"
                               : fill ? "\" cut=true\n"
                                      : " cut=true\n";
            CHECK(n > strlen(tail) && !strcmp(s + n - strlen(tail), tail));
            CHECK(strstr(s, "after") == NULL);
            /* The closing quote is not escaped: an even run of backslashes
             * before it. */
            size_t q = n - strlen(tail), bs = 0;
            while (q > bs && s[q - 1 - bs] == '\\')
                bs++;
            CHECK(bs % 2 == 0);
            CHECK(memchr(s, '\n', n - 1) == NULL);
        }
}

#define THREADS 4
#define LINES 500

static void *writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    char pad[300];
    memset(pad, 'a' + t, sizeof pad - 1);
    pad[sizeof pad - 1] = 0;
    for (int i = 0; i < LINES; i++)
        zp__log(ZP__LOG_INFO, "thread", "t=%d i=%d pad=%s", t, i, pad);
    return NULL;
}

/* Lines of threads logging at once come out whole. */
static void test_threads(void)
{
    start(ZP__LOG_INFO, ZP__LOG_JSON);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, writer, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    char *s = logged();
    int lines = 0, whole = 0;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        size_t n = strlen(line);
        char *pad = strstr(line, "\"pad\":\"");
        int t = -1;
        const char *tf = strstr(line, "\"t\":");
        if (tf)
            sscanf(tf, "\"t\":%d", &t);
        whole += line[0] == '{' && line[n - 1] == '}' && pad && strlen(pad) == 7 + 299 + 2 &&
                 t >= 0 && t < THREADS && pad[7] == 'a' + t && pad[7 + 298] == 'a' + t;
    }
    CHECK_EQ_INT(lines, THREADS * LINES);
    CHECK_EQ_INT(whole, THREADS * LINES);
}

int main(void)
{
    RUN(test_text);
    RUN(test_json);
    RUN(test_types);
    RUN(test_escaping);
    RUN(test_levels);
    RUN(test_cut);
    RUN(test_threads);
    zp__log_setup(ZP__LOG_INFO, ZP__LOG_TEXT, 2);
    return FINISH();
}
