/* airlab: entry point and subcommand table. */
#include "cli.h"

#include "../results/store.h"
#include "../util/json_file.h"
#include "../util/proc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The harness's release; `airlab --version` adds the repo's commit. */
#define AIRLAB_VERSION "0.9"

static const struct subcommand subcommands[] = {
    {"up", cmd_up, "[--require-all] [--wait S]",
     "power on, flash, boot the DUT; associate all stations"},
    {"down", cmd_down, "[--stations]",
     "stop the stations on station hosts, power the cell's hosts off "
     "(--stations: only stop those stations)"},
    {"status", cmd_status, "[--wait S]",
     "power state, booted kernel, stations"},
    {"reassociate", cmd_reassociate, "STATION",
     "ask a station's wpa_supplicant to reassociate now"},
    {"power", cmd_power, "on|off|cycle|status HOST [--off S]",
     "switch a host's power (cycle proves it came back)"},
    {"console", cmd_console, "HOST [--log FILE] [--timeout S]",
     "attach to a host's serial console (Ctrl-] leaves)"},
    {"shell", cmd_shell, "HOST [--stdin] -- CMD...",
     "run a command on a host; exits with its status (255: airlab "
     "could not run it)"},
    {"run", cmd_run,
     "SUITE [--length S] [--step S] [--streams N] [--cc CC] [--out DIR] "
     "[--wait S]",
     "run a test suite on the cell, write results/<run-id>/"},
    {"suites", cmd_suites, "", "list the test suites"},
    {"runs", cmd_runs,
     "[--suite S] [--variant V] [--status S] [--last N] [--out DIR]",
     "list the stored runs, oldest first"},
    {"compare", cmd_compare,
     "RUN_A RUN_B | --baseline last-good RUN [--metric M] [--threshold X] "
     "[--out DIR]",
     "compare two runs per metric: change, 95% CI, verdict (exit 1: worse)"},
    {"report", cmd_report,
     "RUN... | --nightly DATE | --sweep ID [-o DIR] [--out RESULTS]",
     "static HTML report of runs: time series, CDF, stations, comparison"},
    {"nightly", cmd_nightly,
     "PLAN.yaml [--out RESULTS] | --resume DATE [--out RESULTS]",
     "run a nightly plan, compare with the last good night, report "
     "(exit 1: regressed, 3: a run partial, 4: the lab failed)"},
    {"reindex", cmd_reindex, "[--out DIR]",
     "rebuild results/airlab.db from the run directories"},
    {"atten", cmd_atten, "set PATH DB | get [PATH]",
     "set or read the attenuation of an RF path (set reads it back)"},
    {"medium", cmd_medium,
     "stats [--reset] | predict RATE [--mtu N] [--ampdu N] [--band 2|5]",
     "virtual medium counters per radio; the model's goodput at a rate"},
    {"sweep", cmd_sweep,
     "--path P[,P...] --from DB --to DB --step DB | --rates "
     "mcs:N,...|legacy:R,... [--station S,...] [--suite S] [--length S] "
     "[--dwell S] [--variant V[,V...]] [--out RESULTS]",
     "one run per attenuation or rate step, the link settled first; "
     "results/sweeps/ID/sweep.json"},
    {"bisect", cmd_bisect,
     "--repo DIR --good REV --bad REV --build CMD --metric M "
     "[--threshold X] [--runs N] [--max-runs N] [--suite S] [--length S] "
     "[--out RESULTS]",
     "git bisect run over a repo that builds the DUT's stack variant: "
     "the first commit that made M worse"},
    {"lava", cmd_lava,
     "export [--bench] [--plan PLAN] [--apply] [--worker W] [--out DIR] "
     "| submit PLAN.yaml "
     "--server URL --token-file FILE [--wait] [--timeout S] "
     "[--artifacts DIR] [--artifact-url URL] [--device-type T] "
     "[--assoc-wait S] [--out RESULTS] | results JOB... --server URL "
     "--token-file FILE [--out RESULTS] | bench-run PLAN SUITE VARIANT",
     "labs as LAVA devices, plans as LAVA jobs, finished jobs stored as "
     "runs"},
    {"bisect-step", cmd_bisect_step, "DIR",
     "one step of a bisect (what git bisect run calls)"},
};

#define NSUB (sizeof(subcommands) / sizeof(subcommands[0]))

int cli_is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

void cli_usage(FILE *f, const char *name)
{
	/* An action ("medium predict") has its command's usage. */
	size_t len = strcspn(name, " ");

	for (size_t i = 0; i < NSUB; i++) {
		if (strlen(subcommands[i].name) != len ||
		    strncmp(subcommands[i].name, name, len) != 0)
			continue;
		fprintf(f, "Usage: airlab %s %s\n  %s\n", subcommands[i].name,
			subcommands[i].args, subcommands[i].summary);
	}
	fprintf(f,
		"Common options:\n"
		"  --lab FILE        lab inventory (default lab/virtual.yaml)\n"
		"  --topology FILE   test cell (default "
		"topology/cell-4sta.yaml)\n"
		"  --variant NAME    stack variant from kernel/ (default "
		"mac80211-6.12)\n");
}

/* An action's part of a command's usage ("lava submit": the "submit ..."
 * alternative of lava's), else all of it. */
static void usage_args(const struct subcommand *sc, const char *action,
		       const char **args, int *len)
{
	const char *p = sc->args;

	*args = p;
	*len = (int)strlen(p);
	if (!action)
		return;
	for (;;) {
		size_t n = strlen(action), seg = strcspn(p, "|");

		while (*p == ' ')
			p++, seg--;
		if (!strncmp(p, action, n) && (p[n] == ' ' || !p[n])) {
			*args = p;
			*len = (int)seg;
			while (*len > 0 && p[*len - 1] == ' ')
				--*len;
			return;
		}
		if (!p[seg])
			return;
		p += seg + 1;
	}
}

int cli_usage_error(const char *cmd, const char *what)
{
	size_t len = strcspn(cmd, " ");
	const char *action = cmd[len] ? cmd + len + 1 : NULL, *args;
	int alen;

	for (size_t i = 0; i < NSUB; i++)
		if (strlen(subcommands[i].name) == len &&
		    !strncmp(subcommands[i].name, cmd, len)) {
			usage_args(&subcommands[i], action, &args, &alen);
			fprintf(stderr,
				"airlab %s: %s (usage: airlab %s %.*s)\n", cmd,
				what, subcommands[i].name, alen, args);
			return AL_EXIT_USAGE;
		}
	fprintf(stderr, "airlab %s: %s\n", cmd, what);
	return AL_EXIT_USAGE;
}

static const char exit_statuses[] =
    "Exit status: 0 ok; 1 a metric got worse, or a result is incomplete;\n"
    "  2 bad input, refused before the lab is touched; 3 partial (part of\n"
    "  the flows or stations); 4 the lab, a device or the disk failed.\n";

void cli_usage_flags(FILE *f, const char *name, const struct cli_flag *flags)
{
	cli_usage(f, name);
	if (flags && flags->flag)
		fprintf(f, "Options:\n");
	for (; flags && flags->flag; flags++) {
		const char *h = flags->help ? flags->help : "";
		const char *tab = strchr(h, '\t');
		char left[64];

		snprintf(left, sizeof(left), "%s%s%.*s", flags->flag,
			 tab && tab > h ? " " : "", tab ? (int)(tab - h) : 0,
			 h);
		fprintf(f, "  %-20s %s\n", left, tab ? tab + 1 : h);
	}
	fputs(exit_statuses, f);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: airlab [COMMON OPTIONS] COMMAND [ARGS]\n"
		   "       airlab help [COMMAND] | --version\n\n"
		   "airlab drives a WiFi test lab: real or virtual.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < NSUB; i++)
		fprintf(f, "  %-12s %s\n", subcommands[i].name,
			subcommands[i].summary);
	fprintf(f, "\n'airlab COMMAND --help' (or 'airlab help COMMAND') "
		   "shows a command's options;\n--opt value and --opt=value "
		   "are the same.\n\n");
	fputs(exit_statuses, f);
}

/* Consumes a common option (--lab, --topology, --variant) at argv[*i];
 * returns 1 if it did, 0 if argv[*i] is something else, -1 on a missing
 * value. */
static int common_opt(int argc, char **argv, int *i, struct cli_opts *o)
{
	static const struct {
		const char *flag;
		size_t off, len;
	} opts[] = {
	    {"--lab", offsetof(struct cli_opts, lab), sizeof(o->lab)},
	    {"--topology", offsetof(struct cli_opts, topology),
	     sizeof(o->topology)},
	    {"--variant", offsetof(struct cli_opts, variant),
	     sizeof(o->variant)},
	};
	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		if (strcmp(argv[*i], opts[k].flag) != 0)
			continue;
		if (*i + 1 >= argc) {
			fprintf(stderr, "airlab: %s needs a value\n",
				opts[k].flag);
			return -1;
		}
		snprintf((char *)o + opts[k].off, opts[k].len, "%s",
			 argv[++*i]);
		return 1;
	}
	return 0;
}

/* A negative number ("-3", "-.5") is a positional value, not an option:
 * no option starts with a digit, and `atten set PATH -3` must reach the
 * attenuator's own range check. */
static bool is_positional(const char *arg)
{
	return arg[0] != '-' || isdigit((unsigned char)arg[1]) || arg[1] == '.';
}

int cli_parse_rest(const char *cmd, int argc, char **argv, struct cli_opts *o,
		   const struct cli_flag *flags, const char **pos, int npos,
		   int *rest)
{
	int np = 0, i;

	for (i = 1; i < argc; i++) {
		const struct cli_flag *f = flags;
		int r;

		if (rest && strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		/* The command's own flags first: `runs --variant X` filters
		 * by X, where the common --variant would pick what to flash. */
		while (f && f->flag && strcmp(f->flag, argv[i]))
			f++;
		if (!(f && f->flag)) {
			r = common_opt(argc, argv, &i, o);
			if (r < 0)
				return AL_EXIT_USAGE;
			if (r)
				continue;
		}
		if (cli_is_help(argv[i])) {
			cli_usage_flags(stdout, cmd, flags);
			return 0;
		}
		if (f && f->flag && !f->value) {
			*f->set = true;
		} else if (f && f->flag) {
			if (i + 1 >= argc) {
				fprintf(stderr, "airlab %s: %s needs a value\n",
					cmd, f->flag);
				return AL_EXIT_USAGE;
			}
			*f->value = argv[++i];
		} else if (is_positional(argv[i]) && np < npos) {
			pos[np++] = argv[i];
		} else if (rest && np == npos) {
			break; /* the words passed on start here */
		} else {
			fprintf(stderr,
				"airlab %s: unexpected '%s' (airlab help %s "
				"lists the options)\n",
				cmd, argv[i], cmd);
			return AL_EXIT_USAGE;
		}
	}
	if (rest)
		*rest = i;
	return -1;
}

int cli_parse(const char *cmd, int argc, char **argv, struct cli_opts *o,
	      const struct cli_flag *flags, const char **pos, int npos)
{
	return cli_parse_rest(cmd, argc, argv, o, flags, pos, npos, NULL);
}

const char *cli_results_dir(const struct cli_opts *o, const char *value,
			    char *buf, size_t len)
{
	if (value)
		return value;
	snprintf(buf, len, "%s/results", o->root);
	return buf;
}

int cli_fail(const struct al_err *err)
{
	fprintf(stderr, "airlab: %s\n", err->msg);
	return err->bad_input ? AL_EXIT_USAGE : AL_EXIT_LAB;
}

int cli_fail_usage(const struct al_err *err)
{
	cli_fail(err);
	return AL_EXIT_USAGE;
}

void cli_cell_num(double v, const char *fmt, int width)
{
	putchar(' ');
	if (isnan(v))
		printf("%*s", width, "-");
	else
		printf(fmt, v);
}

/* At most 86400: a day in seconds, far above any count of flows or
 * runs. */
int cli_count_arg(const char *cmd, const char *opt, const char *v,
		  const char *what, int min, int *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!*v || *end || n < min || n > 86400) {
		fprintf(stderr,
			"airlab %s: %s '%s' is not a whole number of "
			"%s from %d to 86400\n",
			cmd, opt, v, what, min);
		return -1;
	}
	*out = (int)n;
	return 0;
}

int cli_seconds_arg(const char *cmd, const char *opt, const char *v, int min,
		    int *out)
{
	return cli_count_arg(cmd, opt, v, "seconds", min, out);
}

int cli_cell_load(struct cell *c, struct cli_opts *o)
{
	struct al_err err;
	struct cell_paths p = {o->lab, o->topology, o->variant, o->variant_dir};
	const struct ap_ops *ap;

	if (cell_load(c, &p, &err) < 0) {
		cli_fail(&err);
		return -1;
	}
	/* The AP's driver, its settings and what the cell asks of it are
	 * checked before any command touches the lab. */
	if (bringup_check(c, &ap, &err) < 0) {
		cli_fail(&err);
		cell_free(c);
		return -1;
	}
	return 0;
}

int cli_host_arg(const char *cmd, const struct lab *lab, const char *name)
{
	if (lab_host_find(lab, name))
		return 0;
	fprintf(stderr, "airlab %s: %s: no host '%s' in this lab (hosts:", cmd,
		lab->path, name);
	for (int i = 0; i < lab->nhosts; i++)
		fprintf(stderr, "%s %s", i ? "," : "", lab->hosts[i].name);
	fprintf(stderr, ")\n");
	return -1;
}

static int dut_open_as(struct dut *d, const struct lab *lab, const char *name,
		       bool observe)
{
	struct al_err err = {0};

	int rc;

	if ((observe ? dut_observe : dut_open)(d, lab, name, &err) < 0) {
		rc = cli_fail(&err);
		dut_close(d);
		return rc;
	}
	return AL_EXIT_OK;
}

int cli_dut_open(struct dut *d, const struct lab *lab, const char *name)
{
	return dut_open_as(d, lab, name, false);
}

int cli_dut_observe(struct dut *d, const struct lab *lab, const char *name)
{
	return dut_open_as(d, lab, name, true);
}

/* Defaults are the repo's files, found next to the binary (build/airlab)
 * so airlab works from any directory. */
static void default_paths(struct cli_opts *o)
{
	char bin[PATH_MAX - 8], root[PATH_MAX] = ".";
	const char *env = getenv("AIRLAB_ROOT");

	if (env)
		snprintf(root, sizeof(root), "%s", env);
	else if (path_self_dir(bin, sizeof(bin)) == 0)
		snprintf(root, sizeof(root), "%s/..", bin);
	snprintf(o->lab, sizeof(o->lab), "%s/lab/virtual.yaml", root);
	snprintf(o->topology, sizeof(o->topology), "%s/topology/cell-4sta.yaml",
		 root);
	snprintf(o->variant, sizeof(o->variant), "mac80211-6.12");
	snprintf(o->variant_dir, sizeof(o->variant_dir), "%s/kernel", root);
	snprintf(o->root, sizeof(o->root), "%s", root);
}

/* "--opt=value" becomes "--opt" "value" for every parser, up to a bare
 * "--" (what follows it is a remote command's own). The pieces live as
 * long as the process. */
static char **split_equals(int *argc, char **argv)
{
	char **out = calloc((size_t)*argc * 2 + 1, sizeof(*out));
	int n = 0, rest = 0;

	if (!out)
		return argv;
	for (int i = 0; i < *argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (!strcmp(argv[i], "--"))
			rest = 1;
		if (rest || strncmp(argv[i], "--", 2) || !eq ||
		    eq == argv[i] + 2) {
			out[n++] = argv[i];
			continue;
		}
		out[n++] = strndup(argv[i], (size_t)(eq - argv[i]));
		out[n++] = (char *)eq + 1;
	}
	*argc = n;
	return out;
}

static void version(void)
{
	struct cli_opts o = {0};
	char commit[128];

	char root[PATH_MAX];

	default_paths(&o);
	proc_git_commit(o.root, commit, sizeof(commit));
	printf("airlab %s (commit %s, %s)\n", AIRLAB_VERSION, commit,
	       realpath(o.root, root) ? root : o.root);
}

int main(int argc, char **argv)
{
	struct cli_opts o = {0};
	int i = 1;

	argv = split_equals(&argc, argv);
	default_paths(&o);
	/* Common options may also come before the command. */
	for (; i < argc; i++) {
		int r = common_opt(argc, argv, &i, &o);
		if (r < 0)
			return AL_EXIT_USAGE;
		if (r == 0)
			break;
	}
	if (i >= argc) {
		usage(stderr);
		return AL_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "--version")) {
		version();
		return 0;
	}
	if (cli_is_help(argv[i]) || strcmp(argv[i], "help") == 0) {
		/* help CMD: that command's usage */
		if (i + 1 < argc && !cli_is_help(argv[i + 1])) {
			for (size_t k = 0; k < NSUB; k++)
				if (!strcmp(argv[i + 1], subcommands[k].name)) {
					/* the command's own --help: its
					 * options with their defaults */
					char help_arg[] = "--help";
					char *hv[] = {argv[i + 1], help_arg,
						      NULL};

					return subcommands[k].run(2, hv, &o);
				}
			fprintf(stderr,
				"airlab help: unknown command '%s' (airlab "
				"help lists them)\n",
				argv[i + 1]);
			return AL_EXIT_USAGE;
		}
		usage(stdout);
		return 0;
	}
	for (size_t k = 0; k < NSUB; k++)
		if (strcmp(argv[i], subcommands[k].name) == 0)
			return subcommands[k].run(argc - i, argv + i, &o);
	fprintf(stderr,
		"airlab: unknown command '%s' (airlab help lists them)\n",
		argv[i]);
	return AL_EXIT_USAGE;
}
