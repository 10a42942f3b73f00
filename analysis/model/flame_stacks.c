#include "flame_stacks.h"

#include <errno.h>
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

int corecap_flame_stacks_add(struct flame_stacks *fs, const char *const *prefix, size_t n_prefix,
			     const uint64_t *pcs, size_t depth, bool first_exact, bool all_exact,
			     uint64_t weight, int column)
{
	uint32_t small[128], *ids = small;
	size_t n = 0;
	char buf[256];
	int ret = 0;

	if (n_prefix + depth > sizeof(small) / sizeof(*small)) {
		ids = malloc((n_prefix + depth) * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n_prefix; i++)
		ids[n++] = corecap_folded_intern(&fs->folded, prefix[i]);
	for (size_t i = depth; i-- > 0;) {
		bool resolved = false, exact = i == 0 ? first_exact : all_exact;
		const char *name =
			fs->namer(fs->namer_ctx, pcs[i], exact, buf, sizeof(buf), &resolved);

		fs->frames++;
		if (!resolved)
			fs->unresolved_frames++;
		if (resolved && fs->skip_profiler_frames && is_profiler_frame(name)) {
			fs->skipped_frames++;
			continue;
		}
		ids[n++] = corecap_folded_intern(&fs->folded, name);
	}
	ret = corecap_folded_add_ids(&fs->folded, ids, n, weight, column);
	if (!ret && n) {
		fs->stacks++;
		fs->weight += weight;
	}
	if (ids != small)
		free(ids);
	return ret;
}
