#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "delay.h"
#include "elf_sym.h"
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

/*
 * A function of the main program known only to its .symtab (a static
 * function, as the summary names it): its run-time address, or 0.
 */
static uint64_t main_program_symbol(const char *name)
{
	static struct elf_sym es; /* 4 KiB: off the stack; resolution runs once at load */
	unsigned long entry = getauxval(AT_ENTRY);
	uint64_t addr = 0;
	Dl_info info;

	if (!entry || !dladdr((void *)entry, &info))
		return 0;
	elf_sym_init(&es);
	if (!elf_sym_address(&es, "/proc/self/exe", name, (uint64_t)(uintptr_t)info.dli_fbase,
			     &addr))
		addr = 0;
	elf_sym_release(&es);
	return addr;
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
	if (!sym)
		base = main_program_symbol(name);
	if (sym) {
		base = (uint64_t)(uintptr_t)sym;
	} else if (!base) {
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

	memset(d, 0, sizeof(*d));
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
	d->env_site = d->site;
	d->env_ns = d->ns;
	return ret;
}

static bool try_take(struct delay *d)
{
	return !__atomic_exchange_n(&d->taking, 1, __ATOMIC_ACQUIRE);
}

static void untake(struct delay *d)
{
	__atomic_store_n(&d->taking, 0, __ATOMIC_RELEASE);
}

/* Sets the delay in effect and says so in the control page. Under taking. */
static void set_delay(struct delay *d, bool runtime, uint64_t site, uint64_t ns)
{
	__atomic_store_n(&d->runtime, runtime, __ATOMIC_RELAXED);
	if (!runtime) {
		site = d->env_site;
		ns = d->env_ns;
	}
	/* Site 0 first, so that no thread pairs the new site with the old time for long. */
	__atomic_store_n(&d->site, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&d->ns, ns, __ATOMIC_RELAXED);
	__atomic_store_n(&d->site, site, __ATOMIC_RELEASE);
	if (d->extra)
		__atomic_store_n(d->extra, runtime ? 1 : d->extra_base, __ATOMIC_RELAXED);
	if (d->ctl) {
		__atomic_store_n(&d->ctl->active_site, runtime ? site : 0, __ATOMIC_RELAXED);
		__atomic_store_n(&d->ctl->active_ns, runtime ? ns : 0, __ATOMIC_RELAXED);
	}
}

void delay_attach_control(struct delay *d, struct corecap_stats_control *ctl, int *extra,
			  int extra_base)
{
	d->ctl = ctl;
	d->extra = extra;
	d->extra_base = extra_base;
	d->seen_seq = 0;
	set_delay(d, false, 0, 0);
}

/* Does the process pid exist? (EPERM: it does, owned by someone else.) */
static bool owner_alive(int32_t pid)
{
	return pid > 0 && (syscall(SYS_kill, (long)pid, 0) == 0 || errno == EPERM);
}

void delay_take(struct delay *d, uint64_t now)
{
	struct corecap_stats_control *c = d->ctl;
	uint64_t s1, s2, site, ns, lease;
	int32_t owner;
	int saved_errno = errno;

	if (!c || !try_take(d))
		return;
	s1 = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
	if (s1 & 1 || s1 == d->seen_seq)
		goto out; /* being written (taken at a later poll), or taken already */
	site = __atomic_load_n(&c->site, __ATOMIC_RELAXED);
	ns = __atomic_load_n(&c->delay_ns, __ATOMIC_RELAXED);
	owner = __atomic_load_n(&c->owner_pid, __ATOMIC_RELAXED);
	lease = __atomic_load_n(&c->lease_end_ns, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
	if (s1 != s2)
		goto out; /* torn: a controller wrote meanwhile */
	d->seen_seq = s1;
	__atomic_store_n(&c->applied_seq, s1, __ATOMIC_RELAXED);
	if (!site) {
		set_delay(d, false, 0, 0);
		goto out;
	}
	if (ns > CORECAP_STATS_CONTROL_MAX_NS || lease <= now || !owner_alive(owner)) {
		shared_add(&c->refused, 1);
		set_delay(d, false, 0, 0);
		goto out;
	}
	d->owner_pid = owner;
	d->lease_end_ns = lease;
	d->check_at_ns = now + DELAY_CHECK_NS;
	/* A renewal (same site and time) only moves the lease. */
	if (!d->runtime || d->site != site || d->ns != ns)
		set_delay(d, true, site, ns);
out:
	untake(d);
	errno = saved_errno;
}

void delay_check(struct delay *d, uint64_t now)
{
	int saved_errno;

	if (now < __atomic_load_n(&d->check_at_ns, __ATOMIC_RELAXED) || !try_take(d))
		return;
	saved_errno = errno;
	if (d->runtime && now < d->check_at_ns) {
		/* Another thread checked while we were getting here. */
	} else if (d->runtime && (now >= d->lease_end_ns || !owner_alive(d->owner_pid))) {
		if (d->ctl)
			shared_add(&d->ctl->dropped, 1);
		set_delay(d, false, 0, 0);
	} else {
		__atomic_store_n(&d->check_at_ns, now + DELAY_CHECK_NS, __ATOMIC_RELAXED);
	}
	untake(d);
	errno = saved_errno;
}

void delay_busy(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}
