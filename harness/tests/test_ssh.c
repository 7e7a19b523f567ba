/* The ssh shell driver against a real dropbear (fixture_dropbear.h): exit
 * statuses, stdout/stderr/stdin, streaming, 5 MB each way, host key pinning,
 * known_hosts and its policies, key refusal, the open retry loop and its
 * timeout, a silent server, uploads (over SFTP: Debian's dropbear runs
 * /usr/lib/sftp-server, which openssh-sftp-server provides; without it the
 * driver falls back to cat, which test_flash_sysupgrade covers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <pthread.h>

#include "../drivers/driver.h"
#include "fixture_dropbear.h"

#define OPEN_TIMEOUT_MS 10000
#define BIG_LEN		(5 * 1024 * 1024)

static struct dropbear_fixture fx;
static int server_port;
static pid_t server_pid;

/* ---- a lab with one host dut1 whose shell binding points at dropbear ---- */

static void set(struct lab_binding *b, const char *key, const char *value)
{
	for (int i = 0; i < b->nparams; i++)
		if (strcmp(b->params[i].key, key) == 0) {
			free(b->params[i].value);
			b->params[i].value = strdup(value);
			return;
		}
	assert_true(b->nparams < LAB_MAX_PARAMS);
	snprintf(b->params[b->nparams].key, LAB_NAME_MAX, "%s", key);
	b->params[b->nparams].value = strdup(value);
	b->params[b->nparams].line = b->line + 1 + b->nparams;
	b->nparams++;
}

static void unset(struct lab_binding *b, const char *key)
{
	for (int i = 0; i < b->nparams; i++)
		if (strcmp(b->params[i].key, key) == 0) {
			free(b->params[i].value);
			b->params[i] = b->params[--b->nparams];
			return;
		}
}

static struct lab *new_lab(int port)
{
	struct lab *lab = calloc(1, sizeof(*lab));
	struct lab_host *h;
	char port_s[16];

	assert_non_null(lab);
	snprintf(lab->path, sizeof(lab->path), "test-ssh.yaml");
	snprintf(lab->name, sizeof(lab->name), "test-ssh");
	snprintf(lab->state_dir, sizeof(lab->state_dir), "%s", fx.dir);
	snprintf(lab->image_dir, sizeof(lab->image_dir), "%s", fx.dir);
	lab->nhosts = 1;
	h = &lab->hosts[0];
	snprintf(h->name, sizeof(h->name), "dut1");
	snprintf(h->state_dir, sizeof(h->state_dir), "%s", fx.dir);
	snprintf(h->shell.driver, sizeof(h->shell.driver), "ssh");
	h->shell.line = 20;
	snprintf(port_s, sizeof(port_s), "%d", port);
	set(&h->shell, "host", "127.0.0.1");
	set(&h->shell, "port", port_s);
	set(&h->shell, "user", "root");
	/* through lab_expand, as lab/virtual.yaml does */
	set(&h->shell, "key", "{images}/id_ed25519");
	set(&h->shell, "known_host_key", "{images}/host_key.pub");
	return lab;
}

static struct lab_binding *shell_of(struct lab *lab)
{
	return &lab->hosts[0].shell;
}

static void free_lab(struct lab *lab)
{
	struct lab_binding *b = shell_of(lab);

	for (int i = 0; i < b->nparams; i++)
		free(b->params[i].value);
	free(lab);
}

static int open_lab(struct lab *lab, int timeout_ms, struct shell_dev **d,
		    struct al_err *err)
{
	struct drv_target t = {lab, &lab->hosts[0], shell_of(lab)};

	err->msg[0] = '\0';
	return shell_ssh_ops.open(d, &t, timeout_ms, err);
}

static struct shell_dev *open_ok(struct lab *lab)
{
	struct shell_dev *d = NULL;
	struct al_err err;

	if (open_lab(lab, OPEN_TIMEOUT_MS, &d, &err) < 0)
		fail_msg("open: %s", err.msg);
	assert_non_null(d);
	return d;
}

/* ---- running a command with its output captured in files ---- */

struct capture {
	int rc, status;
	char *out, *errs;
	size_t out_len, err_len;
	struct al_err err;
};

static char *slurp(int fd, size_t *len)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *buf;

	assert_true(size >= 0);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)size, 0), size);
	buf[size] = '\0';
	*len = (size_t)size;
	return buf;
}

static int temp_fd(void)
{
	char path[DB_PATH + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/cap.XXXXXX", fx.dir);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

static void run_capture(struct shell_dev *d, const char *cmd, const void *in,
			size_t in_len, struct capture *c)
{
	int out_fd = temp_fd(), err_fd = temp_fd();

	memset(c, 0, sizeof(*c));
	c->status = -12345;
	c->rc = shell_ssh_ops.run(d, cmd, in, in_len, out_fd, err_fd,
				  &c->status, &c->err);
	c->out = slurp(out_fd, &c->out_len);
	c->errs = slurp(err_fd, &c->err_len);
	close(out_fd);
	close(err_fd);
}

static void capture_free(struct capture *c)
{
	free(c->out);
	free(c->errs);
}

static void assert_contains(const char *s, const char *want)
{
	if (!strstr(s, want))
		fail_msg("'%s' does not contain '%s'", s, want);
}

/* ---- tests ---- */

static void test_exit_status_several_runs(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = open_ok(lab);
	static const struct {
		const char *cmd;
		int status;
	} cases[] = {{"exit 0", 0},
		     {"exit 3", 3},
		     {"exit 255", 255},
		     {"true", 0},
		     {"false", 1}};

	(void)state;
	/* one session, many channels */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct capture c;

		run_capture(d, cases[i].cmd, NULL, 0, &c);
		if (c.rc < 0)
			fail_msg("run '%s': %s", cases[i].cmd, c.err.msg);
		assert_int_equal(c.status, cases[i].status);
		capture_free(&c);
	}
	shell_ssh_ops.close(d);
	free_lab(lab);
}

static void test_stdout_stderr_separate(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = open_ok(lab);
	struct capture c;

	(void)state;
	run_capture(d, "echo to-out; echo to-err >&2; echo more-out", NULL, 0,
		    &c);
	if (c.rc < 0)
		fail_msg("run: %s", c.err.msg);
	assert_int_equal(c.status, 0);
	assert_string_equal(c.out, "to-out\nmore-out\n");
	assert_string_equal(c.errs, "to-err\n");
	capture_free(&c);

	/* -1 discards */
	int status = -1;
	struct al_err err;
	assert_int_equal(shell_ssh_ops.run(d, "echo x; echo y >&2", NULL, 0, -1,
					   -1, &status, &err),
			 0);
	assert_int_equal(status, 0);
	shell_ssh_ops.close(d);
	free_lab(lab);
}

static void test_stdin_reaches_command(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = open_ok(lab);
	static const char text[] = "hello\nworld\n";
	struct capture c;

	(void)state;
	run_capture(d, "wc -c", text, strlen(text), &c);
	if (c.rc < 0)
		fail_msg("run: %s", c.err.msg);
	assert_int_equal(atoi(c.out), (int)strlen(text));
	capture_free(&c);

	/* no stdin data: the command sees EOF at once */
	run_capture(d, "cat; echo done", NULL, 0, &c);
	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out, "done\n");
	capture_free(&c);
	shell_ssh_ops.close(d);
	free_lab(lab);
}

static uint64_t fnv1a(const char *p, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

static char *random_bytes(size_t len)
{
	char *buf = malloc(len);
	FILE *r = fopen("/dev/urandom", "r");

	assert_non_null(buf);
	assert_non_null(r);
	assert_int_equal(fread(buf, 1, len, r), len);
	fclose(r);
	return buf;
}

static void test_big_output_and_input(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = open_ok(lab);
	char *big = random_bytes(BIG_LEN);
	char path[DB_PATH + 16], cmd[DB_PATH + 32];
	struct capture c;
	FILE *fp;

	(void)state;
	/* 5 MB out: the server's host is this host, so it reads our file */
	snprintf(path, sizeof(path), "%s/big.bin", fx.dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(big, 1, BIG_LEN, fp), BIG_LEN);
	assert_int_equal(fclose(fp), 0);
	snprintf(cmd, sizeof(cmd), "cat '%s'", path);
	run_capture(d, cmd, NULL, 0, &c);
	if (c.rc < 0)
		fail_msg("run: %s", c.err.msg);
	assert_int_equal(c.out_len, BIG_LEN);
	assert_true(fnv1a(c.out, c.out_len) == fnv1a(big, BIG_LEN));
	capture_free(&c);

	/* 5 MB in and the same 5 MB back at once: stdin and stdout must be
	 * pumped together or both sides' windows fill up */
	run_capture(d, "cat", big, BIG_LEN, &c);
	if (c.rc < 0)
		fail_msg("run cat: %s", c.err.msg);
	assert_int_equal(c.status, 0);
	assert_int_equal(c.out_len, BIG_LEN);
	assert_true(fnv1a(c.out, c.out_len) == fnv1a(big, BIG_LEN));
	capture_free(&c);

	/* a command that ignores its 5 MB of input still ends cleanly */
	run_capture(d, "exit 4", big, BIG_LEN, &c);
	if (c.rc < 0)
		fail_msg("run exit 4: %s", c.err.msg);
	assert_int_equal(c.status, 4);
	capture_free(&c);
	free(big);
	shell_ssh_ops.close(d);
	free_lab(lab);
}

struct first_byte {
	int fd;
	int64_t at_ms; /* when the first byte came out of the pipe */
	char buf[256];
	size_t len;
};

static void *read_pipe(void *arg)
{
	struct first_byte *fb = arg;
	ssize_t n;

	while ((n = read(fb->fd, fb->buf + fb->len,
			 sizeof(fb->buf) - 1 - fb->len)) > 0) {
		if (fb->len == 0)
			fb->at_ms = db_now_ms();
		fb->len += (size_t)n;
	}
	return NULL;
}

static void test_output_streams_while_running(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = open_ok(lab);
	struct first_byte fb = {0};
	struct al_err err;
	pthread_t th;
	int p[2], status = -1, rc;
	int64_t end;

	(void)state;
	assert_int_equal(pipe(p), 0);
	fb.fd = p[0];
	assert_int_equal(pthread_create(&th, NULL, read_pipe, &fb), 0);
	rc = shell_ssh_ops.run(d, "echo first; sleep 1.5; echo second", NULL, 0,
			       p[1], -1, &status, &err);
	end = db_now_ms();
	close(p[1]);
	pthread_join(th, NULL);
	close(p[0]);
	if (rc < 0)
		fail_msg("run: %s", err.msg);
	assert_string_equal(fb.buf, "first\nsecond\n");
	/* "first" arrived well before the command ended */
	if (end - fb.at_ms < 1000)
		fail_msg("first output came %lld ms before the end, expected "
			 ">= 1000 ms (output was buffered)",
			 (long long)(end - fb.at_ms));
	shell_ssh_ops.close(d);
	free_lab(lab);
}

struct stream_job {
	struct shell_dev *d;
	int in_fd, out_fd, status, rc;
	struct al_err err;
};

static void *stream_thread(void *arg)
{
	struct stream_job *j = arg;

	j->rc =
	    shell_ssh_ops.stream(j->d,
				 "while read l; do echo \"got $l\"; "
				 "done; exit 4",
				 j->in_fd, j->out_fd, -1, &j->status, &j->err);
	close(j->out_fd);
	return NULL;
}

/* Reads from fd until the text read so far contains want (or 10 s). */
static void read_until(int fd, char *buf, size_t len, const char *want)
{
	size_t have = strlen(buf);
	int64_t end = db_now_ms() + 10000;

	while (!strstr(buf, want)) {
		struct pollfd pf = {fd, POLLIN, 0};
		ssize_t n;

		if (db_now_ms() > end)
			fail_msg("no '%s' from the remote side; got '%s'", want,
				 buf);
		if (poll(&pf, 1, 100) <= 0)
			continue;
		n = read(fd, buf + have, len - 1 - have);
		if (n <= 0)
			fail_msg("output closed before '%s'; got '%s'", want,
				 buf);
		have += (size_t)n;
		buf[have] = 0;
	}
}

/* stream(): a line protocol where each line is written only after the
 * answer to the previous one came back. */
static void test_stream_is_interactive(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct stream_job j = {.d = open_ok(lab), .status = -1};
	int in[2], out[2];
	char buf[256] = "";
	pthread_t th;

	(void)state;
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	j.in_fd = in[0];
	j.out_fd = out[1];
	assert_int_equal(pthread_create(&th, NULL, stream_thread, &j), 0);
	assert_int_equal(write(in[1], "a\n", 2), 2);
	read_until(out[0], buf, sizeof(buf), "got a\n");
	assert_int_equal(write(in[1], "b\n", 2), 2);
	read_until(out[0], buf, sizeof(buf), "got b\n");
	close(in[1]); /* EOF ends the remote loop */
	pthread_join(th, NULL);
	close(in[0]);
	close(out[0]);
	if (j.rc < 0)
		fail_msg("stream: %s", j.err.msg);
	assert_string_equal(buf, "got a\ngot b\n");
	assert_int_equal(j.status, 4);
	shell_ssh_ops.close(j.d);
	free_lab(lab);
}

static void test_killed_by_signal(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = open_ok(lab);
	struct capture c;

	(void)state;
	run_capture(d, "kill -KILL $$", NULL, 0, &c);
	assert_int_equal(c.rc, -1);
	assert_contains(c.err.msg, "killed by signal KILL");
	capture_free(&c);
	/* the session survives it */
	run_capture(d, "echo still", NULL, 0, &c);
	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out, "still\n");
	capture_free(&c);
	shell_ssh_ops.close(d);
	free_lab(lab);
}

static void test_wrong_host_key(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = NULL;
	struct al_err err;
	char want[64];
	int64_t t0 = db_now_ms();

	(void)state;
	set(shell_of(lab), "known_host_key", fx.other_host_pub);
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	assert_null(d);
	snprintf(want, sizeof(want), "dut1: host key mismatch at 127.0.0.1:%d",
		 server_port);
	assert_contains(err.msg, want);
	assert_contains(err.msg, fx.other_host_pub);
	/* a mismatch is final: no retrying until the timeout */
	assert_true(db_now_ms() - t0 < OPEN_TIMEOUT_MS / 2);
	free_lab(lab);
}

static void test_wrong_client_key(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = NULL;
	struct al_err err;
	char want[96];
	int64_t t0 = db_now_ms();

	(void)state;
	set(shell_of(lab), "key", fx.other_key);
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	snprintf(want, sizeof(want),
		 "authentication failed at root@127.0.0.1:%d", server_port);
	assert_contains(err.msg, want);
	assert_contains(err.msg, fx.other_key);
	assert_true(db_now_ms() - t0 < OPEN_TIMEOUT_MS / 2);

	/* a key file that is not there */
	set(shell_of(lab), "key", "{images}/no-such-key");
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	assert_contains(err.msg, "no-such-key");
	free_lab(lab);
}

static void test_host_key_setting_required(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = NULL;
	struct al_err err;

	(void)state;
	unset(shell_of(lab), "known_host_key");
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	assert_contains(err.msg, "test-ssh.yaml:20: dut1: shell setting "
				 "known_host_key is missing");
	set(shell_of(lab), "insecure_accept_any_host_key", "no");
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	set(shell_of(lab), "insecure_accept_any_host_key", "yes");
	if (open_lab(lab, OPEN_TIMEOUT_MS, &d, &err) < 0)
		fail_msg("open with insecure_accept_any_host_key: %s", err.msg);
	shell_ssh_ops.close(d);
	free_lab(lab);
}

/* exec_prefix wraps every command (sudo, ip netns exec): the command,
 * quotes and all, reaches sh -c whole; stdin and status pass through. An
 * unknown setting is refused with its line. */
static void test_exec_prefix(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d;
	struct capture c;
	struct al_err err;

	(void)state;
	set(shell_of(lab), "exec_prefix", "env AIRLAB_PREFIXED=yes");
	d = open_ok(lab);
	run_capture(d, "echo \"$AIRLAB_PREFIXED 'q'\"; cat; exit 7", "in\n", 3,
		    &c);
	if (c.rc < 0)
		fail_msg("run: %s", c.err.msg);
	assert_int_equal(c.status, 7);
	assert_string_equal(c.out, "yes 'q'\nin\n");
	capture_free(&c);
	shell_ssh_ops.close(d);
	set(shell_of(lab), "exec_prefx", "sudo");
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	assert_contains(err.msg, "dut1 shell (driver ssh): unknown setting "
				 "'exec_prefx'");
	free_lab(lab);
}

static void test_nothing_listening_times_out(void **state)
{
	int port = db_free_port();
	struct lab *lab = new_lab(port);
	struct shell_dev *d = NULL;
	struct al_err err;
	char want[128];
	int64_t t0 = db_now_ms(), took;

	(void)state;
	assert_true(port > 0);
	assert_int_equal(open_lab(lab, 1500, &d, &err), -1);
	took = db_now_ms() - t0;
	snprintf(want, sizeof(want),
		 "dut1: no SSH answer from root@127.0.0.1:%d within 1.5 s "
		 "(last error: ",
		 port);
	assert_contains(err.msg, want);
	if (took < 1500 || took > 3000)
		fail_msg("open gave up after %lld ms, expected 1500..3000",
			 (long long)took);
	free_lab(lab);
}

/* A listener that is not an SSH server: like a port forwarder whose
 * target is not up yet, it drops each connection, or holds it silent. */
struct fake_listener {
	int fd;
	bool silent;
	int held[64];
	int nheld;
};

static void *accept_loop(void *arg)
{
	struct fake_listener *l = arg;
	int c;

	while ((c = accept(l->fd, NULL, NULL)) >= 0) {
		if (l->silent && l->nheld < 64)
			l->held[l->nheld++] = c;
		else
			close(c);
	}
	return NULL;
}

static void open_against_listener(bool silent)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	struct fake_listener l = {.silent = silent};
	struct shell_dev *d = NULL;
	struct al_err err;
	struct lab *lab;
	char want[128];
	pthread_t th;
	int64_t t0, took;

	l.fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l.fd >= 0);
	assert_int_equal(bind(l.fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l.fd, 16), 0);
	assert_int_equal(getsockname(l.fd, (struct sockaddr *)&a, &alen), 0);
	assert_int_equal(pthread_create(&th, NULL, accept_loop, &l), 0);
	lab = new_lab(ntohs(a.sin_port));
	/* longer than the whole wait: the attempt must still end in time */
	set(shell_of(lab), "connect_timeout_s", "30");
	t0 = db_now_ms();
	assert_int_equal(open_lab(lab, 1500, &d, &err), -1);
	took = db_now_ms() - t0;
	shutdown(l.fd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(l.fd);
	for (int i = 0; i < l.nheld; i++)
		close(l.held[i]);
	snprintf(want, sizeof(want),
		 "dut1: no SSH answer from root@127.0.0.1:%d within 1.5 s "
		 "(last error: ",
		 ntohs(a.sin_port));
	assert_contains(err.msg, want);
	if (took < 1500 || took > 3000)
		fail_msg("open gave up after %lld ms, expected 1500..3000",
			 (long long)took);
	free_lab(lab);
}

static void test_dropping_listener_times_out(void **state)
{
	(void)state;
	open_against_listener(false);
}

static void test_silent_listener_times_out(void **state)
{
	(void)state;
	open_against_listener(true);
}

static void test_open_waits_for_late_server(void **state)
{
	int port = db_free_port();
	struct lab *lab = new_lab(port);
	struct shell_dev *d = NULL;
	struct al_err err;
	struct capture c;
	int64_t t0 = db_now_ms(), took;
	pid_t pid;
	int rc;

	(void)state;
	assert_true(port > 0);
	pid = db_start(&fx, port, 1000);
	assert_true(pid > 0);
	rc = open_lab(lab, OPEN_TIMEOUT_MS, &d, &err);
	took = db_now_ms() - t0;
	if (rc < 0) {
		db_stop(pid);
		fail_msg("open: %s", err.msg);
	}
	assert_true(took >= 900);
	run_capture(d, "echo late", NULL, 0, &c);
	assert_int_equal(c.rc, 0);
	assert_string_equal(c.out, "late\n");
	capture_free(&c);
	shell_ssh_ops.close(d);
	db_stop(pid);
	free_lab(lab);
}

static void test_silent_server_detected(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d;
	struct capture c;
	char pidfile[DB_PATH + 16], cmd[DB_PATH + 64];
	pid_t conn;
	int sleeper = 0;
	int64_t t0, took;
	FILE *fp;

	(void)state;
	set(shell_of(lab), "alive_timeout_s", "2");
	set(shell_of(lab), "connect_timeout_s", "2");
	d = open_ok(lab);
	/* the command's parent is the server process of this connection */
	run_capture(d, "echo $PPID", NULL, 0, &c);
	assert_int_equal(c.rc, 0);
	conn = (pid_t)atoi(c.out);
	assert_true(conn > 1);
	capture_free(&c);

	/* the server freezes after starting the command: a hung DUT */
	snprintf(pidfile, sizeof(pidfile), "%s/sleeper.pid", fx.dir);
	snprintf(cmd, sizeof(cmd),
		 "echo $$ >'%s'; kill -STOP $PPID; exec sleep 8", pidfile);
	t0 = db_now_ms();
	run_capture(d, cmd, NULL, 0, &c);
	took = db_now_ms() - t0;
	kill(conn, SIGCONT);
	fp = fopen(pidfile, "r");
	if (fp && fscanf(fp, "%d", &sleeper) == 1 && sleeper > 1)
		kill(sleeper, SIGTERM);
	if (fp)
		fclose(fp);
	assert_int_equal(c.rc, -1);
	assert_contains(c.err.msg, "no answer from the server for 2 s while "
				   "running 'echo $$");
	if (took > 5000)
		fail_msg("silence noticed after %lld ms, expected ~2000",
			 (long long)took);
	capture_free(&c);
	shell_ssh_ops.close(d);
	/* let the server reap them before it is stopped: no zombies left */
	for (int64_t end = db_now_ms() + 3000; db_now_ms() < end;) {
		if (kill(conn, 0) < 0 && (sleeper <= 1 || kill(sleeper, 0) < 0))
			break;
		usleep(10 * 1000);
	}
	free_lab(lab);
}

/* ---- known_hosts ---- */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_non_null(buf);
	if (f) {
		size_t n = fread(buf, 1, 65535, f);

		buf[n] = 0;
		fclose(f);
	}
	return buf;
}

/* known_hosts with the line "[127.0.0.1]:PORT <key in pub>". */
static void write_known_hosts(const char *path, const char *pub)
{
	char *key = read_text(pub);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "# airlab test\n[127.0.0.1]:%d %s", server_port, key);
	assert_int_equal(fclose(f), 0);
	free(key);
}

static struct lab *known_hosts_lab(const char *file, const char *policy)
{
	struct lab *lab = new_lab(server_port);

	unset(shell_of(lab), "known_host_key");
	set(shell_of(lab), "known_hosts", file);
	if (policy)
		set(shell_of(lab), "host_key_policy", policy);
	return lab;
}

static void test_known_hosts_unknown_host(void **state)
{
	char file[DB_PATH + 32], want[1024], fp[128];
	struct shell_dev *d = NULL;
	struct al_err err;
	struct lab *lab;
	char *text;

	(void)state;
	db_fingerprint(fx.host_pub, fp, sizeof(fp));
	snprintf(file, sizeof(file), "%s/kh-unknown", fx.dir);
	unlink(file);
	/* strict (the default): refused, the file stays as it was */
	lab = known_hosts_lab(file, NULL);
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	assert_null(d);
	snprintf(want, sizeof(want),
		 "dut1: unknown host 127.0.0.1 port %d: known_hosts %s has no "
		 "key for it (host_key_policy: strict)",
		 server_port, file);
	assert_contains(err.msg, want);
	assert_contains(err.msg, fp);
	assert_int_equal(access(file, F_OK), -1);
	free_lab(lab);

	/* accept-new: learned and written */
	lab = known_hosts_lab(file, "accept-new");
	d = open_ok(lab);
	shell_ssh_ops.close(d);
	free_lab(lab);
	text = read_text(file);
	snprintf(want, sizeof(want), "[127.0.0.1]:%d ssh-ed25519 AAAA",
		 server_port);
	assert_contains(text, want);
	free(text);

	/* and from then on known, also under strict */
	lab = known_hosts_lab(file, "strict");
	d = open_ok(lab);
	shell_ssh_ops.close(d);
	free_lab(lab);
}

static void test_known_hosts_changed_key(void **state)
{
	char file[DB_PATH + 32], want[1024], fp[128], old_fp[128];
	struct shell_dev *d = NULL;
	struct al_err err;
	struct lab *lab;
	char *text, *key, *b64;

	(void)state;
	db_fingerprint(fx.host_pub, fp, sizeof(fp));
	db_fingerprint(fx.other_host_pub, old_fp, sizeof(old_fp));
	snprintf(file, sizeof(file), "%s/kh-changed", fx.dir);
	write_known_hosts(file, fx.other_host_pub);
	/* refused by strict and by accept-new, naming both keys */
	for (int i = 0; i < 2; i++) {
		lab = known_hosts_lab(file, i ? "accept-new" : "strict");
		assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
		assert_null(d);
		snprintf(want, sizeof(want),
			 "dut1: host key of 127.0.0.1 port %d CHANGED: "
			 "known_hosts %s has ssh-ed25519 %s, the server now "
			 "offers ssh-ed25519 %s; refused (host_key_policy: %s",
			 server_port, file, old_fp, fp,
			 i ? "accept-new" : "strict");
		assert_contains(err.msg, want);
		free_lab(lab);
	}
	/* accept-changed: in, and the file holds the new key only */
	lab = known_hosts_lab(file, "accept-changed");
	d = open_ok(lab);
	shell_ssh_ops.close(d);
	free_lab(lab);
	text = read_text(file);
	assert_contains(text, "# airlab test\n");
	key = read_text(fx.other_host_pub);
	b64 = key + strcspn(key, " ") + 1; /* past "ssh-ed25519 " */
	b64[strcspn(b64, " \n")] = 0;
	if (strstr(text, b64))
		fail_msg("the old key is still in %s:\n%s", file, text);
	free(key);
	key = read_text(fx.host_pub);
	b64 = key + strcspn(key, " ") + 1;
	b64[strcspn(b64, " \n")] = 0;
	assert_contains(text, b64);
	free(key);
	free(text);
	lab = known_hosts_lab(file, "strict");
	d = open_ok(lab);
	shell_ssh_ops.close(d);
	free_lab(lab);
}

static void test_known_hosts_settings(void **state)
{
	char file[DB_PATH + 32];
	struct shell_dev *d = NULL;
	struct al_err err;
	struct lab *lab = new_lab(server_port);

	(void)state;
	snprintf(file, sizeof(file), "%s/kh-settings", fx.dir);
	set(shell_of(lab), "known_hosts", file);
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	assert_contains(err.msg, "test-ssh.yaml:20: dut1: shell settings "
				 "known_host_key and known_hosts both given");
	unset(shell_of(lab), "known_hosts");
	set(shell_of(lab), "host_key_policy", "accept-new");
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	assert_contains(err.msg, "host_key_policy needs known_hosts");
	unset(shell_of(lab), "known_host_key");
	set(shell_of(lab), "known_hosts", file);
	set(shell_of(lab), "host_key_policy", "tofu");
	assert_int_equal(open_lab(lab, OPEN_TIMEOUT_MS, &d, &err), -1);
	assert_contains(err.msg, "test-ssh.yaml:26: dut1 shell (driver ssh): "
				 "host_key_policy 'tofu' is not one of "
				 "strict, accept-new, accept-changed");
	free_lab(lab);
}

/* ---- upload ---- */

struct progress_seen {
	long long last_done, total;
	int calls;
};

static void on_progress(void *ctx, long long done, long long total)
{
	struct progress_seen *p = ctx;

	p->last_done = done;
	p->total = total;
	p->calls++;
}

static void test_upload(void **state)
{
	struct lab *lab = new_lab(server_port);
	struct shell_dev *d = open_ok(lab);
	char *big = random_bytes(BIG_LEN);
	char src[DB_PATH + 16], dst[DB_PATH + 16], bad[DB_PATH + 32];
	struct progress_seen p = {0};
	struct al_err err;
	struct stat st;
	size_t len;
	FILE *fp;
	int fd;

	(void)state;
	snprintf(src, sizeof(src), "%s/up-src.bin", fx.dir);
	snprintf(dst, sizeof(dst), "%s/up-dst.bin", fx.dir);
	fp = fopen(src, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(big, 1, BIG_LEN, fp), BIG_LEN);
	assert_int_equal(fclose(fp), 0);
	if (shell_ssh_ops.upload(d, src, dst, 0640, on_progress, &p, &err) < 0)
		fail_msg("upload: %s", err.msg);
	/* the server's host is this host: the copy is right here */
	assert_int_equal(stat(dst, &st), 0);
	assert_int_equal(st.st_size, BIG_LEN);
	assert_int_equal(st.st_mode & 0777, 0640);
	fd = open(dst, O_RDONLY);
	assert_true(fd >= 0);
	{
		char *back = slurp(fd, &len);

		assert_int_equal(len, BIG_LEN);
		assert_true(fnv1a(back, len) == fnv1a(big, BIG_LEN));
		free(back);
	}
	close(fd);
	assert_true(p.calls > 0);
	assert_true(p.last_done == BIG_LEN && p.total == BIG_LEN);

	/* a directory that is not there: the error says where and what */
	snprintf(bad, sizeof(bad), "%s/no-such-dir/x.bin", fx.dir);
	assert_int_equal(
	    shell_ssh_ops.upload(d, src, bad, 0600, NULL, NULL, &err), -1);
	assert_contains(err.msg, "root@127.0.0.1:");
	assert_contains(err.msg, bad);
	free(big);
	shell_ssh_ops.close(d);
	free_lab(lab);
}

static int group_setup(void **state)
{
	(void)state;
	return db_up(&fx, &server_port, &server_pid);
}

static int group_teardown(void **state)
{
	(void)state;
	db_stop(server_pid);
	db_teardown(&fx);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_status_several_runs),
	    cmocka_unit_test(test_stdout_stderr_separate),
	    cmocka_unit_test(test_stdin_reaches_command),
	    cmocka_unit_test(test_big_output_and_input),
	    cmocka_unit_test(test_output_streams_while_running),
	    cmocka_unit_test(test_stream_is_interactive),
	    cmocka_unit_test(test_killed_by_signal),
	    cmocka_unit_test(test_wrong_host_key),
	    cmocka_unit_test(test_wrong_client_key),
	    cmocka_unit_test(test_host_key_setting_required),
	    cmocka_unit_test(test_known_hosts_unknown_host),
	    cmocka_unit_test(test_known_hosts_changed_key),
	    cmocka_unit_test(test_known_hosts_settings),
	    cmocka_unit_test(test_upload),
	    cmocka_unit_test(test_exec_prefix),
	    cmocka_unit_test(test_nothing_listening_times_out),
	    cmocka_unit_test(test_dropping_listener_times_out),
	    cmocka_unit_test(test_silent_listener_times_out),
	    cmocka_unit_test(test_open_waits_for_late_server),
	    cmocka_unit_test(test_silent_server_detected),
	};

	/* a failed write to a closed pipe is an error to report, not death */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
