/*
 * The daemon's config file parser (src/cli/config.c): single lines (keys,
 * quoting, comments, every malformed kind) and whole files (line numbers
 * in messages, CRLF, the line and file bounds, paths that are not regular
 * files). The CLI is not a library, so its one source file is compiled in.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "cli/config.c"

/* Parses a copy of text; returns the kind and copies key and value out. */
static int line(const char *text, char *key, char *val, const char **why)
{
    static char buf[8192];
    const char *k, *v;
    snprintf(buf, sizeof buf, "%s", text);
    int kind = zp__cfg_parse_line(buf, &k, &v, why);
    snprintf(key, 64, "%s", k ? k : "");
    snprintf(val, 256, "%s", v ? v : "");
    return kind;
}

static void test_lines_good(void)
{
    char k[64], v[256];
    const char *why;
    CHECK_EQ_INT(line("listen = unix:///run/z.sock", k, v, &why), ZP__CFG_ENTRY);
    CHECK(!strcmp(k, "listen") && !strcmp(v, "unix:///run/z.sock"));
    CHECK_EQ_INT(line("\tkey=porep=/var/lib/zkpipe/porep.zpk  \t", k, v, &why), ZP__CFG_ENTRY);
    CHECK(!strcmp(k, "key") && !strcmp(v, "porep=/var/lib/zkpipe/porep.zpk"));
    CHECK_EQ_INT(line("token = \" a b\\\"c\\\\ \"  ", k, v, &why), ZP__CFG_ENTRY);
    CHECK(!strcmp(k, "token") && !strcmp(v, " a b\"c\\ "));
    /* Only whole lines are comments: a '#' after a value belongs to it. */
    CHECK_EQ_INT(line("token = ab#cd", k, v, &why), ZP__CFG_ENTRY);
    CHECK(!strcmp(v, "ab#cd"));
    CHECK_EQ_INT(line("max-conns-per-peer = 0", k, v, &why), ZP__CFG_ENTRY);
    CHECK(!strcmp(k, "max-conns-per-peer") && !strcmp(v, "0"));
    CHECK_EQ_INT(line("", k, v, &why), ZP__CFG_BLANK);
    CHECK_EQ_INT(line("   \t ", k, v, &why), ZP__CFG_BLANK);
    CHECK_EQ_INT(line("# gpus = all", k, v, &why), ZP__CFG_BLANK);
    CHECK_EQ_INT(line("   #", k, v, &why), ZP__CFG_BLANK);
}

static void test_lines_bad(void)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"gpus all", "missing '='"},
        {"= 2", "no setting name"},
        {"   = 2", "no setting name"},
        {"gpus =", "no value"},
        {"gpus =   ", "no value"},
        {"Gpus = 2", "lower-case"},
        {"gp us = 2", "lower-case"},
        {"--gpus = 2", NULL}, /* '-' is allowed: the name is then unknown to serve */
        {"token = \"abc", "not closed"},
        {"token = \"abc\" x", "after the closing quote"},
        {"token = \"a\\nb\"", "escapes"},
        {"token = \"\"", "no value"},
        {"gpus = 2\x01", "control character"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char k[64], v[256];
        const char *why;
        int kind = line(bad[i].text, k, v, &why);
        if (!bad[i].why) {
            CHECK_EQ_INT(kind, ZP__CFG_ENTRY);
            continue;
        }
        CHECK_EQ_INT(kind, ZP__CFG_BAD);
        CHECK(why && strstr(why, bad[i].why));
        if (!why || !strstr(why, bad[i].why))
            fprintf(stderr, "  line %zu: %s -> %s\n", i, bad[i].text, why ? why : "(none)");
    }
}

static char tmp_dir[] = "/tmp/zp_test_config_XXXXXX";

static const char *write_file(const char *name, const char *data, size_t len)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f))
        return NULL;
    return path;
}

static void test_file_good(void)
{
    const char text[] = "# a comment\r\n\r\nlisten = unix:///x.sock\r\nkey = a=synth:porep:8\n"
                        "  key = b=synth:porep:9\ngpus = all";
    const char *p = write_file("good.conf", text, sizeof text - 1);
    zp__cfg c;
    char why[512] = "";
    CHECK(p && zp__cfg_load(&c, p, why, sizeof why));
    CHECK_EQ_INT(c.n, 4);
    if (c.n != 4)
        return;
    CHECK(!strcmp(c.entries[0].key, "listen") && !strcmp(c.entries[0].value, "unix:///x.sock"));
    CHECK_EQ_INT(c.entries[0].line, 3);
    CHECK(!strcmp(c.entries[2].value, "b=synth:porep:9"));
    CHECK_EQ_INT(c.entries[2].line, 5);
    CHECK(!strcmp(c.entries[3].key, "gpus") && !strcmp(c.entries[3].value, "all"));
    CHECK_EQ_INT(c.entries[3].line, 6);
    zp__cfg_free(&c);
}

/* load must fail with a message containing want. */
static void load_fails(const char *path, const char *want)
{
    zp__cfg c;
    char why[512] = "";
    CHECK(!zp__cfg_load(&c, path, why, sizeof why));
    CHECK(strstr(why, want) != NULL);
    if (!strstr(why, want))
        fprintf(stderr, "  %s: '%s' lacks '%s'\n", path, why, want);
}

static void test_file_bad(void)
{
    char path[300];
    const char two[] = "listen = x\n\n# c\ngpus two\n";
    const char *p = write_file("bad.conf", two, sizeof two - 1);
    snprintf(path, sizeof path, "%s:4: missing '='", p);
    load_fails(p, path);

    const char nul[] = "listen = x\ngpus = 1\0\n";
    p = write_file("nul.conf", nul, sizeof nul - 1);
    load_fails(p, ":2: a NUL byte");

    /* A line of exactly the bound is taken; one byte more is not. */
    char *big = malloc(ZP__CFG_LINE_MAX + 16);
    memset(big, 'a', ZP__CFG_LINE_MAX + 16);
    memcpy(big, "token = ", 8);
    big[ZP__CFG_LINE_MAX] = '\n';
    p = write_file("max.conf", big, ZP__CFG_LINE_MAX + 1);
    zp__cfg c;
    char why[512];
    CHECK(zp__cfg_load(&c, p, why, sizeof why));
    zp__cfg_free(&c);
    big[ZP__CFG_LINE_MAX] = 'a';
    big[ZP__CFG_LINE_MAX + 1] = '\n';
    p = write_file("long.conf", big, ZP__CFG_LINE_MAX + 2);
    load_fails(p, ":1: a line longer than 4096 bytes");
    free(big);

    /* Larger than the file bound, though every line is short. */
    size_t n = ZP__CFG_FILE_MAX + 2;
    char *huge = malloc(n);
    memset(huge, '\n', n);
    p = write_file("huge.conf", huge, n);
    zp__cfg h;
    CHECK(!zp__cfg_load(&h, p, why, sizeof why));
    free(huge);

    load_fails(tmp_dir, tmp_dir);
    load_fails("/dev/zero", "/dev/zero");
    snprintf(path, sizeof path, "%s/absent.conf", tmp_dir);
    load_fails(path, "absent.conf");
}

int main(void)
{
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_lines_good);
    RUN(test_lines_bad);
    RUN(test_file_good);
    RUN(test_file_bad);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp_dir);
    return FINISH();
}
