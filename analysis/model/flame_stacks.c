#include "flame_stacks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

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
	*fs = (struct flame_stacks){
		.kind = kind, .namer = namer, .namer_ctx = namer_ctx, .fixed_class = -1};
	return corecap_folded_init(&fs->folded);
}

void corecap_flame_stacks_release(struct flame_stacks *fs)
{
	free(fs->info);
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

const struct flame_node_info *corecap_flame_stacks_info(const struct flame_stacks *fs,
							uint32_t node)
{
	return node < fs->n_info ? &fs->info[node] : NULL;
}

/* What the namer said of one frame, beside its name. */
struct frame_src {
	uint32_t file, line;
	bool unresolved;
};

/* Doubles the frame buffers, moving them off the stack the first time. */
static int grow(uint32_t **ids, struct frame_src **src, const uint32_t *small_ids,
		const struct frame_src *small_src, size_t used, size_t *cap)
{
	if (corecap_grow_off_stack((void **)ids, small_ids, used, *cap * 2, sizeof(**ids)) ||
	    corecap_grow_off_stack((void **)src, small_src, used, *cap * 2, sizeof(**src)))
		return -ENOMEM;
	*cap *= 2;
	return 0;
}

/* Room for an info per folded node. */
static int grow_info(struct flame_stacks *fs)
{
	size_t n = fs->folded.n_nodes, cap = fs->n_info;
	struct flame_node_info *v;

	if (n <= cap)
		return 0;
	while (cap < n)
		cap = cap ? cap * 2 : 256;
	v = realloc(fs->info, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = fs->n_info; i < cap; i++)
		v[i] = (struct flame_node_info){.file = FOLDED_NONE};
	fs->info = v;
	fs->n_info = cap;
	return 0;
}

/*
 * Credits one added stack to the info of its nodes: class cls (< 0: none)
 * from frame `start` (an index in the stack, root first) to the leaf,
 * cpu below it.
 */
static int note_path(struct flame_stacks *fs, uint32_t leaf, const struct frame_src *src, int cls,
		     size_t start, uint64_t weight)
{
	int ret = grow_info(fs);

	if (ret)
		return ret;
	for (uint32_t at = leaf; at != FOLDED_ROOT && at != FOLDED_NONE;
	     at = fs->folded.nodes[at].parent) {
		struct flame_node_info *in = &fs->info[at];
		size_t pos = fs->folded.nodes[at].depth - 1;
		const struct frame_src *fr = &src[pos];

		if (cls >= 0) {
			in->class_weight[pos >= start ? cls : STACK_CPU] += weight;
			in->classified = true;
		}
		in->unresolved |= fr->unresolved;
		if (!fr->line)
			continue;
		/* The line holding most of the weight (a majority vote, weighted). */
		if (in->line == fr->line && in->file == fr->file) {
			in->line_weight += weight;
			continue;
		}
		if (in->line)
			in->other_lines = true;
		if (in->line_weight >= weight) {
			in->line_weight -= weight;
		} else {
			in->line_weight = weight - in->line_weight;
			in->file = fr->file;
			in->line = fr->line;
		}
	}
	return 0;
}

int corecap_flame_stacks_add(struct flame_stacks *fs, const char *const *prefix, size_t n_prefix,
			     const uint64_t *pcs, size_t depth, bool first_exact, bool all_exact,
			     uint64_t weight, int column)
{
	uint32_t small[256] = {0}, *ids = small, leaf;
	struct frame_src small_src[256], *src = small_src;
	size_t n = 0, cap = sizeof(small) / sizeof(*small), from = SIZE_MAX, start = 0;
	struct flame_names fn;
	int ret = 0, cls = -1;

	if (column == 0 && fs->fixed_class >= 0) {
		cls = fs->fixed_class;
	} else if (column == 0 && fs->classify) {
		cls = corecap_stack_class_from(fs->classify, pcs, depth, &from);
		if (cls < 0)
			return cls;
		if (fs->drop_idle && cls == STACK_IDLE) {
			fs->idle_stacks++;
			fs->idle_weight += weight;
			return 0;
		}
	}
	if (fs->root) {
		src[n] = (struct frame_src){.file = FOLDED_NONE};
		ids[n++] = corecap_folded_intern(&fs->folded, fs->root);
	}
	for (size_t i = 0; i < n_prefix; i++) {
		if (n == cap && (ret = grow(&ids, &src, small, small_src, n, &cap)))
			goto out;
		src[n] = (struct frame_src){.file = FOLDED_NONE};
		ids[n++] = corecap_folded_intern(&fs->folded, prefix[i]);
	}
	for (size_t i = depth; i-- > 0;) {
		bool exact = i == 0 ? first_exact : all_exact;

		if (i == from)
			start = n;
		fn.n = 0;
		fn.resolved = fn.shim = fn.profiler = false;
		fn.buf[0] = '\0';
		memset(fn.inlined, 0, sizeof(fn.inlined));
		memset(fn.files, 0, sizeof(fn.files));
		memset(fn.lines, 0, sizeof(fn.lines));
		fs->namer(fs->namer_ctx, pcs[i], exact, &fn);
		fs->frames++;
		if (!fn.resolved)
			fs->unresolved_frames++;
		if (fn.shim && !fs->keep_shim_frames) {
			fs->shim_frames++;
			continue;
		}
		if (fn.profiler && !fs->keep_profiler) {
			fs->profiler_frames++;
			continue;
		}
		/* pprof drops an address by its function (the outermost of its names). */
		if (fn.resolved && fs->skip_profiler_frames && fn.n &&
		    is_profiler_frame(fn.names[fn.n - 1])) {
			fs->skipped_frames++;
			continue;
		}
		for (size_t k = fn.n; k-- > 0;) {
			if (n == cap && (ret = grow(&ids, &src, small, small_src, n, &cap)))
				goto out;
			src[n] = (struct frame_src){
				.file = column == 0 && fn.files[k]
						? corecap_folded_intern(&fs->folded, fn.files[k])
						: FOLDED_NONE,
				.line = column == 0 && fn.files[k] ? fn.lines[k] : 0,
				.unresolved = !fn.resolved,
			};
			ids[n++] = fn.inlined[k] ? intern_inline(&fs->folded, fn.names[k])
						 : corecap_folded_intern(&fs->folded, fn.names[k]);
			if (ids[n - 1] == FOLDED_NONE) {
				ret = -ENOMEM;
				goto out;
			}
		}
	}
	ret = corecap_folded_add_path(&fs->folded, ids, n, weight, column, &leaf);
	if (!ret && n) {
		fs->stacks++;
		fs->weight += weight;
		if (column == 0)
			ret = note_path(fs, leaf, src, cls, start, weight);
	}
out:
	if (ids != small)
		free(ids);
	if (src != small_src)
		free(src);
	return ret;
}
