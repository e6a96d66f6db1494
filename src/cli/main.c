/* zkpipe command-line entry point: dispatches subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct zp__cli_cmd *find(const char *name)
{
    for (const struct zp__cli_cmd *c = zp__cli_cmds; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: zkpipe <command> [args]\n\ncommands:\n");
    for (const struct zp__cli_cmd *c = zp__cli_cmds; c->name; c++)
        fprintf(f, "  %-10s %s\n", c->name, c->summary);
    fprintf(f, "\nRun 'zkpipe <command> --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const struct zp__cli_cmd *c = find(argv[1]);
    if (!c) {
        fprintf(stderr, "zkpipe: unknown command '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    return c->run(argc - 1, argv + 1);
}
