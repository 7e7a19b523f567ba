/* Flash driver `sysupgrade`: flashes an OpenWrt DUT from the system it
 * runs. The image goes up over the DUT's shell (the shell driver's
 * upload: SFTP), its sha256 is checked there, `sysupgrade -n IMAGE`
 * writes it and reboots; the driver waits for the DUT to drop off SSH and
 * answer again within the boot timeout, then checks that it runs the
 * version the image carries. It returns with the new image up (boots).
 *
 * Settings: image (required; {variant}, {kernel}, {state}, {images}),
 * version (else the first line of IMAGE.version; one of the two is
 * required), remote_path (/tmp/: a directory, ending in /, gets the
 * image's file name), verify_sha256 (yes), command (sysupgrade), with -n
 * added unless keep_settings: yes, version_command (cat
 * /etc/openwrt_version), boot_timeout_s (the power binding's).
 *
 * sysupgrade -n starts the DUT from a clean configuration: unless the
 * image carries its own dropbear host key, the DUT comes back with a new
 * one, which the shell's host key check has to be told to take (ssh:
 * known_hosts with host_key_policy: accept-changed). */
#include "image.h"
#include "../../util/clock.h"
#include "../../util/proc.h"
#include "../../util/shquote.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SHA256_HEX 64
/* How long one reconnect attempt may wait before progress is shown. */
#define RECONNECT_STEP_MS 10000
/* While the DUT still runs its old system: a probe a second. */
#define DOWN_PROBE_PAUSE_MS 1000

struct sysup {
	const struct drv_target *t;
	const struct flash_env *env;
	const char *dev;
	/* The settings as given. */
	char image_setting[4096];
	char version_setting[256];
	char remote_path[4096];
	bool verify_sha256, keep_settings;
	char command[1024], version_command[1024];
	int boot_timeout_s;
	/* What they come to. */
	char image[4096];
	off_t size;
	char want[256];		  /* the version the image carries */
	char sum[SHA256_HEX + 1]; /* the image's sha256, hex; "" unchecked */
	char remote[4096];
	struct shell_dev *sd;
	int progress_step; /* upload progress shown up to this quarter */
};

static const struct drv_setting settings[] = {
    {.name = "image",
     .required = true,
     .what = "the image file, e.g. {images}/openwrt/{variant}.bin",
     DRV_FIELD(struct sysup, image_setting)},
    {.name = "version", DRV_FIELD(struct sysup, version_setting)},
    {.name = "remote_path",
     .default_value = "/tmp/",
     DRV_FIELD(struct sysup, remote_path)},
    {.name = "verify_sha256",
     .type = DRV_BOOL,
     .default_value = "yes",
     DRV_FIELD(struct sysup, verify_sha256)},
    {.name = "keep_settings",
     .type = DRV_BOOL,
     .default_value = "no",
     DRV_FIELD(struct sysup, keep_settings)},
    {.name = "command",
     .default_value = "sysupgrade",
     DRV_FIELD(struct sysup, command)},
    {.name = "version_command",
     .default_value = "cat /etc/openwrt_version",
     DRV_FIELD(struct sysup, version_command)},
    /* Unless given, the DUT's (flash_env). */
    {.name = "boot_timeout_s",
     .type = DRV_INT,
     .min = 1,
     .max = 1000000000,
     DRV_FIELD(struct sysup, boot_timeout_s)},
    {0},
};

/* Cuts trailing whitespace. */
static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' ||
		     s[n - 1] == '\t'))
		s[--n] = 0;
}

/* Runs cmd on the DUT with stdout (and stderr too with both) captured
 * into out (the last len-1 bytes); -1 when the session failed. */
static int run_capture(struct sysup *s, const char *cmd, bool both, char *out,
		       size_t len, int *status, struct al_err *err)
{
	FILE *f = tmpfile();
	long size;
	int rc;

	out[0] = 0;
	if (!f)
		return al_errf(err, "%s: tmpfile: %s", s->dev, strerror(errno));
	rc = s->env->shell->run(s->sd, cmd, NULL, 0, fileno(f),
				both ? fileno(f) : -1, status, err);
	/* the driver wrote to the descriptor: find the end from there */
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	if (size > (long)len - 1)
		fseek(f, size - (long)(len - 1), SEEK_SET);
	else
		rewind(f);
	out[fread(out, 1, len - 1, f)] = 0;
	fclose(f);
	chomp(out);
	return rc;
}

/* "CMD 'ARG'" into out. */
static int command_with(char *out, size_t len, const char *cmd, const char *opt,
			const char *arg)
{
	size_t off = (size_t)snprintf(out, len, "%s%s ", cmd, opt);

	return off >= len ? -1 : sh_quote(out, len, &off, arg);
}

static int read_settings(struct sysup *s, const struct flash_image *img,
			 struct al_err *err)
{
	const struct drv_target *t = s->t;
	const char *rp = s->remote_path, *base;

	s->boot_timeout_s = s->env->boot_timeout_s;
	if (drv_settings_read(t, settings, s, err) < 0 ||
	    flash_image_file(t, img, s->image_setting, s->image,
			     sizeof(s->image), &s->size, err) < 0 ||
	    flash_image_version(t, img, s->version_setting, s->image, s->want,
				sizeof(s->want), err) < 0)
		return -1;
	if (!s->want[0])
		return al_err_input(
		    err,
		    "%s:%d: %s flash: no version to check the flash "
		    "against: set 'version:' or write %s.version",
		    t->lab->path, t->binding->line, s->dev, s->image);
	if (s->boot_timeout_s <= 0)
		return al_errf(err, "%s flash: no boot timeout to wait with",
			       s->dev);
	base = strrchr(s->image, '/');
	base = base ? base + 1 : s->image;
	if ((size_t)snprintf(s->remote, sizeof(s->remote), "%s%s", rp,
			     rp[strlen(rp) - 1] == '/' ? base : "") >=
	    sizeof(s->remote))
		return al_errf(err, "%s flash: remote_path too long", s->dev);
	if (s->verify_sha256) {
		char *argv[] = {"sha256sum", "--", s->image, NULL};
		char out[SHA256_HEX + 4096 + 8];

		if (proc_capture(argv, NULL, out, sizeof(out)) != 0 ||
		    strspn(out, "0123456789abcdef") != SHA256_HEX)
			return al_errf(err, "%s flash: sha256sum %s failed",
				       s->dev, s->image);
		memcpy(s->sum, out, SHA256_HEX);
		s->sum[SHA256_HEX] = 0;
	}
	return 0;
}

static void upload_progress(void *ctx, long long done, long long total)
{
	struct sysup *s = ctx;
	int quarter = total > 0 ? (int)(done * 4 / total) : 4;

	if (quarter <= s->progress_step)
		return;
	s->progress_step = quarter;
	fprintf(stderr, "%s: uploaded %d%% (%lld of %lld bytes)\n", s->dev,
		quarter * 25, done, total);
}

static int upload_and_verify(struct sysup *s, struct al_err *err)
{
	char cmd[8192], out[4096];
	int status = -1;

	fprintf(stderr, "%s: uploading %s (%lld bytes) to %s\n", s->dev,
		s->image, (long long)s->size, s->remote);
	if (s->env->shell->upload(s->sd, s->image, s->remote, 0600,
				  upload_progress, s, err) < 0)
		return -1;
	if (!s->sum[0])
		return 0;
	if (command_with(cmd, sizeof(cmd), "sha256sum", "", s->remote) < 0)
		return al_errf(err, "%s flash: remote path too long", s->dev);
	if (run_capture(s, cmd, true, out, sizeof(out), &status, err) < 0)
		return al_err_prefix(err, "%s flash: checking the upload",
				     s->dev);
	if (status != 0)
		return al_errf(err, "%s flash: '%s' on the DUT exited %d: %s",
			       s->dev, cmd, status, out);
	if (strncmp(out, s->sum, SHA256_HEX) != 0)
		return al_errf(err,
			       "%s flash: %s on the DUT has sha256 %.64s, %s "
			       "has %s: the upload was damaged",
			       s->dev, s->remote, out, s->image, s->sum);
	fprintf(stderr, "%s: sha256 %s checked on the DUT\n", s->dev, s->sum);
	return 0;
}

/* One line of what a command said, for an error message. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = '|';
}

/* Runs sysupgrade. *dropped: the session ended under it (the DUT went
 * down, as sysupgrade makes it). */
static int run_sysupgrade(struct sysup *s, bool *dropped, struct al_err *err)
{
	char cmd[8192], out[2048];
	struct al_err why;
	int status = -1;

	*dropped = false;
	if (command_with(cmd, sizeof(cmd), s->command,
			 s->keep_settings ? "" : " -n", s->remote) < 0)
		return al_errf(err, "%s flash: command too long", s->dev);
	fprintf(stderr, "%s: running %s\n", s->dev, cmd);
	if (run_capture(s, cmd, true, out, sizeof(out), &status, &why) < 0) {
		/* A reboot takes sshd and the session with it. */
		fprintf(stderr, "%s: the session ended under sysupgrade (%s)\n",
			s->dev, why.msg);
		*dropped = true;
		return 0;
	}
	if (status != 0) {
		one_line(out);
		return al_errf(err, "%s flash: '%s' exited %d: %s", s->dev, cmd,
			       status, out[0] ? out : "(no output)");
	}
	fprintf(stderr, "%s: sysupgrade accepted the image%s%s\n", s->dev,
		out[0] ? ": " : "", out);
	return 0;
}

static void shell_close(struct sysup *s)
{
	if (s->sd)
		s->env->shell->close(s->sd);
	s->sd = NULL;
}

/* Until deadline: runs `true` over the session sysupgrade ran in until
 * it fails (sysupgrade returned and the reboot is still to come; a new
 * connection could not tell a DUT that is down from one that restarts
 * quickly, the old session can). */
static int wait_down(struct sysup *s, int64_t deadline, struct al_err *err)
{
	struct al_err probe;
	int status;

	while (mono_ms() < deadline) {
		if (s->env->shell->run(s->sd, "true", NULL, 0, -1, -1, &status,
				       &probe) < 0)
			return 0;
		sleep_ms(DOWN_PROBE_PAUSE_MS);
	}
	return al_errf(err,
		       "%s flash: the DUT still answered SSH %d s after "
		       "sysupgrade: it did not reboot",
		       s->dev, s->boot_timeout_s);
}

/* Until deadline: reconnects, showing progress; a failure that waiting
 * cannot fix (the shell's open returned early: a host key refused) ends
 * it at once. */
static int wait_up(struct sysup *s, int64_t start, int64_t deadline,
		   struct al_err *err)
{
	struct al_err last = {0};

	fprintf(stderr, "%s: waiting up to %d s for the DUT to come back\n",
		s->dev, s->boot_timeout_s);
	for (;;) {
		int64_t t0 = mono_ms(), left = deadline - t0;
		int step =
		    left < RECONNECT_STEP_MS ? (int)left : RECONNECT_STEP_MS;

		if (left <= 0)
			return al_errf(err,
				       "%s flash: the DUT did not come back "
				       "over SSH within %d s of sysupgrade "
				       "(last error: %.600s)",
				       s->dev, s->boot_timeout_s, last.msg);
		if (s->env->shell->open(&s->sd, s->env->shell_t, step, &last) ==
		    0) {
			fprintf(stderr, "%s: back after %.1f s\n", s->dev,
				(double)(mono_ms() - start) / 1000.0);
			return 0;
		}
		s->sd = NULL;
		if (mono_ms() - t0 < step - 500) {
			*err = last;
			return al_err_prefix(err, "%s flash: after sysupgrade",
					     s->dev);
		}
		fprintf(stderr, "%s: no SSH answer yet (%.0f of %d s)\n",
			s->dev, (double)(mono_ms() - start) / 1000.0,
			s->boot_timeout_s);
	}
}

static int read_version(struct sysup *s, char *out, size_t len,
			struct al_err *err)
{
	int status = -1;

	if (run_capture(s, s->version_command, false, out, len, &status, err) <
	    0)
		return al_err_prefix(err, "%s flash: reading the version",
				     s->dev);
	if (status != 0)
		out[0] = 0;
	return 0;
}

static int sysupgrade_flash(const struct drv_target *t,
			    const struct flash_image *img,
			    const struct flash_env *env, struct al_err *err)
{
	struct sysup s = {.t = t, .env = env, .dev = t->host->name};
	char old[256], found[256];
	int64_t start, deadline;
	bool dropped;
	int rc = -1;

	if (!env || !env->shell || !env->shell_t)
		return al_errf(err,
			       "%s flash: sysupgrade reaches the DUT over its "
			       "shell, and it has no shell: binding",
			       s.dev);
	if (!env->shell->upload)
		return al_errf(err,
			       "%s flash: shell driver %s cannot upload files, "
			       "which sysupgrade needs",
			       s.dev, env->shell->name);
	if (read_settings(&s, img, err) < 0)
		return -1;
	if (env->shell->open(&s.sd, env->shell_t, s.boot_timeout_s * 1000,
			     err) < 0) {
		s.sd = NULL;
		return al_err_prefix(err, "%s flash: before sysupgrade", s.dev);
	}
	if (read_version(&s, old, sizeof(old), err) < 0)
		goto out;
	fprintf(stderr, "%s: running version '%s', flashing '%s'\n", s.dev, old,
		s.want);
	if (upload_and_verify(&s, err) < 0 ||
	    run_sysupgrade(&s, &dropped, err) < 0)
		goto out;
	start = mono_ms();
	deadline = start + (int64_t)s.boot_timeout_s * 1000;
	if (!dropped && wait_down(&s, deadline, err) < 0)
		goto out;
	shell_close(&s);
	if (wait_up(&s, start, deadline, err) < 0)
		goto out;
	if (read_version(&s, found, sizeof(found), err) < 0)
		goto out;
	if (strcmp(found, s.want) != 0) {
		al_errf(err,
			"%s flash: after sysupgrade the DUT runs version '%s', "
			"expected '%s' (%s)%s",
			s.dev, found, s.want, s.image,
			strcmp(found, old) == 0 ? ": the old image is still "
						  "running"
						: "");
		goto out;
	}
	fprintf(stderr, "%s: runs version '%s'\n", s.dev, found);
	rc = 0;
out:
	shell_close(&s);
	return rc;
}

const struct flash_ops flash_sysupgrade_ops = {
    .name = "sysupgrade",
    .boots = true,
    .flash = sysupgrade_flash,
    .settings = settings,
};
