/* airlab-agent: load generator and latency prober for the hosts of a test
 * cell. Controlled over stdin/stdout, see harness/agent/PROTOCOL.md. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../agent.h"

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];

	if (argc > 1) {
		int help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");

		fprintf(help ? stdout : stderr,
			"usage: airlab-agent   (commands on stdin, results on "
			"stdout; see harness/agent/PROTOCOL.md)\n");
		return help ? 0 : 2;
	}
	/* A peer that goes away must show up as an error, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	return agent_main(STDIN_FILENO, stdout);
}
