/*
 * A CPU list as taskset(1) and cpuset(7) write it ("0", "0,2", "1-3,6"):
 * parsed into a cpu_set_t, and written back in the same form.
 */
#ifndef CORECAP_COLLECTOR_CPU_LIST_H
#define CORECAP_COLLECTOR_CPU_LIST_H

#include <sched.h>
#include <stddef.h>

/*
 * Parses s into *set: decimal CPU numbers below CPU_SETSIZE and ranges
 * A-B (A <= B), comma-separated, no blanks, at least one CPU. 0, or
 * -EINVAL with what is wrong in err (errlen bytes, NUL-terminated).
 */
int corecap_cpu_list_parse(const char *s, cpu_set_t *set, char *err, size_t errlen);

/* Writes set as a CPU list ("0-2,5") into buf; "" for an empty set. */
void corecap_cpu_list_format(const cpu_set_t *set, char *buf, size_t len);

#endif
