#include "flame_stacks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[FLAME__COUNT] = {
	[FLAME_CPU] = "cpu",
	[FLAME_WALL] = "wall",
	[FLAME_LOCK] = "lock",
	[FLAME_OP] = "op",
};

const char *corecap_flame_kind_name(enum flame_kind kind)
{
	return kind < FLAME__COUNT ? kind_names[kind] : "?";
}

bool corecap_flame_kind_parse(const char *name, enum flame_kind *kind)
{
	for (int k = 0; k < FLAME__COUNT; k++)
		if (strcmp(name, kind_names[k]) == 0) {
			*kind = (enum flame_kind)k;
			return true;
		}
	return false;
}

int corecap_flame_stacks_init(struct flame_stacks *fs, enum flame_kind kind, flame_namer_fn namer,
			      void *namer_ctx)
{
	*fs = (struct flame_stacks){.kind = kind, .namer = namer, .namer_ctx = namer_ctx};
	return corecap_folded_init(&fs->folded);
}

void corecap_flame_stacks_release(struct flame_stacks *fs)
{
	corecap_folded_release(&fs->folded);
	*fs = (struct flame_stacks){0};
}

/*
 * pprof's RemoveUninterestingFrames for CPU profiles: the profiler's
 * signal handler and the signal trampoline, compared on the name without
 * its argument list (pprof's ShortFunctionName).
 */
static bool is_profiler_frame(const char *name)
{
	static const char *const skip[] = {
		"ProfileData::Add", "ProfileData::prof_handler", "CpuProfiler::prof_handler",
		"__FRAME_END__",    "__pthread_sighandler",	 "__restore",
	};
	size_t n = strcspn(name, "(");

	for (size_t i = 0; i < sizeof(skip) / sizeof(*skip); i++)
		if (strlen(skip[i]) == n && strncmp(name, skip[i], n) == 0)
			return true;
	return false;
}

/* Interns "name[inline]". */
static uint32_t intern_inline(struct folded *f, const char *name)
{
	char small[2048], *buf = small;
	size_t len = strlen(name) + sizeof("[inline]");
	uint32_t id;

	if (len > sizeof(small) && !(buf = malloc(len)))
		return FOLDED_NONE;
	snprintf(buf, len, "%s[inline]", name);
	id = corecap_folded_intern(f, buf);
	if (buf != small)
		free(buf);
	return id;
}

/* Doubles the frame id buffer, moving it off the stack the first time. */
static int grow(uint32_t **ids, const uint32_t *small, size_t used, size_t *cap)
{
	uint32_t *grown = malloc(*cap * 2 * sizeof(**ids));

	if (!grown)
		return -ENOMEM;
	memcpy(grown, *ids, used * sizeof(**ids));
	if (*ids != small)
		free(*ids);
	*ids = grown;
	*cap *= 2;
	return 0;
}

int corecap_flame_stacks_add(struct flame_stacks *fs, const char *const *prefix, size_t n_prefix,
			     const uint64_t *pcs, size_t depth, bool first_exact, bool all_exact,
			     uint64_t weight, int column)
{
	uint32_t small[256] = {0}, *ids = small;
	size_t n = 0, cap = sizeof(small) / sizeof(*small);
	struct flame_names fn;
	int ret = 0;

	for (size_t i = 0; i < n_prefix; i++) {
		if (n == cap && (ret = grow(&ids, small, n, &cap)))
			goto out;
		ids[n++] = corecap_folded_intern(&fs->folded, prefix[i]);
	}
	for (size_t i = depth; i-- > 0;) {
		bool exact = i == 0 ? first_exact : all_exact;

		fn.n = 0;
		fn.resolved = fn.shim = false;
		fn.buf[0] = '\0';
		memset(fn.inlined, 0, sizeof(fn.inlined));
		fs->namer(fs->namer_ctx, pcs[i], exact, &fn);
		fs->frames++;
		if (!fn.resolved)
			fs->unresolved_frames++;
		if (fn.shim && !fs->keep_shim_frames) {
			fs->shim_frames++;
			continue;
		}
		/* pprof drops an address by its function (the outermost of its names). */
		if (fn.resolved && fs->skip_profiler_frames && fn.n &&
		    is_profiler_frame(fn.names[fn.n - 1])) {
			fs->skipped_frames++;
			continue;
		}
		for (size_t k = fn.n; k-- > 0;) {
			if (n == cap && (ret = grow(&ids, small, n, &cap)))
				goto out;
			ids[n++] = fn.inlined[k] ? intern_inline(&fs->folded, fn.names[k])
						 : corecap_folded_intern(&fs->folded, fn.names[k]);
			if (ids[n - 1] == FOLDED_NONE) {
				ret = -ENOMEM;
				goto out;
			}
		}
	}
	ret = corecap_folded_add_ids(&fs->folded, ids, n, weight, column);
	if (!ret && n) {
		fs->stacks++;
		fs->weight += weight;
	}
out:
	if (ids != small)
		free(ids);
	return ret;
}
