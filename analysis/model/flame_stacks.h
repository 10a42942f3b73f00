/*
 * flame_stacks: turns address stacks (a CPU profile's samples, wall-clock
 * samples, the stacks of contended lock waits) into a folded tree of
 * names, through a namer the caller provides (the symbolizer, in the
 * commands), so the model never reads ELF files itself.
 *
 * A stack is added as optional leading frames given by name (a thread or
 * pool, a lock) followed by the addresses from outermost to innermost;
 * addresses arrive innermost first, as every unwinder gives them.
 * Frames are named by function, without offsets, so that samples at
 * different instructions of one function merge; an address may give
 * several frames (the calls inlined at it, innermost first, then the
 * function holding them). When skip_profiler_frames is set, the frames of
 * gperftools' own signal handler are dropped by name, as pprof does (see
 * docs/flame.md); an address the namer marks as the tracer's own (the
 * shim, LTTng-UST) is dropped unless keep_shim_frames. Every address
 * named, left unresolved or skipped is counted.
 */
#ifndef CORECAP_FLAME_STACKS_H
#define CORECAP_FLAME_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "folded.h"

enum flame_kind { FLAME_CPU, FLAME_WALL, FLAME_LOCK, FLAME_OP, FLAME__COUNT };

#define FLAME_MAX_NAMES 64

/*
 * What a namer says of one address; reset before each call. An inlined
 * call's frame reads "name[inline]", as google-pprof marks it.
 */
struct flame_names {
	const char *names[FLAME_MAX_NAMES]; /* innermost first; n >= 1 */
	bool inlined[FLAME_MAX_NAMES];	    /* names[i] is a call inlined into names[i + 1] */
	size_t n;
	bool resolved; /* names a function */
	bool shim;     /* a frame of the tracer itself (the shim, LTTng-UST) */
	char buf[256]; /* room for a name that is not stable (an address) */
};

/*
 * Names the code address addr into *out: exact is true when addr is the
 * address of the instruction itself, false when it is a return address
 * (the caller's next instruction). Names stay valid until the next call.
 */
typedef void (*flame_namer_fn)(void *ctx, uint64_t addr, bool exact, struct flame_names *out);

struct flame_stacks {
	enum flame_kind kind;
	struct folded folded;
	flame_namer_fn namer;
	void *namer_ctx;
	bool skip_profiler_frames;
	bool keep_shim_frames;
	uint64_t stacks, weight;
	uint64_t frames, unresolved_frames, skipped_frames, shim_frames;
};

int corecap_flame_stacks_init(struct flame_stacks *fs, enum flame_kind kind, flame_namer_fn namer,
			      void *namer_ctx);
void corecap_flame_stacks_release(struct flame_stacks *fs);
/*
 * Adds one stack: the named frames `prefix` (n_prefix, root first), then
 * the addresses pcs[depth - 1] (outermost) .. pcs[0] (innermost). pcs[0]
 * is exact when first_exact, every other address is exact when all_exact
 * (a profile whose caller PCs were already moved into the call).
 * 0 or -ENOMEM.
 */
int corecap_flame_stacks_add(struct flame_stacks *fs, const char *const *prefix, size_t n_prefix,
			     const uint64_t *pcs, size_t depth, bool first_exact, bool all_exact,
			     uint64_t weight, int column);
const char *corecap_flame_kind_name(enum flame_kind kind);
/* The kind named name ("cpu", "wall", "lock", "op"); false if none. */
bool corecap_flame_kind_parse(const char *name, enum flame_kind *kind);

#endif
