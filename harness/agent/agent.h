/* The airlab-agent engine: one epoll loop that reads commands (see
 * PROTOCOL.md) from in_fd, runs servers, TCP bulk flows and latency probes,
 * and writes ok/err/sample lines to out. libc only: it runs on DUT hosts. */
#ifndef AIRLAB_AGENT_H
#define AIRLAB_AGENT_H

#include <stdio.h>

/* Runs until `quit` or end of input. Returns 0, or 1 after a fatal error
 * (printed as an `err` line). */
int agent_main(int in_fd, FILE *out);

#endif
