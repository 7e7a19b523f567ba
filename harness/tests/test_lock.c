/* Device locks: held while open, nested within a process, refused to
 * another process with the holder named, taken over once the holder is
 * killed, given back empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/lock.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/airlab-test-lock.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Whether another process can take the lock now (0 yes, 1 no). */
static int other_process_takes(const char *what)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct al_err err;

		_exit(lock_take(dir, what, what, &err) == 0 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	return WEXITSTATUS(st);
}

static void nested_then_free(void **state)
{
	struct al_err err;
	char path[128], text[512] = "";
	FILE *f;

	(void)state;
	assert_int_equal(lock_take(dir, "dut-dut1", "dut1", &err), 0);
	assert_int_equal(lock_take(dir, "dut-dut1", "dut1", &err), 0);
	snprintf(path, sizeof(path), "%s/locks/dut-dut1.lock", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	assert_int_equal(strncmp(text, "pid=", 4), 0);
	assert_int_equal(atol(text + 4), getpid());
	assert_non_null(strstr(text, " since="));
	assert_non_null(strstr(text, " cmd="));
	assert_int_equal(other_process_takes("dut-dut1"), 1);
	lock_give(dir, "dut-dut1");
	assert_int_equal(other_process_takes("dut-dut1"), 1);
	lock_give(dir, "dut-dut1");
	assert_int_equal(other_process_takes("dut-dut1"), 0);
	/* Another device is another lock. */
	assert_int_equal(lock_take(dir, "atten-bench", "bench", &err), 0);
	assert_int_equal(other_process_takes("dut-dut1"), 0);
	lock_give(dir, "atten-bench");
}

static void holder_named_then_taken_over(void **state)
{
	struct al_err err;
	char want[64], ready;
	int p[2];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (lock_take(dir, "dut-dut2", "dut2", &err) < 0)
			_exit(1);
		(void)!write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &ready, 1), 1);
	close(p[0]);
	assert_int_equal(lock_take(dir, "dut-dut2", "dut2", &err), -1);
	snprintf(want, sizeof(want), "pid=%ld ", (long)pid);
	assert_non_null(strstr(err.msg, "dut2 is in use by another airlab"));
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, "dut-dut2.lock"));
	/* Killed holding it: the kernel let go, the file still names it. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(lock_take(dir, "dut-dut2", "dut2", &err), 0);
	lock_give(dir, "dut-dut2");
}

static void bad_names(void **state)
{
	struct al_err err;

	(void)state;
	assert_int_equal(lock_take(dir, "dut-../x", "x", &err), -1);
	assert_non_null(strstr(err.msg, "has a '/'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(nested_then_free),
	    cmocka_unit_test(holder_named_then_taken_over),
	    cmocka_unit_test(bad_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
