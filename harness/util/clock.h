/* Monotonic milliseconds for deadlines (seconds for reports), and a sleep that
 * EINTR does not cut short. */
#ifndef AIRLAB_UTIL_CLOCK_H
#define AIRLAB_UTIL_CLOCK_H

#include <stdint.h>

int64_t mono_ms(void);
/* The same in seconds, for elapsed times people read. */
double mono_s(void);
void sleep_ms(int ms);

#endif
