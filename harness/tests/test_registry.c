/* The driver registry: names from the lab file find their ops; a wrong
 * name is an error that lists the drivers there are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../drivers/driver.h"

static void known_names_resolve(void **state)
{
	(void)state;
	struct al_err err;

	assert_ptr_equal(power_driver("qemu", &err), &power_qemu_ops);
	assert_ptr_equal(power_driver("command", &err), &power_command_ops);
	assert_ptr_equal(flash_driver("qemu-image", &err),
			 &flash_qemu_image_ops);
	assert_ptr_equal(console_driver("serial", &err), &console_serial_ops);
	assert_ptr_equal(shell_driver("ssh", &err), &shell_ssh_ops);
}

static void every_driver_fills_its_ops(void **state)
{
	(void)state;
	assert_non_null(power_qemu_ops.open);
	assert_non_null(power_qemu_ops.set);
	assert_non_null(power_qemu_ops.get);
	assert_non_null(power_qemu_ops.close);
	assert_non_null(flash_qemu_image_ops.flash);
	assert_non_null(console_serial_ops.open);
	assert_non_null(console_serial_ops.read);
	assert_non_null(console_serial_ops.write);
	assert_non_null(console_serial_ops.fd);
	assert_non_null(console_serial_ops.close);
	assert_non_null(shell_ssh_ops.open);
	assert_non_null(shell_ssh_ops.run);
	assert_non_null(shell_ssh_ops.stream);
	assert_non_null(shell_ssh_ops.close);
	assert_non_null(atten_medium_ops.open);
	assert_non_null(atten_medium_ops.set_db);
	assert_non_null(atten_medium_ops.get_db);
	assert_non_null(atten_medium_ops.close);
}

static void unknown_name_lists_known(void **state)
{
	(void)state;
	struct al_err err;

	assert_null(power_driver("apc-pdu", &err));
	assert_non_null(strstr(err.msg, "unknown power driver 'apc-pdu'"));
	assert_non_null(strstr(err.msg, "qemu"));
	assert_null(shell_driver("", &err));
	assert_non_null(strstr(err.msg, "ssh"));
	assert_null(console_driver(NULL, &err));
	assert_non_null(strstr(err.msg, "serial"));
	/* Names are exact: no prefix matches. */
	assert_null(power_driver("qem", &err));
	assert_null(flash_driver("qemu-image2", &err));
}

static void attenuator_names_resolve(void **state)
{
	(void)state;
	struct al_err err;

	assert_ptr_equal(atten_driver("medium", &err), &atten_medium_ops);
	assert_ptr_equal(atten_driver("minicircuits-http", &err),
			 &atten_minicircuits_http_ops);
	assert_ptr_equal(atten_driver("minicircuits-telnet", &err),
			 &atten_minicircuits_telnet_ops);
	assert_null(atten_driver("virtual", &err));
	assert_non_null(strstr(err.msg, "unknown attenuator driver"));
	assert_non_null(strstr(err.msg, "medium"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(known_names_resolve),
	    cmocka_unit_test(every_driver_fills_its_ops),
	    cmocka_unit_test(unknown_name_lists_known),
	    cmocka_unit_test(attenuator_names_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
