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
 * shim, LTTng-UST) is dropped unless keep_shim_frames, and one it marks
 * as the profiler's other code (gperftools', libunwind) unless
 * keep_profiler. Every address
 * named, left unresolved or skipped is counted.
 */
#ifndef CORECAP_FLAME_STACKS_H
#define CORECAP_FLAME_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "folded.h"
#include "stack_class.h"

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
	const char *files[FLAME_MAX_NAMES]; /* source file of lines[i]; NULL: DWARF has none */
	uint32_t lines[FLAME_MAX_NAMES];    /* the line in names[i]: 0 when unknown */
	bool resolved;			    /* names a function */
	bool shim;			    /* a frame of the tracer itself (the shim, LTTng-UST) */
	bool profiler;			    /* the profiler's: libprofiler, libunwind */
	char buf[256];			    /* room for a name that is not stable (an address) */
};

/*
 * Names the code address addr into *out: exact is true when addr is the
 * address of the instruction itself, false when it is a return address
 * (the caller's next instruction). Names stay valid until the next call.
 */
typedef void (*flame_namer_fn)(void *ctx, uint64_t addr, bool exact, struct flame_names *out);

/*
 * What a picture shows of a frame beside its weight (column 0 only): the
 * weight of the stacks through it by the class the analysis gives them
 * (stack_class: the frames from where a class begins to the leaf carry
 * it, those below are cpu), and its source line.
 */
struct flame_node_info {
	uint64_t class_weight[STACK__COUNT];
	/*
	 * Its source line: the one holding more than half of its weight when
	 * one does (a weighted majority vote), else one of them.
	 */
	uint32_t file; /* folded name index of the source file; FOLDED_NONE: none */
	uint32_t line; /* 0: unknown */
	uint64_t line_weight;
	bool other_lines; /* the frame was seen at other lines too */
	bool unresolved;  /* no function names it (an address) */
	bool classified;  /* class_weight is set */
};

struct flame_stacks {
	enum flame_kind kind;
	struct folded folded;
	flame_namer_fn namer;
	void *namer_ctx;
	bool skip_profiler_frames;
	bool keep_shim_frames;
	bool keep_profiler; /* keep the frames the namer marks profiler */
	uint64_t stacks, weight;
	uint64_t frames, unresolved_frames, skipped_frames, shim_frames, profiler_frames;
	/*
	 * Classification, column 0: classify (NULL: none) names each stack's
	 * class from its addresses; fixed_class >= 0 gives every stack that
	 * class instead (a lock wait stack). drop_idle leaves out the stacks
	 * classified idle (counted in idle_stacks, idle_weight).
	 */
	struct stack_class *classify;
	int fixed_class;
	bool drop_idle;
	uint64_t idle_stacks, idle_weight;
	struct flame_node_info *info; /* [n_info]: per folded node */
	size_t n_info;
	/* A frame above every stack added (a host's name, in the flame of a
	 * run of several hosts); NULL: none. */
	const char *root;
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
/* The info of a folded node; NULL when none was gathered. */
const struct flame_node_info *corecap_flame_stacks_info(const struct flame_stacks *fs,
							uint32_t node);
const char *corecap_flame_kind_name(enum flame_kind kind);
/* The kind named name ("cpu", "wall", "lock", "op"); false if none. */
bool corecap_flame_kind_parse(const char *name, enum flame_kind *kind);

#endif
