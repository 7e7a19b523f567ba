/* The airlab CLI: a table of subcommands, one file each (harness/cli/). */
#ifndef AIRLAB_CLI_H
#define AIRLAB_CLI_H

#include "../cell/cell.h"
#include "../cell/dut.h"

struct cli_opts {
	char lab[4096];
	char topology[4096];
	char variant[256];
	char variant_dir[4096];
};

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv, struct cli_opts *o);
	const char *args;    /* usage after the name */
	const char *summary; /* one line for `airlab --help` */
};

/* Consumes a common option (--lab, --topology, --variant) at argv[*i];
 * returns 1 if it did, 0 if argv[*i] is something else, -1 on a missing
 * value. */
int cli_common_opt(int argc, char **argv, int *i, struct cli_opts *o);
/* Prints the usage of one subcommand (with the common options). */
void cli_usage(FILE *f, const char *name);
int cli_is_help(const char *arg);

/* Loads lab + topology + variant; prints the error and returns -1. */
int cli_cell_load(struct cell *c, struct cli_opts *o);
/* Opens the DUT that carries the AP of the topology. */
int cli_dut_open(struct dut *d, const struct lab *lab, const char *name);
/* Asks the DUT for its stations (waiting up to wait_s for all to
 * associate), prints the table; returns the row count or -1. */
int cli_report_stations(struct dut *d, const struct topology *t, int wait_s,
			int *nassoc);
/* Reports an error line on stderr and returns the exit status to use. */
int cli_fail(const struct al_err *err);

int cmd_up(int argc, char **argv, struct cli_opts *o);
int cmd_down(int argc, char **argv, struct cli_opts *o);
int cmd_status(int argc, char **argv, struct cli_opts *o);
int cmd_power(int argc, char **argv, struct cli_opts *o);
int cmd_console(int argc, char **argv, struct cli_opts *o);
int cmd_shell(int argc, char **argv, struct cli_opts *o);

#endif
