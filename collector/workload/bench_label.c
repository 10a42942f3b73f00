#include "bench_label.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const wrappers[] = {
	"nice", "taskset", "chrt", "ionice", "env", "numactl", "stdbuf", "timeout",
};

static bool is_wrapper(const char *arg)
{
	const char *base = strrchr(arg, '/');

	base = base ? base + 1 : arg;
	for (size_t i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++)
		if (strcmp(base, wrappers[i]) == 0)
			return true;
	return false;
}

static bool executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A path to an executable, or a name PATH finds one for (as execvp would). */
static bool runnable(const char *arg)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];

	if (!arg[0] || arg[0] == '-' || strchr(arg, '='))
		return false;
	if (strchr(arg, '/'))
		return executable_file(arg);
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		size_t n;

		end = strchrnul(p, ':');
		n = (size_t)(end - p);
		if (n == 0 || n + 1 + strlen(arg) >= sizeof(buf))
			continue;
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, arg);
		if (executable_file(buf))
			return true;
	}
	return false;
}

const char *corecap_bench_label(char *const *argv)
{
	size_t i = 0;

	while (argv[i] && is_wrapper(argv[i])) {
		size_t j = i + 1;

		while (argv[j] && !runnable(argv[j]))
			j++;
		if (!argv[j])
			return argv[i];
		i = j;
	}
	return argv[i];
}
