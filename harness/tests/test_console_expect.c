/* Expect sessions (console/expect.c) over the real serial driver on a pty:
 * the test writes the "device" side. A pattern split across reads is
 * found, the earliest of several answers wins, NUL line noise does not
 * hide a prompt, a timeout quotes what the console said last, a vanished
 * port is an error naming it, and the log has one timestamped line per
 * console line with airlab's notes among them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pty.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../drivers/console/expect.h"

struct fixture {
	char dir[64], slave[128], log[128];
	int master;
	struct lab lab;
	struct lab_host host;
	struct drv_target t;
	struct console_session s;
	bool open;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct lab_param *p;
	int slave_fd;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/airlab-test-expect.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(openpty(&f->master, &slave_fd, f->slave, NULL, NULL),
			 0);
	close(slave_fd);
	snprintf(f->log, sizeof(f->log), "%s/console.log", f->dir);
	snprintf(f->lab.path, sizeof(f->lab.path), "lab/t.yaml");
	snprintf(f->host.name, sizeof(f->host.name), "ap1");
	snprintf(f->host.state_dir, sizeof(f->host.state_dir), "%s", f->dir);
	snprintf(f->host.console.driver, sizeof(f->host.console.driver),
		 "serial");
	p = &f->host.console.params[f->host.console.nparams++];
	snprintf(p->key, sizeof(p->key), "port");
	p->value = strdup(f->slave);
	assert_non_null(p->value);
	f->t.lab = &f->lab;
	f->t.host = &f->host;
	f->t.binding = &f->host.console;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->open)
		console_session_close(&f->s);
	if (f->master >= 0)
		close(f->master);
	free(f->host.console.params[0].value);
	unlink(f->log);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void session_open(struct fixture *f)
{
	struct al_err err = {0};

	if (console_session_open(&f->s, &console_serial_ops, &f->t, f->log,
				 &err) < 0)
		fail_msg("%s", err.msg);
	f->open = true;
}

static void device_says(struct fixture *f, const char *text, size_t len)
{
	assert_int_equal(write(f->master, text, len), (ssize_t)len);
}

#define SAYS(f, lit) device_says(f, lit, sizeof(lit) - 1)

/* The device says the rest of a line after delay_ms, from a child. */
static pid_t device_says_later(struct fixture *f, const char *text,
			       int delay_ms)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		usleep((useconds_t)delay_ms * 1000);
		_exit(write(f->master, text, strlen(text)) ==
			      (ssize_t)strlen(text)
			  ? 0
			  : 1);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void pattern_split_across_reads(void **state)
{
	struct fixture *f = *state;
	const char *autoboot = "Hit any key to stop autoboot";
	struct al_err err = {0};
	pid_t later;

	session_open(f);
	SAYS(f, "U-Boot 1.1.4 (Jun 10 2016)\r\nHit any key to st");
	later = device_says_later(f, "op autoboot:  2 \r", 300);
	if (console_expect(&f->s, &autoboot, 1, 5000, &err) != 0)
		fail_msg("%s", err.msg);
	reap(later);
	assert_non_null(strstr(f->s.before, "U-Boot 1.1.4"));
	/* What followed the match stays for the next expect. */
	SAYS(f, "\r\nath> ");
	const char *prompt = "ath> ";
	if (console_expect(&f->s, &prompt, 1, 2000, &err) != 0)
		fail_msg("%s", err.msg);
	assert_non_null(strstr(f->s.before, ":  2"));
}

static void earliest_answer_wins(void **state)
{
	struct fixture *f = *state;
	const char *answers[] = {"=> ", "TFTP error", "Retry count exceeded"};
	struct al_err err = {0};

	session_open(f);
	SAYS(f, "Loading: ###\r\nRetry count exceeded; starting again\r\n"
		"TFTP error: 'File not found' (1)\r\n=> ");
	assert_int_equal(console_expect(&f->s, answers, 3, 2000, &err), 2);
	assert_int_equal(console_expect(&f->s, answers, 3, 2000, &err), 1);
	assert_int_equal(console_expect(&f->s, answers, 3, 2000, &err), 0);
}

static void nul_noise_does_not_hide_a_prompt(void **state)
{
	struct fixture *f = *state;
	const char *prompt = "login:";
	struct al_err err = {0};

	session_open(f);
	device_says(f, "\0\0\0OpenWrt\0 login:", 19);
	if (console_expect(&f->s, &prompt, 1, 2000, &err) != 0)
		fail_msg("%s", err.msg);
}

static void timeout_quotes_the_console(void **state)
{
	struct fixture *f = *state;
	const char *prompt = "=> ";
	struct al_err err = {0};

	session_open(f);
	SAYS(f, "Starting kernel ...\r\n\x01\x02garbage\xff line");
	assert_int_equal(console_expect(&f->s, &prompt, 1, 400, &err), -1);
	if (!strstr(err.msg, "ap1 console ") || !strstr(err.msg, f->slave) ||
	    !strstr(err.msg, "no '=> ' within 400 ms") ||
	    !strstr(err.msg, "Starting kernel ...|..garbage. line"))
		fail_msg("%s", err.msg);
}

static void vanished_port_is_named(void **state)
{
	struct fixture *f = *state;
	const char *prompt = "=> ";
	struct al_err err = {0};

	session_open(f);
	close(f->master);
	f->master = -1;
	assert_int_equal(console_expect(&f->s, &prompt, 1, 5000, &err), -1);
	if (!strstr(err.msg, f->slave) || !strstr(err.msg, "hangup"))
		fail_msg("%s", err.msg);
}

static void log_lines_are_timestamped(void **state)
{
	struct fixture *f = *state;
	const char *prompt = "=> ";
	struct al_err err = {0};
	char text[1024], line[256];
	regex_t stamp;
	FILE *log;
	int lines = 0;
	size_t n;

	session_open(f);
	console_log_note(&f->s, "sending %s", "setenv ipaddr");
	SAYS(f, "first line\r\nsecond ");
	/* The rest of the second line comes later: still one log line. */
	pid_t later = device_says_later(f, "line\r\n=> ", 200);
	if (console_expect(&f->s, &prompt, 1, 3000, &err) != 0)
		fail_msg("%s", err.msg);
	reap(later);
	console_session_close(&f->s);
	f->open = false;

	log = fopen(f->log, "r");
	assert_non_null(log);
	n = fread(text, 1, sizeof(text) - 1, log);
	text[n] = 0;
	fclose(log);
	assert_null(strchr(text, '\r'));
	assert_non_null(strstr(text, "Z # airlab: sending setenv ipaddr\n"));
	assert_non_null(strstr(text, "Z first line\n"));
	assert_non_null(strstr(text, "Z second line\n"));
	assert_int_equal(
	    regcomp(&stamp,
		    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
		    "\\.[0-9]{3}Z ",
		    REG_EXTENDED | REG_NOSUB),
	    0);
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		snprintf(line, sizeof(line), "%s", l);
		if (regexec(&stamp, line, 0, NULL, 0) != 0)
			fail_msg("log line without a timestamp: '%s'", line);
		lines++;
	}
	regfree(&stamp);
	/* The note, two console lines and the prompt (closed mid-line). */
	assert_int_equal(lines, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(pattern_split_across_reads, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(earliest_answer_wins, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(nul_noise_does_not_hide_a_prompt,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(timeout_quotes_the_console, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(vanished_port_is_named, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(log_lines_are_timestamped, setup,
					    teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
