/* A Mini-Circuits attenuator at its wire protocol, for tests: the command
 * set of the RUDAT/RCDAT/RC4DAT manuals over telnet (CRLF lines, and the
 * option negotiation a real box opens with) or HTTP (GET /COMMAND, the
 * reply as the body), run in a child process on a loopback port. Faults:
 * stop answering after N commands, answer garbage, close the connection
 * after N commands. Header-only: each test that needs it includes it. */
#ifndef AIRLAB_TESTS_EMU_MINICIRCUITS_H
#define AIRLAB_TESTS_EMU_MINICIRCUITS_H

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

struct mc_emu {
	int http;	   /* 0: telnet */
	const char *model; /* "RC4DAT-6000-90" */
	int channels;	   /* of that model */
	double max_db;	   /* of that model */
	int silent_after;  /* 0: never */
	int close_after;   /* 0: never */
	int garbage;	   /* :ATT? answers noise */
	pid_t pid;
	int port;
};

/* The reply to one command, as the manuals give it. */
static void mc_emu_reply(struct mc_emu *e, double *att, const char *cmd,
			 char *out, size_t len)
{
	int ch = 1, n = 0;
	double v;
	char tail;

	if (!strcmp(cmd, ":MN?")) {
		snprintf(out, len, "MN=%s", e->model);
	} else if (!strcmp(cmd, ":SN?")) {
		snprintf(out, len, "SN=11912140001");
	} else if (!strcmp(cmd, ":FIRMWARE?")) {
		snprintf(out, len, "C9");
	} else if ((e->channels == 1 &&
		    sscanf(cmd, ":SETATT=%lf%c", &v, &tail) == 1) ||
		   (e->channels > 1 && sscanf(cmd, ":CHAN:%d:SETATT:%lf%c", &ch,
					      &v, &tail) == 2)) {
		if (ch < 1 || ch > e->channels) {
			snprintf(out, len, "0");
		} else if (v < 0 || v > e->max_db) {
			att[ch - 1] = v < 0 ? 0 : e->max_db;
			snprintf(out, len, "2");
		} else {
			att[ch - 1] = round(v * 4) / 4;
			snprintf(out, len, "1");
		}
	} else if ((e->channels == 1 && !strcmp(cmd, ":ATT?")) ||
		   (e->channels > 1 &&
		    sscanf(cmd, ":CHAN:%d:ATT%n", &ch, &n) == 1 && n &&
		    !strcmp(cmd + n, "?"))) {
		if (ch < 1 || ch > e->channels)
			snprintf(out, len, "-99");
		else if (e->garbage)
			snprintf(out, len, "\x01#ATT=%c%c", 0x7f, 'x');
		else
			snprintf(out, len, "%g", att[ch - 1]);
	} else {
		snprintf(out, len, "-99");
	}
}

static void mc_emu_serve(struct mc_emu *e, int lfd)
{
	double att[8] = {0};
	int served = 0;

	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		char buf[2048], reply[256], out[512];
		size_t n = 0;

		if (fd < 0)
			continue;
		/* Real boxes open with telnet negotiation: IAC WILL ECHO. */
		if (!e->http && write(fd, "\xff\xfb\x01", 3) < 0) {
			close(fd);
			continue;
		}
		for (;;) {
			ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);
			char *eol;

			if (r <= 0)
				break;
			n += (size_t)r;
			buf[n] = 0;
			eol = strstr(buf, e->http ? "\r\n\r\n" : "\r\n");
			if (!eol)
				continue;
			served++;
			if (e->close_after && served > e->close_after)
				break;
			if (e->silent_after && served > e->silent_after) {
				pause(); /* holds the connection, says nothing
					  */
				continue;
			}
			if (e->http) {
				char cmd[256] = "";

				sscanf(buf, "GET /%255s HTTP/1.1", cmd);
				mc_emu_reply(e, att, cmd, reply, sizeof(reply));
				snprintf(out, sizeof(out),
					 "HTTP/1.1 200 OK\r\nContent-Type: "
					 "text/html\r\nContent-Length: "
					 "%zu\r\nConnection: close\r\n\r\n%s",
					 strlen(reply), reply);
				if (write(fd, out, strlen(out)) < 0)
					break;
				break; /* one request per connection */
			}
			*eol = 0;
			mc_emu_reply(e, att, buf, reply, sizeof(reply));
			snprintf(out, sizeof(out), "%s\r\n", reply);
			if (write(fd, out, strlen(out)) < 0)
				break;
			n -= (size_t)(eol + 2 - buf);
			memmove(buf, eol + 2, n + 1);
		}
		close(fd);
	}
}

/* Every emulator started and not stopped, for a teardown that runs when
 * an assertion left the test early. */
static pid_t mc_emu_running[16];

/* Starts the emulator on a free loopback port (e->port). */
static int mc_emu_start(struct mc_emu *e)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 8) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &al) < 0)
		return -1;
	e->port = ntohs(a.sin_port);
	e->pid = fork();
	if (e->pid == 0) {
		mc_emu_serve(e, lfd);
		_exit(0);
	}
	close(lfd);
	for (int i = 0; i < 16 && e->pid > 0; i++)
		if (!mc_emu_running[i]) {
			mc_emu_running[i] = e->pid;
			break;
		}
	return e->pid > 0 ? 0 : -1;
}

static void mc_emu_stop(struct mc_emu *e)
{
	if (e->pid > 0) {
		kill(e->pid, SIGKILL);
		waitpid(e->pid, NULL, 0);
		for (int i = 0; i < 16; i++)
			if (mc_emu_running[i] == e->pid)
				mc_emu_running[i] = 0;
		e->pid = 0;
	}
}

static void mc_emu_stop_all(void)
{
	for (int i = 0; i < 16; i++)
		if (mc_emu_running[i] > 0) {
			kill(mc_emu_running[i], SIGKILL);
			waitpid(mc_emu_running[i], NULL, 0);
			mc_emu_running[i] = 0;
		}
}

#endif
