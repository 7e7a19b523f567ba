/* The sysupgrade flash driver and the ssh shell's SFTP upload against a
 * real OpenSSH server (Debian's sshd on a free loopback port, host key and
 * client key made per run). The DUT is played by that sshd and a fake
 * `sysupgrade` first on its PATH: it records what it got, writes the new
 * version where version_command reads it, then "reboots": it kills sshd
 * and its own session, and a supervisor starts sshd again 2 s later on
 * the same port, possibly with a new host key, or never. Needs root (sshd
 * with privilege separation, as CI runs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../cell/dut.h"
#include "../drivers/driver.h"

/* The dropbear fixture's key set-up and process helpers serve here too;
 * its dropbear starter is not used. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fixture_dropbear.h"
#pragma GCC diagnostic pop

#define SSHD	       "/usr/sbin/sshd"
#define IMAGE_LEN      (3 * 1024 * 1024)
#define BOOT_TIMEOUT_S 30
#define LISTEN_WAIT_MS 15000

static struct dropbear_fixture fx;
static int port;
static pid_t supervisor = -1;

static void path_in(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", fx.dir, name);
}

static void write_file(const char *name, const char *text)
{
	char p[DB_PATH + 64];
	FILE *f;

	path_in(p, sizeof(p), name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The file's text with trailing newlines cut ("" when absent). */
static void read_file(const char *name, char *out, size_t len)
{
	char p[DB_PATH + 64];
	FILE *f;
	size_t n = 0;

	path_in(p, sizeof(p), name);
	out[0] = 0;
	f = fopen(p, "r");
	if (!f)
		return;
	n = fread(out, 1, len - 1, f);
	fclose(f);
	while (n && out[n - 1] == '\n')
		n--;
	out[n] = 0;
}

static bool exists(const char *name)
{
	char p[DB_PATH + 64];

	path_in(p, sizeof(p), name);
	return access(p, F_OK) == 0;
}

static void remove_file(const char *name)
{
	char p[DB_PATH + 64];

	path_in(p, sizeof(p), name);
	unlink(p);
}

static int count_lines(const char *name)
{
	char buf[4096];
	int n = 0;

	read_file(name, buf, sizeof(buf));
	for (char *p = buf; *p; p++)
		n += *p == '\n';
	return buf[0] ? n + 1 : 0;
}

static void assert_contains(const char *s, const char *want)
{
	if (!strstr(s, want))
		fail_msg("'%s' does not contain '%s'", s, want);
}

/* sha256sum of a file, hex. */
static void sha256_of(const char *path, char out[65])
{
	char cmd[DB_PATH + 64];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%64s", out), 1);
	assert_int_equal(pclose(p), 0);
}

/* ---- the DUT: sshd, its supervisor and the fake sysupgrade ---- */

/* sftp: the program of the SFTP subsystem ("internal-sftp"), NULL for
 * none. */
static void write_sshd_config(const char *sftp)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "ListenAddress 127.0.0.1\n"
		 "HostKey %s/sshd_host_key\n"
		 "PidFile none\n"
		 "AuthorizedKeysFile %s/home/.ssh/authorized_keys\n"
		 "PermitRootLogin prohibit-password\n"
		 "PasswordAuthentication no\n"
		 "KbdInteractiveAuthentication no\n"
		 "UsePAM no\n"
		 /* the keys live under /tmp */
		 "StrictModes no\n"
		 "PrintMotd no\n"
		 "PrintLastLog no\n"
		 /* the fake sysupgrade first on the command's PATH */
		 "SetEnv PATH=%s/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
		 "%s%s%s",
		 fx.dir, fx.dir, fx.dir, sftp ? "Subsystem sftp " : "",
		 sftp ? sftp : "", sftp ? "\n" : "");
	write_file("sshd_config", text);
}

/* Starts sshd, again 2 s after it exits (unless `stopping`), and holds
 * it back while `stay_down` exists. */
static const char supervise_sh[] =
    "#!/bin/sh\n"
    "D=$1 PORT=$2\n"
    "trap 'kill $pid 2>/dev/null; exit 0' TERM\n"
    "while :; do\n"
    "  " SSHD " -D -e -f $D/sshd_config -p $PORT 2>>$D/sshd.log &\n"
    "  pid=$!\n"
    "  echo $pid >$D/sshd.pid\n"
    "  echo started >>$D/starts\n"
    "  wait $pid\n"
    "  sleep 2\n"
    "  while [ -e $D/stay_down ]; do sleep 0.2; done\n"
    "done\n";

/* sysupgrade as the DUT runs it: `mode` says how it goes (ok, fail,
 * same-version, detach: it returns and the reboot follows a second
 * later), `rekey` makes a new host key for the next boot, `never_back`
 * keeps the DUT down. The reboot kills sshd, then every connection's
 * process (the server's children), as a real one ends every session. */
static const char sysupgrade_sh[] =
    "#!/bin/sh\n"
    "D=@DIR@\n"
    "reboot() {\n"
    "  s=$(cat $D/sshd.pid)\n"
    "  c=$(pgrep -P $s)\n"
    /* The listener gone before the sessions end: a client that lost
     * its session must not reach the old sshd on a loaded host. */
    "  kill $s\n"
    "  while kill -0 $s 2>/dev/null; do sleep 0.05; done\n"
    "  kill $c\n"
    "}\n"
    "printf '%s\\n' \"$*\" >$D/sysupgrade.args\n"
    "for a; do img=$a; done\n"
    "sha256sum \"$img\" | cut -d' ' -f1 >$D/sysupgrade.sha256\n"
    "mode=$(cat $D/mode)\n"
    "if [ \"$mode\" = fail ]; then\n"
    "  echo 'Image metadata not present'\n"
    "  echo 'Image check failed.' >&2\n"
    "  exit 1\n"
    "fi\n"
    "[ \"$mode\" = same-version ] || cp $D/next_version "
    "$D/openwrt_version\n"
    "if [ -e $D/rekey ]; then\n"
    "  rm -f $D/rekey $D/sshd_host_key $D/sshd_host_key.pub\n"
    "  ssh-keygen -q -t ed25519 -N '' -C rekeyed -f $D/sshd_host_key\n"
    "fi\n"
    "[ -e $D/never_back ] && rm $D/never_back && touch $D/stay_down\n"
    "if [ \"$mode\" = detach ]; then\n"
    "  (sleep 1; reboot) </dev/null >/dev/null 2>&1 &\n"
    "  echo 'Upgrade scheduled.'\n"
    "  exit 0\n"
    "fi\n"
    "echo 'Commencing upgrade. Closing all shell sessions.'\n"
    "reboot\n"
    "exit 0\n";

static void write_script(const char *name, const char *text)
{
	char p[DB_PATH + 64];
	const char *at;
	FILE *f;

	path_in(p, sizeof(p), name);
	f = fopen(p, "w");
	assert_non_null(f);
	/* @DIR@ -> the fixture directory */
	while ((at = strstr(text, "@DIR@"))) {
		fwrite(text, 1, (size_t)(at - text), f);
		fputs(fx.dir, f);
		text = at + 5;
	}
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, 0755), 0);
}

static int wait_listening(void)
{
	return db_wait_listening(supervisor, port, LISTEN_WAIT_MS);
}

static int dut_setup(void **state)
{
	char bin[DB_PATH + 8], key[DB_PATH + 32], sup[DB_PATH + 32];

	(void)state;
	if (db_setup(&fx) < 0)
		return -1;
	snprintf(bin, sizeof(bin), "%s/bin", fx.dir);
	snprintf(key, sizeof(key), "%s/sshd_host_key", fx.dir);
	/* sshd's privilege separation directory (Debian's unit makes it) */
	if (mkdir(bin, 0755) < 0 ||
	    (mkdir("/run/sshd", 0755) < 0 && errno != EEXIST))
		return -1;
	if (db_sh("ssh-keygen -q -t ed25519 -N '' -C first -f '%s'", key))
		return -1;
	write_sshd_config("internal-sftp");
	write_script("bin/sysupgrade", sysupgrade_sh);
	write_script("supervise.sh", supervise_sh);
	port = db_free_port();
	if (port <= 0)
		return -1;
	path_in(sup, sizeof(sup), "supervise.sh");
	supervisor = fork();
	if (supervisor == 0) {
		char port_s[16];

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		snprintf(port_s, sizeof(port_s), "%d", port);
		execl("/bin/sh", "sh", sup, fx.dir, port_s, (char *)NULL);
		_exit(127);
	}
	if (supervisor < 0 || wait_listening() < 0) {
		db_sh("cat '%s/sshd.log' >&2", fx.dir);
		return -1;
	}
	return 0;
}

static int dut_teardown(void **state)
{
	char pid_s[32];

	(void)state;
	if (supervisor > 0)
		db_stop(supervisor);
	/* a supervisor that had to be killed leaves its sshd behind */
	read_file("sshd.pid", pid_s, sizeof(pid_s));
	if (atoi(pid_s) > 1 && kill((pid_t)atoi(pid_s), SIGTERM) == 0)
		usleep(200 * 1000);
	db_teardown(&fx);
	return 0;
}

/* Restarts sshd (with a changed config) through the supervisor. */
static void restart_sshd(void)
{
	char pid_s[32];
	int before = count_lines("starts");

	read_file("sshd.pid", pid_s, sizeof(pid_s));
	assert_int_equal(kill((pid_t)atoi(pid_s), SIGTERM), 0);
	for (int64_t end = db_now_ms() + LISTEN_WAIT_MS;
	     count_lines("starts") == before;) {
		assert_true(db_now_ms() < end);
		usleep(50 * 1000);
	}
	assert_int_equal(wait_listening(), 0);
}

/* ---- a lab with dut1: shell ssh to the sshd, flash sysupgrade ---- */

struct bench {
	struct lab lab;
	struct drv_target shell_t, flash_t;
	struct flash_env env;
	struct flash_image img;
	char image[DB_PATH + 32];
};

/* The lab from YAML, with extra shell and flash settings (indented lines). */
static void bench_open_timeout(struct bench *b, const char *shell_extra,
			       const char *flash_extra, int boot_timeout_s)
{
	char text[8192];
	struct al_err err;

	memset(b, 0, sizeof(*b));
	snprintf(text, sizeof(text),
		 "lab: sysupgrade-test\n"
		 "state_dir: %s/state\n"
		 "image_dir: %s\n"
		 "hosts:\n"
		 "  dut1:\n"
		 "    power:\n"
		 "      driver: command\n"
		 "      on: \"true\"\n"
		 "      off: \"true\"\n"
		 "    flash:\n"
		 "      driver: sysupgrade\n"
		 "      image: \"{images}/openwrt-{variant}.bin\"\n"
		 "      remote_path: %s/up/\n"
		 "      version_command: cat %s/openwrt_version\n"
		 "      boot_timeout_s: %d\n"
		 "%s"
		 "    shell:\n"
		 "      driver: ssh\n"
		 "      host: 127.0.0.1\n"
		 "      port: %d\n"
		 "      user: root\n"
		 "      key: \"{images}/id_ed25519\"\n"
		 "      known_hosts: \"{images}/known_hosts\"\n"
		 "      connect_timeout_s: 5\n"
		 "%s",
		 fx.dir, fx.dir, fx.dir, fx.dir, boot_timeout_s, flash_extra,
		 port, shell_extra);
	if (lab_load_buf(&b->lab, "sysupgrade-test.yaml", text, strlen(text),
			 &err) < 0)
		fail_msg("lab: %s", err.msg);
	b->shell_t = (struct drv_target){&b->lab, &b->lab.hosts[0],
					 &b->lab.hosts[0].shell};
	b->flash_t = (struct drv_target){&b->lab, &b->lab.hosts[0],
					 &b->lab.hosts[0].flash};
	b->env.dut = "dut1";
	b->env.shell = &shell_ssh_ops;
	b->env.shell_t = &b->shell_t;
	b->env.boot_timeout_s = 120; /* the power binding's; flash overrides */
	b->img = (struct flash_image){"stock", "6.1", ""};
	snprintf(b->image, sizeof(b->image), "%s/openwrt-stock.bin", fx.dir);
}

static void bench_open(struct bench *b, const char *shell_extra,
		       const char *flash_extra)
{
	bench_open_timeout(b, shell_extra, flash_extra, BOOT_TIMEOUT_S);
}

static int bench_flash(struct bench *b, struct al_err *err)
{
	err->msg[0] = 0;
	return flash_sysupgrade_ops.flash(&b->flash_t, &b->img, &b->env, err);
}

/* A fresh image of `len` random bytes carrying `version`, the DUT running
 * `old`, its sysupgrade acting as `mode`, and the DUT's sshd listening. */
static void prepare(const char *mode, const char *old, const char *version)
{
	char up[DB_PATH + 8], ver[DB_PATH + 64];

	assert_int_equal(wait_listening(), 0);
	snprintf(up, sizeof(up), "%s/up", fx.dir);
	mkdir(up, 0700);
	assert_int_equal(
	    db_sh("head -c %d /dev/urandom >'%s/openwrt-stock.bin'", IMAGE_LEN,
		  fx.dir),
	    0);
	snprintf(ver, sizeof(ver), "%s\n", version);
	write_file("openwrt-stock.bin.version", ver);
	write_file("next_version", ver);
	snprintf(ver, sizeof(ver), "%s\n", old);
	write_file("openwrt_version", ver);
	write_file("mode", mode);
	remove_file("sysupgrade.args");
	remove_file("sysupgrade.sha256");
}

/* known_hosts holding the sshd's current key. */
static void learn_host_key(void)
{
	char pub[4096], line[4200];

	read_file("sshd_host_key.pub", pub, sizeof(pub));
	snprintf(line, sizeof(line), "[127.0.0.1]:%d %s\n", port, pub);
	write_file("known_hosts", line);
}

/* ---- tests ---- */

static void test_flash_success(void **state)
{
	struct bench b;
	struct al_err err;
	char want_sum[65], got[256], want_args[DB_PATH + 64];
	int starts;
	struct shell_dev *d = NULL;

	(void)state;
	prepare("ok", "r100-old", "r200-new");
	remove_file("known_hosts"); /* accept-new learns it */
	starts = count_lines("starts");
	bench_open(&b, "      host_key_policy: accept-new\n", "");
	if (bench_flash(&b, &err) < 0)
		fail_msg("flash: %s", err.msg);
	/* what sysupgrade got: the image, intact, with -n */
	sha256_of(b.image, want_sum);
	read_file("sysupgrade.sha256", got, sizeof(got));
	assert_string_equal(got, want_sum);
	read_file("sysupgrade.args", got, sizeof(got));
	snprintf(want_args, sizeof(want_args), "-n %s/up/openwrt-stock.bin",
		 fx.dir);
	assert_string_equal(got, want_args);
	/* it went down and came back, running the new version */
	assert_true(count_lines("starts") > starts);
	read_file("openwrt_version", got, sizeof(got));
	assert_string_equal(got, "r200-new");
	assert_int_equal(shell_ssh_ops.open(&d, &b.shell_t, 5000, &err), 0);
	shell_ssh_ops.close(d);
	lab_free(&b.lab);

	/* keep_settings: no -n; the version from the setting */
	prepare("ok", "r200-new", "r300-next");
	bench_open(&b, "",
		   "      keep_settings: yes\n"
		   "      version: r300-next\n");
	write_file("openwrt-stock.bin.version", "r999-not-this\n");
	if (bench_flash(&b, &err) < 0)
		fail_msg("flash with keep_settings: %s", err.msg);
	read_file("sysupgrade.args", got, sizeof(got));
	assert_string_equal(got, want_args + 3);
	lab_free(&b.lab);
}

/* sysupgrade returns 0 and the DUT reboots a second later: the driver
 * waits for it to go away before it waits for it to come back. */
static void test_flash_reboot_after_return(void **state)
{
	struct bench b;
	struct al_err err;
	char got[64];
	int starts;

	(void)state;
	prepare("detach", "r100-old", "r200-new");
	learn_host_key();
	starts = count_lines("starts");
	bench_open(&b, "", "");
	if (bench_flash(&b, &err) < 0)
		fail_msg("flash: %s", err.msg);
	assert_true(count_lines("starts") > starts);
	read_file("openwrt_version", got, sizeof(got));
	assert_string_equal(got, "r200-new");
	lab_free(&b.lab);
}

static void test_flash_boots_old_version(void **state)
{
	struct bench b;
	struct al_err err;

	(void)state;
	prepare("same-version", "r100-old", "r200-new");
	learn_host_key();
	bench_open(&b, "", "");
	assert_int_equal(bench_flash(&b, &err), -1);
	assert_contains(err.msg, "dut1 flash: after sysupgrade the DUT runs "
				 "version 'r100-old', expected 'r200-new'");
	assert_contains(err.msg, "the old image is still running");
	/* it did reboot: the image was written, not the version */
	assert_true(exists("sysupgrade.sha256"));
	lab_free(&b.lab);
}

static void test_sysupgrade_refuses_image(void **state)
{
	struct bench b;
	struct al_err err;
	int starts;

	(void)state;
	prepare("fail", "r100-old", "r200-new");
	learn_host_key();
	starts = count_lines("starts");
	bench_open(&b, "", "");
	assert_int_equal(bench_flash(&b, &err), -1);
	assert_contains(err.msg, "dut1 flash: 'sysupgrade -n ");
	assert_contains(err.msg, "' exited 1: ");
	assert_contains(err.msg, "Image metadata not present");
	assert_contains(err.msg, "Image check failed.");
	/* no reboot was waited for */
	assert_int_equal(count_lines("starts"), starts);
	lab_free(&b.lab);
}

static void test_host_key_changes_on_flash(void **state)
{
	struct bench b;
	struct al_err err;
	char pub[DB_PATH + 32], old_fp[128], new_fp[128], want[512];
	char kh[4096], key[4096];

	(void)state;
	path_in(pub, sizeof(pub), "sshd_host_key.pub");

	/* strict: the DUT is flashed but its new key is refused */
	prepare("ok", "r100-old", "r200-new");
	learn_host_key();
	db_fingerprint(pub, old_fp, sizeof(old_fp));
	write_file("rekey", "");
	bench_open(&b, "      host_key_policy: strict\n", "");
	assert_int_equal(bench_flash(&b, &err), -1);
	db_fingerprint(pub, new_fp, sizeof(new_fp));
	assert_true(strcmp(old_fp, new_fp) != 0);
	snprintf(want, sizeof(want),
		 "dut1 flash: after sysupgrade: dut1: host key of 127.0.0.1 "
		 "port %d CHANGED: known_hosts %s/known_hosts has ssh-ed25519 "
		 "%s, the server now offers ssh-ed25519 %s; refused",
		 port, fx.dir, old_fp, new_fp);
	assert_contains(err.msg, want);
	lab_free(&b.lab);

	/* accept-changed: the same again goes through and the file has the
	 * new key */
	prepare("ok", "r100-old", "r200-new");
	learn_host_key();
	db_fingerprint(pub, old_fp, sizeof(old_fp));
	write_file("rekey", "");
	bench_open(&b, "      host_key_policy: accept-changed\n", "");
	if (bench_flash(&b, &err) < 0)
		fail_msg("flash with accept-changed: %s", err.msg);
	read_file("known_hosts", kh, sizeof(kh));
	read_file("sshd_host_key.pub", key, sizeof(key));
	key[strcspn(key, " ") + 1 + strcspn(key + strcspn(key, " ") + 1, " ")] =
	    0;
	assert_contains(kh, key);
	assert_int_equal(count_lines("known_hosts"), 1);
	lab_free(&b.lab);
}

static void test_dut_never_comes_back(void **state)
{
	struct bench b;
	struct al_err err;
	int64_t t0, took;

	(void)state;
	prepare("ok", "r100-old", "r200-new");
	learn_host_key();
	write_file("never_back", "");
	bench_open_timeout(&b, "", "", 6);
	t0 = db_now_ms();
	assert_int_equal(bench_flash(&b, &err), -1);
	took = db_now_ms() - t0;
	remove_file("stay_down");
	assert_contains(err.msg, "dut1 flash: the DUT did not come back over "
				 "SSH within 6 s of sysupgrade (last error: ");
	/* bounded by the boot timeout, not a hang */
	if (took > 6000 + 10000)
		fail_msg("gave up after %lld ms with a 6 s boot timeout: %s",
			 (long long)took, err.msg);
	lab_free(&b.lab);
}

/* What `airlab up` does with a DUT whose flash driver boots the image:
 * flash through dut_flash_env, then dut_wait_ready, here with no console
 * and a session the DUT had before the flash (as up's reuse check
 * leaves one). */
static void test_airlab_up_path_without_console(void **state)
{
	struct bench b;
	struct dut d;
	struct flash_env env;
	struct al_err err;
	char *out = NULL;
	int status = -1;

	(void)state;
	prepare("ok", "r100-old", "r200-new");
	learn_host_key();
	bench_open(&b, "", "");
	if (dut_open(&d, &b.lab, "dut1", &err) < 0)
		fail_msg("dut_open: %s", err.msg);
	assert_null(d.console);
	assert_int_equal(
	    dut_run_capture(&d, "echo before", &out, &status, 10, &err), 0);
	free(out);
	assert_true(d.flash->boots);
	dut_flash_env(&d, &env);
	if (d.flash->flash(&d.flash_t, &b.img, &env, &err) < 0)
		fail_msg("flash: %s", err.msg);
	if (dut_wait_ready(&d, &err) < 0)
		fail_msg("dut_wait_ready: %s", err.msg);
	if (dut_run_capture(&d,
			    lab_param(&b.lab.hosts[0].flash, "version_command"),
			    &out, &status, 10, &err) < 0)
		fail_msg("after dut_wait_ready: %s", err.msg);
	assert_int_equal(status, 0);
	assert_string_equal(out, "r200-new\n");
	free(out);
	dut_close(&d);
	lab_free(&b.lab);
}

static struct shell_dev *open_shell(struct bench *b)
{
	struct shell_dev *d = NULL;
	struct al_err err;

	if (shell_ssh_ops.open(&d, &b->shell_t, 10000, &err) < 0)
		fail_msg("open: %s", err.msg);
	return d;
}

struct progress_seen {
	long long done, total;
	int calls;
};

static void on_progress(void *ctx, long long done, long long total)
{
	struct progress_seen *p = ctx;

	assert_true(done > p->done);
	p->done = done;
	p->total = total;
	p->calls++;
}

/* Uploads the image to up/copy.bin and checks it arrived whole. */
static void upload_checked(struct bench *b, struct progress_seen *p)
{
	char dst[DB_PATH + 32], a[65], c[65];
	struct shell_dev *d = open_shell(b);
	struct al_err err;
	struct stat st;

	snprintf(dst, sizeof(dst), "%s/up/copy.bin", fx.dir);
	unlink(dst);
	if (shell_ssh_ops.upload(d, b->image, dst, 0600, on_progress, p, &err) <
	    0)
		fail_msg("upload: %s", err.msg);
	assert_int_equal(stat(dst, &st), 0);
	assert_int_equal(st.st_size, IMAGE_LEN);
	assert_int_equal(st.st_mode & 0777, 0600);
	sha256_of(b->image, a);
	sha256_of(dst, c);
	assert_string_equal(a, c);
	assert_true(p->done == IMAGE_LEN && p->total == IMAGE_LEN);
	shell_ssh_ops.close(d);
}

static void test_sftp_upload(void **state)
{
	struct bench b;
	struct progress_seen p = {0};
	struct shell_dev *d;
	struct al_err err;
	char bad[DB_PATH + 32];
	int64_t t0;

	(void)state;
	prepare("ok", "r100-old", "r200-new");
	learn_host_key();
	bench_open(&b, "", "");
	t0 = db_now_ms();
	upload_checked(&b, &p);
	print_message("SFTP upload of %d bytes over loopback: %lld ms\n",
		      IMAGE_LEN, (long long)(db_now_ms() - t0));
	/* in 32 KiB writes, each one reported */
	assert_int_equal(p.calls, IMAGE_LEN / 32768);

	/* a directory that is not there */
	d = open_shell(&b);
	snprintf(bad, sizeof(bad), "%s/no-such-dir/x.bin", fx.dir);
	assert_int_equal(
	    shell_ssh_ops.upload(d, b.image, bad, 0600, NULL, NULL, &err), -1);
	assert_contains(err.msg, "dut1: root@127.0.0.1:");
	assert_contains(err.msg, "SFTP: creating ");
	assert_contains(err.msg, bad);
	assert_contains(err.msg, "no such file or directory");
	shell_ssh_ops.close(d);
	lab_free(&b.lab);
}

static void test_upload_without_sftp_subsystem(void **state)
{
	struct bench b;
	struct progress_seen p = {0};
	int64_t t0;

	(void)state;
	prepare("ok", "r100-old", "r200-new");
	learn_host_key();
	write_sshd_config(NULL);
	restart_sshd();
	bench_open(&b, "", "");
	t0 = db_now_ms();
	upload_checked(&b, &p);
	print_message("upload of %d bytes with cat over exec: %lld ms\n",
		      IMAGE_LEN, (long long)(db_now_ms() - t0));
	/* cat has no progress to tell but the end */
	assert_int_equal(p.calls, 1);
	lab_free(&b.lab);

	/* A subsystem whose program is missing (dropbear without
	 * sftp-server, as OpenWrt ships it): the channel opens, then
	 * closes without a version. libssh's sftp_init() would spin. */
	write_sshd_config("/nonexistent/sftp-server");
	restart_sshd();
	bench_open(&b, "", "");
	memset(&p, 0, sizeof(p));
	upload_checked(&b, &p);
	assert_int_equal(p.calls, 1);
	write_sshd_config("internal-sftp");
	restart_sshd();
	lab_free(&b.lab);
}

static void test_settings_checked(void **state)
{
	struct bench b;
	struct al_err err;
	int starts;

	(void)state;
	prepare("ok", "r100-old", "r200-new");
	learn_host_key();
	starts = count_lines("starts");
	bench_open(&b, "", "      keep_setings: \"yes\"\n");
	assert_int_equal(bench_flash(&b, &err), -1);
	assert_contains(err.msg, "sysupgrade-test.yaml:");
	assert_contains(err.msg,
			"dut1 flash (driver sysupgrade): unknown setting "
			"'keep_setings'");
	lab_free(&b.lab);

	bench_open(&b, "", "      verify_sha256: maybe\n");
	assert_int_equal(bench_flash(&b, &err), -1);
	assert_contains(err.msg, "verify_sha256 'maybe' is neither yes nor no");
	lab_free(&b.lab);

	/* no version to check against: refused before anything is sent */
	remove_file("openwrt-stock.bin.version");
	bench_open(&b, "", "");
	assert_int_equal(bench_flash(&b, &err), -1);
	assert_contains(err.msg, "no version to check the flash against");
	assert_false(exists("sysupgrade.args"));
	assert_int_equal(count_lines("starts"), starts);
	lab_free(&b.lab);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flash_success),
	    cmocka_unit_test(test_flash_reboot_after_return),
	    cmocka_unit_test(test_flash_boots_old_version),
	    cmocka_unit_test(test_sysupgrade_refuses_image),
	    cmocka_unit_test(test_host_key_changes_on_flash),
	    cmocka_unit_test(test_dut_never_comes_back),
	    cmocka_unit_test(test_airlab_up_path_without_console),
	    cmocka_unit_test(test_sftp_upload),
	    cmocka_unit_test(test_upload_without_sftp_subsystem),
	    cmocka_unit_test(test_settings_checked),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, dut_setup, dut_teardown);
}
