/* The airlab CLI: a table of subcommands, one file each (harness/cli/). */
#ifndef AIRLAB_CLI_H
#define AIRLAB_CLI_H

#include <jansson.h>

#include "../cell/cell.h"
#include "../cell/dut.h"
#include "../cell/stahost.h"
#include "../strategy/bringup.h"
#include "../util/path.h"

/* Exit statuses, one set for every command (README "Exit status",
 * man/airlab.1). `shell` passes the remote command's own status on and
 * `bisect-step` speaks git bisect run's protocol. */
enum {
	AL_EXIT_OK = 0,
	AL_EXIT_WORSE = 1,   /* a metric got worse, or a result is incomplete */
	AL_EXIT_USAGE = 2,   /* bad input, refused before the lab is touched */
	AL_EXIT_PARTIAL = 3, /* a run ended with part of its flows or hosts */
	AL_EXIT_LAB = 4,     /* the lab, a device or the disk failed */
};

struct cli_opts {
	char lab[4096];
	char topology[4096];
	char variant[256];
	char variant_dir[4096];
	char root[4096]; /* the airlab tree (results/, git commit) */
};

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv, struct cli_opts *o);
	const char *args;    /* usage after the name */
	const char *summary; /* one line for `airlab --help` */
};

struct cli_flag;
/* Bad arguments: one line on stderr, "airlab CMD: WHAT (usage: airlab
 * CMD ARGS)"; returns AL_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *what);
/* Prints the usage of one subcommand (with the common options). */
void cli_usage(FILE *f, const char *name);
/* The same with the command's own options, one line each (cli_flag's
 * help), and the exit statuses. */
void cli_usage_flags(FILE *f, const char *name, const struct cli_flag *flags);
int cli_is_help(const char *arg);

/* Loads lab + topology + variant; prints the error and returns -1. */
int cli_cell_load(struct cell *c, struct cli_opts *o);
/* Whether the lab has host name; otherwise prints the error for cmd with
 * the hosts it has and returns -1 (bad input: AL_EXIT_USAGE). */
int cli_host_arg(const char *cmd, const struct lab *lab, const char *name);
/* Opens a DUT host, taking its lock: one airlab process drives it.
 * AL_EXIT_OK, else the error is printed and its exit status returned
 * (AL_EXIT_USAGE for a driver setting the lab file gets wrong). */
int cli_dut_open(struct dut *d, const struct lab *lab, const char *name);
/* Opens it to watch, without the lock (console, shell, status): the
 * same returns. */
int cli_dut_observe(struct dut *d, const struct lab *lab, const char *name);
/* Parses a whole number of seconds >= min for option opt of command cmd;
 * prints the error and returns -1 when it is not one. */
int cli_seconds_arg(const char *cmd, const char *opt, const char *v, int min,
		    int *out);
/* The same for a count of what ("flows", "runs"). */
int cli_count_arg(const char *cmd, const char *opt, const char *v,
		  const char *what, int min, int *out);
/* An option of a subcommand: "--flag VALUE" stores VALUE in *value;
 * with value NULL it is a switch that sets *set. help is its line in
 * `COMMAND --help`: the value's name, a tab, what it does and its
 * default ("S\tseconds to wait (default 60)"; a switch has no name). */
struct cli_flag {
	const char *flag;
	const char **value;
	bool *set;
	const char *help;
};
/* Parses argv[1..] for cmd: the common options, flags (ending with a
 * {NULL} entry) and up to npos positional arguments (words that do not
 * start with '-', or negative numbers) into pos. Returns -1 to go on,
 * 0 after printing the help, 2 after printing what is wrong. */
int cli_parse(const char *cmd, int argc, char **argv, struct cli_opts *o,
	      const struct cli_flag *flags, const char **pos, int npos);
/* The same for a command that passes words on (shell's remote command):
 * parsing stops after "--", or at the first word past the npos
 * positionals that is not an option; *rest is the index of the first
 * word passed on (argc when there is none). */
int cli_parse_rest(const char *cmd, int argc, char **argv, struct cli_opts *o,
		   const struct cli_flag *flags, const char **pos, int npos,
		   int *rest);
/* The results directory: value when given, else ROOT/results. */
const char *cli_results_dir(const struct cli_opts *o, const char *value,
			    char *buf, size_t len);
/* --threshold: a relative change from 0 to 10 (0.05 = 5%); prints the
 * error for cmd and returns -1 otherwise. */
int cli_threshold_arg(const char *cmd, const char *v, double *out);
/* --metric: one `airlab compare` knows, else NULL after printing the error
 * with the known ones. */
struct cmp_metric;
const struct cmp_metric *cli_metric_arg(const char *cmd, const char *name);
/* Reports an error line on stderr and returns the exit status:
 * AL_EXIT_USAGE for bad input (err->bad_input), else AL_EXIT_LAB. */
int cli_fail(const struct al_err *err);
/* The same for bad input (a malformed file, an unknown name): returns
 * AL_EXIT_USAGE. */
int cli_fail_usage(const struct al_err *err);
/* A table cell: " " and v in fmt (e.g. "%9.1f"), or "-" right-aligned to
 * width when v is not a number (a run without that figure). */
void cli_cell_num(double v, const char *fmt, int width);

int cmd_up(int argc, char **argv, struct cli_opts *o);
int cmd_down(int argc, char **argv, struct cli_opts *o);
int cmd_status(int argc, char **argv, struct cli_opts *o);
int cmd_reassociate(int argc, char **argv, struct cli_opts *o);
int cmd_power(int argc, char **argv, struct cli_opts *o);
int cmd_console(int argc, char **argv, struct cli_opts *o);
int cmd_shell(int argc, char **argv, struct cli_opts *o);
int cmd_run(int argc, char **argv, struct cli_opts *o);
int cmd_suites(int argc, char **argv, struct cli_opts *o);
int cmd_runs(int argc, char **argv, struct cli_opts *o);
int cmd_reindex(int argc, char **argv, struct cli_opts *o);
int cmd_compare(int argc, char **argv, struct cli_opts *o);
int cmd_report(int argc, char **argv, struct cli_opts *o);
int cmd_nightly(int argc, char **argv, struct cli_opts *o);
int cmd_atten(int argc, char **argv, struct cli_opts *o);
int cmd_medium(int argc, char **argv, struct cli_opts *o);
int cmd_sweep(int argc, char **argv, struct cli_opts *o);
int cmd_bisect(int argc, char **argv, struct cli_opts *o);
int cmd_bisect_step(int argc, char **argv, struct cli_opts *o);
int cmd_lava(int argc, char **argv, struct cli_opts *o);

#endif
