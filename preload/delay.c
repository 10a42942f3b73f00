#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "delay.h"
#include "util.h"
#include "warn.h"

struct delay g_delay;

static int parse_hex(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (strncmp(text, "0x", 2) != 0 || !text[2])
		return -EINVAL;
	errno = 0;
	v = strtoull(text + 2, &end, 16);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

struct module_query {
	const char *name;
	size_t len;
	char exe[256];
	uint64_t start; /* where the object's first segment is mapped */
	int found;
};

/* Start of an object = load bias + lowest PT_LOAD address (as dladdr's dli_fbase). */
static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct module_query *q = data;
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : q->exe;
	const char *bn = base_name(path);
	uint64_t lowest = UINT64_MAX;

	(void)size;
	if (strlen(bn) != q->len || strncmp(bn, q->name, q->len) != 0)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_phdr[i].p_vaddr < lowest)
			lowest = info->dlpi_phdr[i].p_vaddr;
	if (lowest == UINT64_MAX)
		return 0;
	q->start = info->dlpi_addr + (lowest & ~(uint64_t)0xfff);
	q->found = 1;
	return 1;
}

int delay_resolve_site(const char *spec, uint64_t *addr)
{
	char name[SETTINGS_PATH_LEN];
	const char *plus = strrchr(spec, '+');
	uint64_t off = 0, base = 0;
	struct module_query q;
	size_t len;
	void *sym;
	long n;

	if (strncmp(spec, "0x", 2) == 0)
		return parse_hex(spec, addr);
	len = plus ? (size_t)(plus - spec) : strlen(spec);
	if (len == 0 || len >= sizeof(name) || (plus && parse_hex(plus + 1, &off) < 0))
		return -EINVAL;
	memcpy(name, spec, len);
	name[len] = '\0';
	sym = dlsym(RTLD_DEFAULT, name);
	if (sym) {
		base = (uint64_t)(uintptr_t)sym;
	} else {
		memset(&q, 0, sizeof(q));
		q.name = name;
		q.len = len;
		n = syscall(SYS_readlink, "/proc/self/exe", q.exe, sizeof(q.exe) - 1);
		q.exe[n > 0 ? n : 0] = '\0';
		dl_iterate_phdr(find_module, &q);
		if (!q.found)
			return -ENOENT;
		base = q.start;
	}
	*addr = base + off;
	return 0;
}

int delay_init(struct delay *d, const struct settings *s)
{
	int ret = 0;

	d->site = 0;
	d->ns = 0;
	if (!s->delay_site[0])
		goto out;
	ret = delay_resolve_site(s->delay_site, &d->site);
	if (ret < 0) {
		warn_line("ignoring CORECAP_DELAY: cannot resolve site '%s' (%s); no delay",
			  s->delay_site,
			  ret == -EINVAL ? "expected 0xADDR, SYMBOL+0xOFF or MODULE+0xOFF"
					 : "no such symbol or loaded module");
		d->site = 0;
		goto out;
	}
	d->ns = s->delay_ns;
out:
	return ret;
}

void delay_busy(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}
