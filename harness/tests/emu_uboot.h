/* A board with U-Boot on its serial console, for tests: it sits on the
 * master side of a pty (the driver opens the slave, as a USB serial
 * adapter) and runs in a forked child. Power comes from the test through a
 * pipe ('1' on, '0' off). At power-on it prints a boot banner and counts
 * "Hit any key to stop autoboot" down from 3; a key drops it to the "=> "
 * prompt, where it echoes what is typed and answers setenv, printenv,
 * tftpboot ADDR FILE (fetching FILE for real over TFTP, RFC 1350: 512-byte
 * blocks, one ACK each, from serverip at port tftpdstp or 69), erase,
 * cp.b (into its "flash"), bootm (a Linux boot, the ready marker, a login
 * prompt) and reset. Without a key it boots what its flash holds.
 *
 * What it got is appended to a log file, one line each: "cmd: LINE",
 * "tftp FILE N bytes crc32 X", "flash N bytes crc32 X", "power on",
 * "boot ram" / "boot flash", so a test can check the wire, not the driver's
 * word. Faults: no autoboot prompt at all, silence in the middle of a
 * transfer, the pty's master closed in the middle of a transfer, noise on
 * the line around the banner, a server without the file asked for.
 * Header-only: each test that needs it includes it. */
#ifndef AIRLAB_TESTS_EMU_UBOOT_H
#define AIRLAB_TESTS_EMU_UBOOT_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum uboot_fault {
	UBOOT_OK,
	UBOOT_NO_AUTOBOOT,    /* banner, then nothing */
	UBOOT_SILENT_IN_TFTP, /* stops talking after a few blocks */
	UBOOT_CLOSE_IN_TFTP,  /* the master end goes away mid-transfer */
	UBOOT_GARBAGE,	      /* line noise around the banner */
	UBOOT_ASKS_OTHER,     /* requests a file the server does not have */
};

#define UBOOT_EMU_MARKER  "airlab-init: ready"
#define UBOOT_EMU_STEP_MS 1000 /* one autoboot count, as U-Boot */

struct uboot_emu {
	enum uboot_fault fault;
	char log[256];
	pid_t pid;
	int power; /* write end: '1' on, '0' off */
};

/* The child's state: its "RAM", its "flash", its environment. */
struct uboot_board {
	struct uboot_emu *e;
	int tty, power;
	bool on;
	char env[16][2][128];
	int nenv;
	unsigned char *ram;
	size_t ram_len;
	unsigned long ram_addr;
	unsigned char *flash;
	size_t flash_len;
	unsigned long erased_addr, erased_len;
};

static uint32_t uboot_crc32(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

static void uboot_log(struct uboot_board *b, const char *fmt, ...)
{
	va_list ap;
	FILE *f = fopen(b->e->log, "a");

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static void uboot_say(struct uboot_board *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	for (int off = 0; off < n;) {
		ssize_t w = write(b->tty, buf + off, (size_t)(n - off));

		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0)
			_exit(0); /* nobody holds the line any more */
		off += (int)w;
	}
}

static void uboot_noise(struct uboot_board *b)
{
	static const unsigned char noise[] = {0x00, 0xff, 0xfe, 0x1b, 0x00,
					      0x80, 0xc3, 0x7f, 0x00, 0x11};

	if (b->e->fault == UBOOT_GARBAGE &&
	    write(b->tty, noise, sizeof(noise)) < 0)
		_exit(0);
}

static const char *uboot_getenv(struct uboot_board *b, const char *name)
{
	for (int i = 0; i < b->nenv; i++)
		if (!strcmp(b->env[i][0], name))
			return b->env[i][1];
	return NULL;
}

static void uboot_setenv(struct uboot_board *b, const char *name,
			 const char *value)
{
	int i = 0;

	while (i < b->nenv && strcmp(b->env[i][0], name))
		i++;
	if (i == b->nenv) {
		if (b->nenv == 16)
			return;
		b->nenv++;
	}
	snprintf(b->env[i][0], sizeof(b->env[i][0]), "%s", name);
	snprintf(b->env[i][1], sizeof(b->env[i][1]), "%s", value);
}

/* Power: returns the new state when the test switched it, else -1. */
static int uboot_power_event(struct uboot_board *b)
{
	char c;

	if (read(b->power, &c, 1) != 1)
		_exit(0); /* the test is gone */
	b->on = c == '1';
	if (b->on)
		uboot_log(b, "power on");
	return b->on;
}

/* Waits up to ms for a byte from the line (returned) or a power switch
 * (-2); -1 on timeout (ms < 0: forever). */
static int uboot_getc(struct uboot_board *b, int ms)
{
	struct pollfd p[2] = {{.fd = b->tty, .events = POLLIN},
			      {.fd = b->power, .events = POLLIN}};
	unsigned char c;

	for (;;) {
		int rc = poll(p, 2, ms);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			return -1;
		if (p[1].revents) {
			uboot_power_event(b);
			return -2;
		}
		if (read(b->tty, &c, 1) == 1)
			return c;
		return -1;
	}
}

static void uboot_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* ---- TFTP (RFC 1350), as U-Boot's client ---- */

static int uboot_send_ack(int sock, const struct sockaddr_in *to,
			  uint16_t block)
{
	unsigned char ack[4] = {0, 4, (unsigned char)(block >> 8),
				(unsigned char)block};

	return (int)sendto(sock, ack, 4, 0, (const struct sockaddr *)to,
			   sizeof(*to));
}

/* 0: done; 1: the server sent an ERROR (why holds it); 2: no answer. */
static int uboot_tftp_get(struct uboot_board *b, const char *server, int port,
			  const char *file, char *why, size_t whylen)
{
	unsigned char pkt[4 + 512], rrq[600];
	struct sockaddr_in to = {.sin_family = AF_INET}, from;
	socklen_t flen;
	int sock = socket(AF_INET, SOCK_DGRAM, 0), retries = 0, blocks = 0;
	size_t rlen;
	uint16_t want = 1;
	bool locked = false;

	to.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, server, &to.sin_addr);
	rrq[0] = 0;
	rrq[1] = 1;
	rlen = 2 +
	       (size_t)snprintf((char *)rrq + 2, sizeof(rrq) - 2, "%s", file) +
	       1;
	memcpy(rrq + rlen, "octet", 6);
	rlen += 6;
	free(b->ram);
	b->ram = NULL;
	b->ram_len = 0;
	sendto(sock, rrq, rlen, 0, (struct sockaddr *)&to, sizeof(to));
	for (;;) {
		struct pollfd p = {.fd = sock, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 1000) != 1) {
			if (++retries > 5) {
				close(sock);
				return 2;
			}
			uboot_say(b, "T ");
			if (!locked)
				sendto(sock, rrq, rlen, 0,
				       (struct sockaddr *)&to, sizeof(to));
			else
				uboot_send_ack(sock, &to, (uint16_t)(want - 1));
			continue;
		}
		flen = sizeof(from);
		n = recvfrom(sock, pkt, sizeof(pkt), 0,
			     (struct sockaddr *)&from, &flen);
		if (n < 4)
			continue;
		if (pkt[1] == 5) {
			snprintf(why, whylen, "%.*s", (int)n - 4,
				 (const char *)pkt + 4);
			close(sock);
			return 1;
		}
		if (pkt[1] != 3)
			continue;
		if (!locked) {
			/* The server answers from its transfer's own port. */
			to = from;
			locked = true;
		}
		if (((pkt[2] << 8) | pkt[3]) != want) {
			uboot_send_ack(sock, &to, (uint16_t)(want - 1));
			continue;
		}
		b->ram = realloc(b->ram, b->ram_len + (size_t)n - 4 + 1);
		memcpy(b->ram + b->ram_len, pkt + 4, (size_t)n - 4);
		b->ram_len += (size_t)n - 4;
		retries = 0;
		if (++blocks == 3 && b->e->fault == UBOOT_SILENT_IN_TFTP)
			for (;;)
				pause();
		if (blocks == 3 && b->e->fault == UBOOT_CLOSE_IN_TFTP)
			_exit(0);
		uboot_send_ack(sock, &to, want);
		if (blocks % 10 == 0)
			uboot_say(b, "#%s", blocks % 650 ? "" : "\r\n\t ");
		want++;
		if (n < 4 + 512)
			break;
	}
	close(sock);
	return 0;
}

static void uboot_tftpboot(struct uboot_board *b, const char *addr,
			   const char *file)
{
	const char *ip = uboot_getenv(b, "ipaddr");
	const char *server = uboot_getenv(b, "serverip");
	const char *port = uboot_getenv(b, "tftpdstp");
	char why[200], asked[300];
	int rc;

	if (!ip || !server) {
		uboot_say(b, "*** ERROR: `%s' not set\r\n",
			  ip ? "serverip" : "ipaddr");
		return;
	}
	b->ram_addr = strtoul(addr, NULL, 16);
	uboot_say(b,
		  "Using eth0 device\r\nTFTP from server %s; our IP address "
		  "is %s\r\nFilename '%s'.\r\nLoad address: %s\r\nLoading: ",
		  server, ip, file, addr);
	snprintf(asked, sizeof(asked), "%s%s",
		 b->e->fault == UBOOT_ASKS_OTHER ? "no-such-" : "", file);
	rc = uboot_tftp_get(b, server, port ? atoi(port) : 69, asked, why,
			    sizeof(why));
	if (rc == 1) {
		uboot_say(b, "\r\nTFTP error: '%s' (1)\r\nNot retrying...\r\n",
			  why);
		return;
	}
	if (rc == 2) {
		uboot_say(b, "\r\nRetry count exceeded; starting again\r\n");
		return;
	}
	uboot_log(b, "tftp %s %zu bytes crc32 %08x", file, b->ram_len,
		  (unsigned)uboot_crc32(b->ram, b->ram_len));
	snprintf(why, sizeof(why), "%zx", b->ram_len);
	uboot_setenv(b, "filesize", why);
	uboot_say(b,
		  "\r\n\t 1.1 MiB/s\r\ndone\r\nBytes transferred = %zu "
		  "(%zx hex)\r\n",
		  b->ram_len, b->ram_len);
}

static void uboot_linux(struct uboot_board *b)
{
	static const char *const lines[] = {
	    "[    0.000000] Linux version 6.1.0 (airlab emulator)",
	    "[    0.000000] Machine model: TP-Link TL-WDR4300 v1",
	    "[    1.204000] ath9k 0000:00:00.0: enabling device",
	    "[    2.880000] init: starting",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		uboot_sleep_ms(150);
		uboot_say(b, "%s\r\n", lines[i]);
	}
	uboot_say(b, "%s\r\n\r\nOpenWrt login: ", UBOOT_EMU_MARKER);
}

/* One command line at the prompt; returns 1 when it boots Linux. */
static int uboot_command(struct uboot_board *b, char *line)
{
	char *argv[8] = {0};
	int argc = 0;

	uboot_log(b, "cmd: %s", line);
	for (char *tok = strtok(line, " \t"); tok && argc < 8;
	     tok = strtok(NULL, " \t"))
		argv[argc++] = tok;
	if (argc == 0)
		return 0;
	if (!strcmp(argv[0], "setenv") && argc == 3) {
		uboot_setenv(b, argv[1], argv[2]);
	} else if (!strcmp(argv[0], "printenv")) {
		for (int i = 0; i < b->nenv; i++)
			if (argc < 2 || !strcmp(argv[1], b->env[i][0]))
				uboot_say(b, "%s=%s\r\n", b->env[i][0],
					  b->env[i][1]);
	} else if ((!strcmp(argv[0], "tftpboot") || !strcmp(argv[0], "tftp")) &&
		   argc == 3) {
		uboot_tftpboot(b, argv[1], argv[2]);
	} else if (!strcmp(argv[0], "erase") && argc == 3 &&
		   argv[2][0] == '+') {
		b->erased_addr = strtoul(argv[1], NULL, 16);
		b->erased_len = strtoul(argv[2] + 1, NULL, 16);
		uboot_say(b, "\r\n.... done\r\nErased %lu sectors\r\n",
			  (b->erased_len + 0xffff) / 0x10000);
	} else if (!strcmp(argv[0], "cp.b") && argc == 4) {
		unsigned long src = strtoul(argv[1], NULL, 16);
		unsigned long dst = strtoul(argv[2], NULL, 16);
		unsigned long len = strtoul(argv[3], NULL, 16);

		if (src != b->ram_addr || len > b->ram_len ||
		    dst != b->erased_addr || len > b->erased_len) {
			uboot_say(b, "Copy to Flash... Error: not erased or "
				     "not loaded\r\n");
			return 0;
		}
		free(b->flash);
		b->flash = malloc(len + 1);
		memcpy(b->flash, b->ram, len);
		b->flash_len = len;
		uboot_log(b, "flash %zu bytes crc32 %08x", b->flash_len,
			  (unsigned)uboot_crc32(b->flash, b->flash_len));
		uboot_say(b, "Copy to Flash... 9....8....done\r\n");
	} else if (!strcmp(argv[0], "bootm") && argc == 2) {
		if (!b->ram_len || strtoul(argv[1], NULL, 16) != b->ram_addr) {
			uboot_say(b, "Wrong Image Format for bootm command\r\n"
				     "ERROR: can't get kernel image!\r\n");
			return 0;
		}
		uboot_log(b, "boot ram");
		uboot_say(b,
			  "## Booting kernel from Legacy Image at %s ...\r\n"
			  "   Verifying Checksum ... OK\r\nStarting kernel "
			  "...\r\n\r\n",
			  argv[1]);
		uboot_linux(b);
		return 1;
	} else if (!strcmp(argv[0], "reset")) {
		uboot_say(b, "resetting ...\r\n");
		return 2;
	} else {
		uboot_say(b, "Unknown command '%s' - try 'help'\r\n", argv[0]);
	}
	return 0;
}

/* From power-on: banner, countdown, prompt loop. Returns when the power
 * goes off; stays in Linux (ignoring the line) once booted. */
static void uboot_power_on(struct uboot_board *b)
{
	char line[512];
	size_t len = 0;
	int c, count = 3, booted = 0;

again:
	uboot_noise(b);
	uboot_say(b, "\r\nU-Boot 2023.01 (airlab emulator)\r\n\r\n");
	uboot_noise(b);
	uboot_say(b, "DRAM:  128 MiB\r\nFlash: 8 MiB\r\nNet:   eth0\r\n");
	if (b->e->fault == UBOOT_NO_AUTOBOOT) {
		while (uboot_getc(b, -1) != -2 || b->on)
			;
		return;
	}
	uboot_say(b, "Hit any key to stop autoboot: %2d ", count);
	for (;;) {
		c = uboot_getc(b, UBOOT_EMU_STEP_MS);
		if (c == -2)
			return;
		if (c >= 0)
			break;
		if (--count == 0) {
			uboot_say(b, "\b\b\b 0 \r\n");
			if (!b->flash_len) {
				uboot_say(b, "Wrong Image Format for bootm "
					     "command\r\n=> ");
				break;
			}
			uboot_log(
			    b, "boot flash crc32 %08x",
			    (unsigned)uboot_crc32(b->flash, b->flash_len));
			uboot_say(b, "## Booting kernel from Legacy Image at "
				     "9f050000 ...\r\nStarting kernel ...\r\n");
			uboot_linux(b);
			booted = 1;
			break;
		}
		uboot_say(b, "\b\b\b%2d ", count);
	}
	if (!booted && c >= 0)
		uboot_say(b, "\b\b\b 0 \r\n=> ");
	while (!booted) {
		c = uboot_getc(b, -1);
		if (c == -2)
			return;
		if (c < 0)
			continue;
		if (c == '\r' || c == '\n') {
			int r;

			uboot_say(b, "\r\n");
			line[len] = 0;
			len = 0;
			r = uboot_command(b, line);
			if (r == 2) {
				count = 3;
				goto again;
			}
			if (r == 1)
				booted = 1;
			else
				uboot_say(b, "=> ");
			continue;
		}
		if (len + 1 < sizeof(line)) {
			line[len++] = (char)c;
			uboot_say(b, "%c", c); /* U-Boot echoes */
		}
	}
	while (uboot_getc(b, -1) != -2 || b->on)
		; /* Linux: the line is a login prompt now */
}

static void uboot_emu_main(struct uboot_emu *e, int tty, int power)
{
	struct uboot_board b = {.e = e, .tty = tty, .power = power};

	for (;;) {
		if (!b.on) {
			struct pollfd p = {.fd = power, .events = POLLIN};

			if (poll(&p, 1, -1) == 1)
				uboot_power_event(&b);
			continue;
		}
		uboot_power_on(&b);
	}
}

/* Starts the board on master (which the child then owns: the caller's
 * copy is closed). */
static int uboot_emu_start(struct uboot_emu *e, int master)
{
	int p[2];

	if (pipe(p) < 0)
		return -1;
	e->pid = fork();
	if (e->pid < 0)
		return -1;
	if (e->pid == 0) {
		close(p[1]);
		signal(SIGPIPE, SIG_IGN);
		uboot_emu_main(e, master, p[0]);
		_exit(0);
	}
	close(p[0]);
	close(master);
	e->power = p[1];
	return 0;
}

static int uboot_emu_power(struct uboot_emu *e, bool on)
{
	return write(e->power, on ? "1" : "0", 1) == 1 ? 0 : -1;
}

static void uboot_emu_stop(struct uboot_emu *e)
{
	if (e->pid > 0) {
		kill(e->pid, SIGKILL);
		waitpid(e->pid, NULL, 0);
	}
	if (e->power > 0)
		close(e->power);
	e->pid = 0;
	e->power = -1;
}

#endif
