/*
 * main.c — build/bpebench: one binary, one subcommand per job (SPEC §4).
 * Everything is in cli.c (cli_main), so tests can call it in process.
 */
#include "cli/cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
