#include "cpu_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* One CPU number at *p, below CPU_SETSIZE; moves *p past it. */
static int cpu_number(const char **p, long *out)
{
	char *end;
	long v;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v >= CPU_SETSIZE)
		return -ERANGE;
	*p = end;
	*out = v;
	return 0;
}

int corecap_cpu_list_parse(const char *s, cpu_set_t *set, char *err, size_t errlen)
{
	const char *p = s;

	CPU_ZERO(set);
	if (!s || !*s) {
		snprintf(err, errlen, "an empty CPU list");
		return -EINVAL;
	}
	for (;;) {
		long a, b;
		int ret = cpu_number(&p, &a);

		b = a;
		if (!ret && *p == '-') {
			p++;
			ret = cpu_number(&p, &b);
		}
		if (ret == -ERANGE) {
			snprintf(err, errlen, "a CPU number of '%s' is not below %d", s, CPU_SETSIZE);
			return -EINVAL;
		}
		if (ret || b < a || (*p && *p != ',')) {
			snprintf(err, errlen,
				 "'%s' is not a CPU list (CPU numbers and ranges A-B, "
				 "comma-separated: 0,2-3)",
				 s);
			return -EINVAL;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		if (!*p)
			return 0;
		p++; /* the comma; a trailing one fails at the next number */
	}
}

void corecap_cpu_list_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && at < len; c++) {
		int last = c;
		int n;

		if (!CPU_ISSET(c, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		n = last == c ? snprintf(buf + at, len - at, "%s%d", at ? "," : "", c)
			      : snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", c, last);
		if (n < 0)
			return;
		at += (size_t)n;
		c = last;
	}
}
