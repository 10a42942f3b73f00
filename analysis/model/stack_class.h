/*
 * stack_class: what a sampled thread was doing, read from its stack alone
 * (a wall-clock sample: docs/run-directory.md, wall.samples). For daemons
 * that carry no corecap_op annotations, this is how a sample's time gets
 * one of the attribution rule's categories (docs/methodology.md):
 *
 *   logging    some frame lies in logging code (the report's log symbols,
 *              e.g. ceph::logging::*), whatever the thread did inside it:
 *              formatting, waiting for the log's lock, waking its thread;
 *   lock_wait  blocked acquiring a mutex or rwlock (__lll_lock_wait, or a
 *              futex wait under pthread_mutex / pthread_rwlock);
 *   idle       blocked waiting for work: a condition or futex wait,
 *              epoll_wait, poll, select, a sleep (not part of any op);
 *              and a reaper waiting for asynchronous I/O completions
 *              (libaio's io_getevents, directly or in the raw syscall
 *              just under it: BlueStore's bstore_aio), whether or not
 *              any I/O is outstanding, which a stack cannot tell: the
 *              aio's own time is the shim's (submission to completion);
 *   io         inside a read/write/send/recv-family call, fsync, or
 *              io_submit;
 *   cpu        anything else.
 *
 * A frame's name comes from a callback (the symbolizer's demangled name,
 * NULL when unknown); each address is named once and its traits cached,
 * so memory grows with distinct addresses, not with samples.
 */
#ifndef CORECAP_STACK_CLASS_H
#define CORECAP_STACK_CLASS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"

/* Log calls, Ceph's log code and its entries' streams, and formatting into
 * a std::ostream (what Ceph's dout does in the op path: operator<< and
 * gen_prefix(std::ostream&), libstdc++'s inserters): `report --log-symbols`'
 * default, and what the flame graphs call logging. */
#define CORECAP_DEFAULT_LOG_SYMBOLS                                                                \
	"log_*,ceph::logging::*,*StackStringStream*,*StackStringBuf*,*(std::ostream&*,"            \
	"std::basic_ostream*,std::ostream::*,std::__ostream_insert*,std::num_put*"

enum stack_cat {
	STACK_IDLE,
	STACK_CPU,
	STACK_LOGGING,
	STACK_LOCK_WAIT,
	STACK_IO,
	STACK__COUNT,
};

/* The function holding addr (exact: addr is a PC, not a return address). */
typedef const char *(*stack_symbol_fn)(void *ctx, uint64_t addr, int exact);

struct stack_class {
	char *const *log_patterns; /* fnmatch patterns, borrowed */
	size_t n_log_patterns;
	stack_symbol_fn symbol;
	void *ctx;
	struct u64map leaf_traits, frame_traits; /* addr -> traits bits + 1 */
};

const char *corecap_stack_cat_name(enum stack_cat c);
void corecap_stack_class_init(struct stack_class *s, char *const *log_patterns, size_t n_patterns,
			      stack_symbol_fn symbol, void *ctx);
void corecap_stack_class_release(struct stack_class *s);
/* ips[0] is the PC, ips[1..] return addresses. -ENOMEM, or a stack_cat. */
int corecap_stack_class_of(struct stack_class *s, const uint64_t *ips, size_t depth);
/*
 * The same, with the frame where the class begins in *from (an index in
 * ips: the outermost logging frame; the lock function (pthread_mutex_*,
 * pthread_rwlock_*) or the condition wait (pthread_cond_*) within four
 * frames of the leaf, else the leaf; the leaf for I/O; 0 for cpu): the
 * frames from it to the leaf are what the class names, those below it
 * the code that got there (the flame graphs colour them so).
 */
int corecap_stack_class_from(struct stack_class *s, const uint64_t *ips, size_t depth,
			     size_t *from);

#endif
