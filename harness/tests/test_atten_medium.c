/* The medium attenuator driver end to end: a real dropbear
 * (fixture_dropbear.h) runs the real airlab-medium client
 * (build/guest/airlab-medium -C), which talks to a stand-in daemon in
 * this test that answers with the real control protocol
 * (med_ctrl_handle). Also `airlab atten` and `airlab medium stats` on the
 * same lab. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sys/un.h>

#include "../cell/atten.h"
#include "../drivers/atten/medium.h"
#include "../medium/ctrl.h"
#include "../medium/medium.h"
#include "fixture_dropbear.h"
#include "fixture_repo.h"

static struct dropbear_fixture fx;
static int server_port;
static pid_t server_pid, daemon_pid;
static char sock_path[DB_PATH + 16], lab_file[DB_PATH + 16];

/* ---- the stand-in daemon: one command per connection ---- */

static void nop_status(void *ctx, const struct med_frame *f, bool acked,
		       const struct med_try used[MED_NRATES], int sig)
{
	(void)ctx, (void)f, (void)acked, (void)used, (void)sig;
}

static void serve(int lfd)
{
	static struct medium m;
	static char out[64 * 1024];
	struct med_ops ops = {NULL, nop_status, NULL};
	struct med_conf c;
	char err[128];

	med_conf_defaults(&c);
	c.nradios = 3;
	snprintf(c.radio[0].name, MED_NAME_MAX, "ap");
	snprintf(c.radio[1].name, MED_NAME_MAX, "sta1");
	snprintf(c.radio[1].path, MED_NAME_MAX, "path1");
	snprintf(c.radio[2].name, MED_NAME_MAX, "sta2");
	snprintf(c.radio[2].path, MED_NAME_MAX, "path2");
	if (med_init(&m, &c, &ops, 0, err, sizeof(err)) < 0) {
		fprintf(stderr, "stand-in medium: %s\n", err);
		_exit(1);
	}
	for (;;) {
		char line[MED_CTRL_LINE_MAX + 2];
		size_t len = 0;
		int fd = accept(lfd, NULL, NULL);
		ssize_t n;

		if (fd < 0)
			continue;
		while (len < sizeof(line) - 1 &&
		       (n = read(fd, line + len, sizeof(line) - 1 - len)) > 0) {
			len += (size_t)n;
			if (memchr(line, '\n', len))
				break;
		}
		line[len] = 0;
		line[strcspn(line, "\n")] = 0;
		len = med_ctrl_handle(&m, line, 1000000000LL, out, sizeof(out));
		if (write(fd, out, len) < 0)
			fprintf(stderr, "stand-in medium: write failed\n");
		close(fd);
	}
}

static pid_t daemon_start(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	pid_t pid;

	if (lfd < 0 || strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 8) < 0) {
		close(lfd);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		serve(lfd);
	}
	close(lfd);
	return pid;
}

/* ---- a lab: dut1's shell is dropbear, attenuator medium behind it ---- */

static int write_lab(const char *file, const char *socket, const char *command)
{
	FILE *f = fopen(file, "w");
	char client[PATH_MAX];

	if (!f)
		return -1;
	repo_path(client, sizeof(client), "build/guest/airlab-medium");
	fprintf(f,
		"lab: t\n"
		"state_dir: %s/state\n"
		"hosts:\n"
		"  dut1:\n"
		"    shell:\n"
		"      driver: ssh\n"
		"      host: 127.0.0.1\n"
		"      port: %d\n"
		"      user: root\n"
		"      key: %s\n"
		"      known_host_key: %s\n"
		"attenuators:\n"
		"  medium:\n" /* line 13 */
		"    driver: medium\n"
		"    host: dut1\n"
		"    socket: %s\n"
		"    command: %s\n"
		"    paths: path1 path2 path9\n",
		fx.dir, server_port, fx.client_key, fx.host_pub, socket,
		command ? command : client);
	return fclose(f);
}

static struct lab *load_lab(const char *socket, const char *command)
{
	struct lab *lab = calloc(1, sizeof(*lab));
	char file[DB_PATH + 32];
	struct al_err err;

	assert_non_null(lab);
	snprintf(file, sizeof(file), "%s/lab-%d.yaml", fx.dir, command ? 2 : 1);
	assert_int_equal(write_lab(file, socket, command), 0);
	if (lab_load(lab, file, &err) < 0)
		fail_msg("%s", err.msg);
	return lab;
}

static void open_ok(struct atten_handle *h, struct lab *lab)
{
	struct al_err err;

	if (atten_open(h, lab, &lab->attens[0], &err) < 0)
		fail_msg("open: %s", err.msg);
}

static void drop(struct atten_handle *h, struct lab *lab)
{
	atten_close(h);
	lab_free(lab);
	free(lab);
}

static void assert_contains(const char *s, const char *fragment)
{
	if (!strstr(s, fragment))
		fail_msg("'%s' does not contain '%s'", s, fragment);
}

static void set_then_read_back(void **state)
{
	struct lab *lab = load_lab(sock_path, NULL);
	struct atten_handle h;
	struct al_err err;
	double db = -1;
	char *reply = NULL;

	(void)state;
	open_ok(&h, lab);
	if (h.ops->set_db(h.dev, 2, 33.333, &err) < 0 ||
	    h.ops->get_db(h.dev, 2, &db, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(fabs(db - 33.33) < 1e-9);
	if (h.ops->set_db(h.dev, 2, 200, &err) < 0 ||
	    h.ops->get_db(h.dev, 2, &db, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(db == 200.0);
	/* channel 1 was never set */
	if (h.ops->get_db(h.dev, 1, &db, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(db == 0.0);

	if (medium_ctrl(h.dev, "stats", &reply, &err) < 0)
		fail_msg("%s", err.msg);
	assert_contains(reply, "radio 2 name=sta2 path=path2 ");
	assert_true(strlen(reply) > 3 &&
		    !strcmp(reply + strlen(reply) - 3, "ok\n"));
	free(reply);
	drop(&h, lab);
}

static void refusals_name_everything(void **state)
{
	struct lab *lab = load_lab(sock_path, NULL);
	struct atten_handle h;
	struct al_err err;
	char want[512];
	double db = -1;
	char *reply = (char *)"untouched";

	(void)state;
	open_ok(&h, lab);
	/* a path the lab names but the medium does not know */
	assert_int_equal(h.ops->set_db(h.dev, 3, 10, &err), -1);
	snprintf(want, sizeof(want),
		 "attenuator medium (host dut1, socket %s): 'set-atten path9 "
		 "10.00' (channel 3): the medium refused: unknown path "
		 "'path9' (get-atten lists them)",
		 sock_path);
	assert_string_equal(err.msg, want);
	assert_int_equal(h.ops->get_db(h.dev, 3, &db, &err), -1);
	assert_contains(err.msg, "'get-atten path9' (channel 3): the medium "
				 "refused: unknown path 'path9'");
	assert_true(db == -1);
	/* an unknown command */
	assert_int_equal(medium_ctrl(h.dev, "bogus", &reply, &err), -1);
	assert_null(reply);
	assert_contains(err.msg, "the medium refused: unknown command 'bogus'");

	/* out of range: refused before anything is sent */
	assert_int_equal(h.ops->set_db(h.dev, 1, 200.01, &err), -1);
	snprintf(want, sizeof(want),
		 "attenuator medium (host dut1, socket %s): channel 1 "
		 "(path1): 200.01 dB is outside 0..200 dB, nothing sent",
		 sock_path);
	assert_string_equal(err.msg, want);
	assert_int_equal(h.ops->set_db(h.dev, 1, -0.5, &err), -1);
	assert_contains(err.msg, "-0.5 dB is outside 0..200 dB");
	assert_int_equal(h.ops->set_db(h.dev, 1, NAN, &err), -1);
	assert_contains(err.msg, "nan dB is outside");
	assert_int_equal(h.ops->set_db(h.dev, 4, 1, &err), -1);
	assert_string_equal(err.msg, "attenuator medium has no channel 4 "
				     "(channels 1..3: path1 .. path9)");
	assert_int_equal(h.ops->get_db(h.dev, 0, &db, &err), -1);
	assert_contains(err.msg, "has no channel 0");
	if (h.ops->get_db(h.dev, 1, &db, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(db == 0.0);
	drop(&h, lab);
}

static void no_daemon_no_client(void **state)
{
	char none[DB_PATH + 16];
	struct lab *lab;
	struct atten_handle h;
	struct al_err err;
	double db = -1;

	(void)state;
	snprintf(none, sizeof(none), "%s/none.sock", fx.dir);
	lab = load_lab(none, NULL);
	open_ok(&h, lab);
	assert_int_equal(h.ops->get_db(h.dev, 1, &db, &err), -1);
	assert_contains(err.msg, "attenuator medium (host dut1, socket ");
	assert_contains(err.msg, "none.sock): 'get-atten path1' (channel 1): ");
	assert_contains(err.msg, "exited 1: airlab-medium: control socket ");
	assert_contains(err.msg, "none.sock: connect: No such file or "
				 "directory (reply: '')");
	assert_true(db == -1);
	drop(&h, lab);

	lab = load_lab(sock_path, "/nonexistent/airlab-medium");
	open_ok(&h, lab);
	assert_int_equal(h.ops->set_db(h.dev, 1, 3, &err), -1);
	assert_contains(err.msg, "(channel 1): /nonexistent/airlab-medium is "
				 "not installed on dut1 (exit 127: ");
	drop(&h, lab);
}

/* ---- the CLI on the same lab ---- */

/* Runs build/airlab --lab lab_file ARGS; *out gets stdout, then stderr. */
static int airlab(const char *args, char *out, size_t len)
{
	char cmd[PATH_MAX + 1024], bin[PATH_MAX];
	size_t n;
	FILE *p;
	int st;

	repo_path(bin, sizeof(bin), "build/airlab");
	if (access(bin, X_OK) < 0)
		fail_msg("%s is missing: run 'make all' first", bin);
	snprintf(cmd, sizeof(cmd), "'%s' --lab '%s' %s 2>&1", bin, lab_file,
		 args);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	st = pclose(p);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void cli_atten_and_medium(void **state)
{
	static char out[16384];
	char want[512];

	(void)state;
	snprintf(lab_file, sizeof(lab_file), "%s/lab-cli.yaml", fx.dir);
	assert_int_equal(write_lab(lab_file, sock_path, NULL), 0);

	assert_int_equal(airlab("atten set path1 12.5", out, sizeof(out)), 0);
	assert_string_equal(out, "path1: 12.50 dB (read back)\n");
	assert_int_equal(airlab("atten get path1", out, sizeof(out)), 0);
	assert_string_equal(out, "path            attenuator      channel "
				 "      dB\n"
				 "path1           medium                1 "
				 "   12.50\n");
	/* all paths: path9 is unknown to the medium, one error line; the
	 * device refused, so the lab failed: exit 4 */
	assert_int_equal(airlab("atten get", out, sizeof(out)), 4);
	assert_contains(out, "path1           medium                1 "
			     "   12.50\n");
	assert_contains(out, "airlab: attenuator medium (host dut1, ");
	assert_null(strstr(strstr(out, "airlab: ") + 1, "airlab: "));
	assert_contains(out, "the medium refused: unknown path 'path9'");
	/* A path the lab lacks is bad input: exit 2. */
	assert_int_equal(airlab("atten set path7 1", out, sizeof(out)), 2);
	snprintf(want, sizeof(want),
		 "airlab: %s: no attenuator has RF path 'path7' (known: "
		 "path1, path2, path9)\n",
		 lab_file);
	assert_string_equal(out, want);
	/* out of the device's range: bad input, refused before sending */
	assert_int_equal(airlab("atten set path1 300", out, sizeof(out)), 2);
	assert_contains(out, "300 dB is outside 0..200 dB, nothing sent\n");
	assert_int_equal(airlab("atten set path1 1x", out, sizeof(out)), 2);
	assert_string_equal(out, "airlab atten: '1x' is not a number of dB\n");
	assert_int_equal(airlab("atten set path1", out, sizeof(out)), 2);
	assert_int_equal(airlab("atten frob", out, sizeof(out)), 2);

	assert_int_equal(airlab("medium stats --reset", out, sizeof(out)), 0);
	assert_contains(out, "frames in: 0 in ");
	assert_contains(out, "radio name     path      tx_frames");
	assert_contains(out, "\n2     sta2     path2             0 ");
	assert_int_equal(airlab("medium stats extra", out, sizeof(out)), 2);
	assert_int_equal(airlab("medium", out, sizeof(out)), 2);
}

static int group_setup(void **state)
{
	(void)state;
	if (db_up(&fx, &server_port, &server_pid) < 0)
		return -1;
	snprintf(sock_path, sizeof(sock_path), "%s/medium.sock", fx.dir);
	daemon_pid = daemon_start(sock_path);
	if (daemon_pid < 0) {
		fprintf(stderr, "stand-in medium on %s did not start\n",
			sock_path);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	db_stop(server_pid);
	db_stop(daemon_pid);
	db_teardown(&fx);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(set_then_read_back),
	    cmocka_unit_test(refusals_name_everything),
	    cmocka_unit_test(no_daemon_no_client),
	    cmocka_unit_test(cli_atten_and_medium),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
