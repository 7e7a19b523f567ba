/* Order statistics and fairness over samples, for results, airtime and
 * the suites' summaries. libc only. */
#ifndef AIRLAB_UTIL_STATS_H
#define AIRLAB_UTIL_STATS_H

#include <stddef.h>

/* qsort order of doubles, ascending. */
int stats_cmp_double(const void *a, const void *b);
/* p-th percentile (0..100) of v[0..n) by linear interpolation between
 * closest ranks (numpy's default). Sorts v in place. NAN if n == 0. */
double stats_percentile(double *v, size_t n, double p);
/* Jain's fairness index (sum x)^2 / (n * sum x^2); NAN if undefined. */
double stats_jain(const double *v, size_t n);

#endif
