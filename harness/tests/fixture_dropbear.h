/* A real dropbear SSH server for tests, on a free loopback port, with keys
 * made per run in a temporary directory.
 *
 * dropbear reads ~/.ssh/authorized_keys from the passwd entry's home, for
 * root /root. So that a test never touches the real /root, dropbear runs in
 * its own mount namespace where the temporary directory's home/ is
 * bind-mounted on /root; the namespace dies with dropbear, so a killed test
 * leaves no mount behind (only its directory in /tmp). Needs root.
 *
 * Include into one test file only: the functions are static. */
#ifndef AIRLAB_FIXTURE_DROPBEAR_H
#define AIRLAB_FIXTURE_DROPBEAR_H

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DB_PATH 256

struct dropbear_fixture {
	char dir[64];		      /* everything lives below it */
	char home[DB_PATH];	      /* dropbear's /root */
	char host_key[DB_PATH];	      /* dropbear format */
	char host_pub[DB_PATH];	      /* its "ssh-ed25519 AAAA..." line */
	char other_host_pub[DB_PATH]; /* a host key the server does not have */
	char client_key[DB_PATH];     /* OpenSSH ed25519, authorized */
	char other_key[DB_PATH];      /* OpenSSH ed25519, not authorized */
	char log[DB_PATH];	      /* dropbear's stderr */
};

static int64_t db_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs a shell command line; returns its exit status (-1: not run). */
static int db_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int db_sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st < 0 || !WIFEXITED(st)) {
		fprintf(stderr, "fixture: '%s' did not run to completion\n",
			cmd);
		return -1;
	}
	if (WEXITSTATUS(st))
		fprintf(stderr, "fixture: '%s' exited %d\n", cmd,
			WEXITSTATUS(st));
	return WEXITSTATUS(st);
}

/* A loopback TCP port nobody listens on right now. */
static int db_free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int port = -1;

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* Writes the public half of a dropbear host key ("ssh-ed25519 AAAA...")
 * to pub. */
static int db_host_pub(const char *key, const char *pub)
{
	char cmd[DB_PATH * 2 + 64], line[1024];
	FILE *p, *out;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "dropbearkey -y -f '%s'", key);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	out = fopen(pub, "w");
	while (out && fgets(line, sizeof(line), p))
		if (!found && strncmp(line, "ssh-ed25519 ", 12) == 0) {
			fputs(line, out);
			found = 1;
		}
	if (pclose(p) != 0)
		found = 0;
	if (!out || fclose(out) != 0)
		found = 0;
	return found ? 0 : -1;
}

/* Makes the directory and all keys. Returns 0 or -1 (reason on stderr). */
/* "SHA256:..." of the key in a public key file, as ssh-keygen prints it
 * (what the ssh driver's host key errors quote). */
__attribute__((unused)) static void db_fingerprint(const char *pub, char *out,
						   size_t len)
{
	char cmd[DB_PATH + 64], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ssh-keygen -lf '%s'", pub);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	assert_int_equal(pclose(p), 0);
	assert_int_equal(sscanf(line, "%*d %127s", out), 1);
	assert_true(strlen(out) < len);
}

static int db_setup(struct dropbear_fixture *f)
{
	char ssh_dir[DB_PATH + 8], other_host_key[DB_PATH];

	memset(f, 0, sizeof(*f));
	if (geteuid() != 0) {
		fprintf(stderr, "fixture: dropbear tests need root (a mount "
				"namespace keeps /root/.ssh untouched)\n");
		return -1;
	}
	snprintf(f->dir, sizeof(f->dir), "/tmp/airlab-test-ssh.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->home, sizeof(f->home), "%s/home", f->dir);
	snprintf(ssh_dir, sizeof(ssh_dir), "%s/.ssh", f->home);
	snprintf(f->host_key, sizeof(f->host_key), "%s/host_key", f->dir);
	snprintf(f->host_pub, sizeof(f->host_pub), "%s/host_key.pub", f->dir);
	snprintf(other_host_key, sizeof(other_host_key), "%s/other_host_key",
		 f->dir);
	snprintf(f->other_host_pub, sizeof(f->other_host_pub),
		 "%s/other_host_key.pub", f->dir);
	snprintf(f->client_key, sizeof(f->client_key), "%s/id_ed25519", f->dir);
	snprintf(f->other_key, sizeof(f->other_key), "%s/id_other", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/dropbear.log", f->dir);
	/* dropbear refuses keys under group/world-writable directories */
	if (mkdir(f->home, 0700) < 0 || mkdir(ssh_dir, 0700) < 0)
		return -1;
	if (db_sh("ssh-keygen -q -t ed25519 -N '' -C airlab-test -f '%s'",
		  f->client_key) ||
	    db_sh("ssh-keygen -q -t ed25519 -N '' -C airlab-other -f '%s'",
		  f->other_key) ||
	    db_sh("dropbearkey -t ed25519 -f '%s' >/dev/null 2>&1",
		  f->host_key) ||
	    db_sh("dropbearkey -t ed25519 -f '%s' >/dev/null 2>&1",
		  other_host_key) ||
	    db_sh("install -m 600 '%s.pub' '%s/authorized_keys'", f->client_key,
		  ssh_dir))
		return -1;
	if (db_host_pub(f->host_key, f->host_pub) < 0 ||
	    db_host_pub(other_host_key, f->other_host_pub) < 0) {
		fprintf(stderr, "fixture: dropbearkey -y gave no public key\n");
		return -1;
	}
	return 0;
}

/* Starts dropbear on 127.0.0.1:port after delay_ms; returns its pid. */
static pid_t db_start(const struct dropbear_fixture *f, int port, int delay_ms)
{
	char listen[32], pidfile[DB_PATH + 16];
	pid_t pid;

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	snprintf(pidfile, sizeof(pidfile), "%s/dropbear-%d.pid", f->dir, port);
	pid = fork();
	if (pid != 0)
		return pid;

	/* child: dies with the test, whatever kills it */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	int logfd = open(f->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (logfd >= 0) {
		dup2(logfd, 1);
		dup2(logfd, 2);
		close(logfd);
	}
	if (delay_ms > 0)
		usleep((useconds_t)delay_ms * 1000);
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(f->home, "/root", NULL, MS_BIND, NULL) < 0) {
		fprintf(stderr, "fixture: mount namespace for dropbear: %s\n",
			strerror(errno));
		_exit(126);
	}
	/* -s: keys only; -P: keep off /var/run/dropbear.pid */
	execlp("dropbear", "dropbear", "-F", "-E", "-s", "-p", listen, "-r",
	       f->host_key, "-P", pidfile, (char *)NULL);
	fprintf(stderr, "fixture: exec dropbear: %s\n", strerror(errno));
	_exit(127);
}

/* Waits until something accepts on 127.0.0.1:port; 0, or -1 when the
 * server exited or timeout_ms passed (reason on stderr). */
static int db_wait_listening(pid_t pid, int port, int timeout_ms)
{
	int64_t deadline = db_now_ms() + timeout_ms;
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

	while (db_now_ms() < deadline) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		int st;

		if (fd >= 0 &&
		    connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			close(fd);
			return 0;
		}
		if (fd >= 0)
			close(fd);
		if (waitpid(pid, &st, WNOHANG) == pid) {
			fprintf(stderr,
				"fixture: dropbear exited (status "
				"0x%x) before listening on port %d\n",
				st, port);
			return -1;
		}
		usleep(20 * 1000);
	}
	fprintf(stderr,
		"fixture: dropbear not listening on port %d within "
		"%d ms\n",
		port, timeout_ms);
	return -1;
}

/* db_setup, then a server on a free port, listening; 0, or -1 with the
 * reason (and dropbear's log) on stderr. */
static int db_up(struct dropbear_fixture *f, int *port, pid_t *pid)
{
	*pid = -1;
	if (db_setup(f) < 0)
		return -1;
	*port = db_free_port();
	if (*port <= 0)
		return -1;
	*pid = db_start(f, *port, 0);
	if (*pid < 0 || db_wait_listening(*pid, *port, 5000) < 0) {
		db_sh("cat '%s' >&2", f->log);
		return -1;
	}
	return 0;
}

static void db_stop(pid_t pid)
{
	int64_t deadline = db_now_ms() + 3000;
	int st;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	while (db_now_ms() < deadline) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(10 * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

static void db_teardown(struct dropbear_fixture *f)
{
	if (f->dir[0])
		db_sh("rm -rf '%s'", f->dir);
}

#endif
