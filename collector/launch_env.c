#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "launch_env.h"

#ifndef CORECAP_INSTALL_LIBDIR
#define CORECAP_INSTALL_LIBDIR "/usr/local/lib"
#endif

static bool listed(const char *list, const char *lib)
{
	size_t n = strlen(lib);
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ": ");

		if (len == n && strncmp(p, lib, n) == 0)
			return true;
		p += len;
		p += strspn(p, ": ");
	}
	return false;
}

int corecap_preload_join(const char *const *libs, size_t n, const char *existing, char **out)
{
	size_t cap = (existing ? strlen(existing) : 0) + 2;
	size_t len = 0;
	char *buf;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		if (!*libs[i] || strpbrk(libs[i], ": \t\n")) {
			ret = -EINVAL;
			goto out;
		}
		cap += strlen(libs[i]) + 1;
	}
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (listed(existing, libs[i]) || listed(buf, libs[i]))
			continue;
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ":" : "", libs[i]);
	}
	if (existing && *existing)
		snprintf(buf + len, cap - len, "%s%s", len ? ":" : "", existing);
	*out = buf;
out:
	return ret;
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

int corecap_find_library(const char *env_name, const char *subdir, const char *file, char **out)
{
	const char *env = env_name ? getenv(env_name) : NULL;
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n;
	int ret = 0;

	if (env && *env) {
		if (!readable(env)) {
			ret = -errno;
			corecap_error("cannot use %s='%s': %s", env_name, env, strerror(errno));
			goto out;
		}
		snprintf(path, sizeof(path), "%s", env);
		goto found;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* The build tree: <build>/cli/corecap beside <build>/<subdir>/. */
			snprintf(path, sizeof(path), "%s/../%s", exe, subdir);
			char *dir = realpath(path, NULL);

			if (dir) {
				snprintf(path, sizeof(path), "%s/%s", dir, file);
				free(dir);
				if (readable(path))
					goto found;
			}
		}
	}
	snprintf(path, sizeof(path), "%s/%s", CORECAP_INSTALL_LIBDIR, file);
	if (readable(path))
		goto found;
	ret = -ENOENT;
	corecap_error("cannot find %s: not beside the corecap executable (../%s/) nor in %s%s%s",
		      file, subdir, CORECAP_INSTALL_LIBDIR, env_name ? "; set " : "",
		      env_name ? env_name : "");
	goto out;
found:
	*out = strdup(path);
	if (!*out)
		ret = -ENOMEM;
out:
	return ret;
}

static int add_lib(struct corecap_launch_env *env, char *path)
{
	if (!path)
		return -ENOMEM;
	env->libs[env->n_libs++] = path;
	return 0;
}

static int add_system_lib(struct corecap_launch_env *env, const char *path, const char *what)
{
	if (!readable(path)) {
		int ret = -errno;

		corecap_error("cannot preload %s '%s': %s", what, path, strerror(errno));
		return ret;
	}
	return add_lib(env, strdup(path));
}

int corecap_launch_env_init(struct corecap_launch_env *env, bool shim, bool cpuprofile, pid_t pid)
{
	char *lib = NULL;
	int ret;

	memset(env, 0, sizeof(*env));
	if (shim)
		ret = corecap_find_library("CORECAP_PRELOAD_LIB", "preload",
					   "libcorecap-preload.so", &lib);
	else
		ret = corecap_find_library("CORECAP_TP_LIB", "tracepoints", "libcorecap-tp.so",
					   &lib);
	if (ret < 0)
		goto out_release;
	ret = add_lib(env, lib);
	if (ret < 0)
		goto out_release;
	/* Forked children re-register with LTTng and stay traceable. */
	if (shim) {
		ret = add_system_lib(env, CORECAP_UST_FORK_LIB, "the LTTng-UST fork helper");
		if (ret < 0)
			goto out_release;
	}
	if (cpuprofile) {
		ret = add_system_lib(env, CORECAP_PROFILER_LIB, "gperftools' libprofiler");
		if (ret < 0)
			goto out_release;
		env->cpuprofile = true;
		snprintf(env->cpuprofile_path, sizeof(env->cpuprofile_path), CORECAP_CPUPROFILE_FMT,
			 (int)pid);
	}
	ret = corecap_preload_join((const char *const *)env->libs, env->n_libs,
				   getenv("LD_PRELOAD"), &env->ld_preload);
	if (ret == -EINVAL)
		corecap_error("cannot preload libraries whose path holds ':' or a blank");
	if (ret < 0)
		goto out_release;
	return 0;

out_release:
	corecap_launch_env_release(env);
	return ret;
}

int corecap_launch_env_apply(struct corecap_launch_env *env)
{
	char sig[16];
	int ret = 0;

	if (setenv("LD_PRELOAD", env->ld_preload, 1) < 0)
		goto out_errno;
	if (env->cpuprofile) {
		snprintf(sig, sizeof(sig), "%d", CORECAP_CPUPROFILE_SIGNAL);
		if (setenv("CPUPROFILE", env->cpuprofile_path, 1) < 0 ||
		    setenv("CPUPROFILESIGNAL", sig, 1) < 0)
			goto out_errno;
	}
	return ret;
out_errno:
	ret = -errno;
	corecap_error("cannot set the environment: %s", strerror(errno));
	return ret;
}

void corecap_launch_env_release(struct corecap_launch_env *env)
{
	for (size_t i = 0; i < env->n_libs; i++)
		free(env->libs[i]);
	free(env->ld_preload);
	memset(env, 0, sizeof(*env));
}
