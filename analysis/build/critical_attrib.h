/*
 * critical_attrib: wires the kernel records (read/kernel_reader.h) and the
 * trace's events into the critical path (model/critical_path.h) in one
 * time-ordered pass: RUN/kernel/ is loaded (checked) before the trace is
 * read, and each trace event first feeds the records up to its time from
 * a cursor. The loaded reader then serves kernel_attrib too.
 */
#ifndef CORECAP_CRITICAL_ATTRIB_H
#define CORECAP_CRITICAL_ATTRIB_H

#include <stdbool.h>
#include <stdint.h>

#include "model/ceph_critical.h"
#include "model/critical_path.h"
#include "model/event.h"
#include "read/kernel_reader.h"

struct critical_attrib {
	struct kernel_reader k;
	bool loaded; /* k holds RUN/kernel/'s records */
	struct kernel_cursor cur;
	bool streaming;			 /* cur is open */
	const struct corecap_krec *next; /* cur's next record, not fed yet; NULL: none */
	struct critical_path cp;
	struct ceph_critical *ceph; /* the OpTracker's ops, fed with the trace; or NULL */
	/* Optional: each record as it is fed, in the cursor's order (the
	 * thread states and futex locks of kernel_attrib.h, read in the same
	 * pass); fed_all once the cursor has given every record. */
	int (*on_krec)(void *ctx, const struct corecap_krec *r);
	void *krec_ctx;
	bool fed_all;
};

/*
 * Loads RUN/kernel/ for the window [ws, we] of daemon `pid`. 0; 1 when the
 * run has no kernel/events.bin (nothing to do); a negative errno with
 * *err (malloc'd, naming the file) otherwise.
 */
int corecap_critical_attrib_open(struct critical_attrib *a, const char *run_dir, uint64_t ws,
				 uint64_t we, int32_t pid,
				 bool (*site_is_logging)(void *, uint64_t), void *classify_ctx,
				 char **err);
/* One trace event, before the model consumes it. */
int corecap_critical_attrib_event(struct critical_attrib *a, const struct model_event *ev);
/* The same, as a tap (model/net_ops.h), ctx = a. */
int corecap_critical_attrib_tap(void *ctx, const struct model_event *ev);
/* The model's op_end hook (model_config.op_end), ctx = a. */
int corecap_critical_attrib_op_end(void *ctx, uint64_t id, uint32_t type, int32_t tid,
				   uint64_t end_ns, bool exclude);
/* The trace ended: feeds the records left. */
int corecap_critical_attrib_finish(struct critical_attrib *a);
/* Closes the records (the critical path's figures stay). */
void corecap_critical_attrib_drop_records(struct critical_attrib *a);
void corecap_critical_attrib_release(struct critical_attrib *a);

#endif
