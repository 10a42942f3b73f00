/* osd: see osd.h. */
#include "osd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <corecap/annotate.h>

#include "burn.h"
#include "finisher.h"
#include "log.h"
#include "messenger.h"
#include "op.h"
#include "protocol.h"
#include "store.h"

#define OSD_EPOCH 35u

int osd_init(struct osd *osd, unsigned pgs, bool big_lock, unsigned op_cpu_us, struct store *st,
	     struct log *lg, struct finisher *fin)
{
	memset(osd, 0, sizeof(*osd));
	osd->store = st;
	osd->log = lg;
	osd->finisher = fin;
	osd->npgs = pgs;
	osd->big_lock_on = big_lock;
	osd->op_cpu_us = op_cpu_us;
	pthread_mutex_init(&osd->big_lock, NULL);
	osd->pgs = calloc(pgs, sizeof(*osd->pgs));
	if (!osd->pgs)
		return -ENOMEM;
	for (unsigned i = 0; i < pgs; i++)
		pthread_mutex_init(&osd->pgs[i].lock, NULL);
	return 0;
}

void osd_release(struct osd *osd)
{
	for (unsigned i = 0; osd->pgs && i < osd->npgs; i++)
		pthread_mutex_destroy(&osd->pgs[i].lock);
	free(osd->pgs);
	osd->pgs = NULL;
	pthread_mutex_destroy(&osd->big_lock);
}

static uint64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static double osd_age_s(const struct op *op)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - op->recv_stamp.tv_sec) +
	       (double)(now.tv_nsec - op->recv_stamp.tv_nsec) / 1e9;
}

/* The entries Ceph writes at debug_osd 10-20 when it dequeues an op and starts do_op. */
static void osd_log_dequeue(struct osd *osd, struct op *op, struct pg *pg)
{
	struct log *lg = osd->log;
	const char *type = proto_op_name(op->type);
	uint64_t v = pg->version;

	log_submitf(lg, 10, "osd",
		    "osd.0 %u dequeue_op %p prio 63 cost %u latency %.6f osd_op(client.%" PRIu64
		    ".0:%" PRIu64 " 1.%x %s [%s 0~%u]) v8 pg pg[1.%x]",
		    OSD_EPOCH, (void *)op, op->data_len, osd_age_s(op), op->conn->id, op->tag,
		    op->pg, op->name, type, op->data_len, op->pg);
	log_submitf(lg, 10, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64 " (0'0,%u'%" PRIu64
		    "] local-lis/les=%u/%u n=%" PRIu64
		    " ec=1/1 lis/c=%u/%u les/c/f=%u/%u/0 sis=%u) [0] r=0 lpr=%u crt=%u'%" PRIu64
		    " mlcod 0'0 active+clean] do_op osd_op(%s %s) may_%s",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, OSD_EPOCH, v, OSD_EPOCH, OSD_EPOCH, v,
		    OSD_EPOCH, OSD_EPOCH, OSD_EPOCH, OSD_EPOCH, OSD_EPOCH, OSD_EPOCH, OSD_EPOCH, v,
		    op->name, type, type);
	log_submitf(lg, 15, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		    " ) active+clean] get_object_context: obc NOT found in cache: 1:%016" PRIx64
		    ":::%s:head",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, (uint64_t)(uintptr_t)op ^ op->tag, op->name);
	log_submitf(lg, 20, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		    " ) active+clean] find_object_context 1:%016" PRIx64 ":::%s:head @head oi=%s",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, (uint64_t)(uintptr_t)op ^ op->tag, op->name,
		    op->type == PROTO_OP_WRITE ? "new" : "existing");
	log_submitf(lg, 20, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		    " ) active+clean] do_osd_op 1:%s:head [%s 0~%u] tid %" PRIu64 " conn %s",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, op->name, type, op->data_len, op->id,
		    op->conn->peer);
	log_submitf(
		lg, 20, "osd",
		"osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		" ) active+clean] do_osd_op  %s 0~%u in=%ub out=0b flags 0x%x snapc 0=[] ondisk",
		OSD_EPOCH, op->pg, OSD_EPOCH, v, type, op->data_len, op->data_len, 0x24u);
	log_submitf(lg, 15, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		    " ) active+clean] execute_ctx %p op %" PRIu64 " %s %s at_version %u'%" PRIu64
		    " snapset 0=[]:{}",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, (void *)op, op->id, type, op->name, OSD_EPOCH,
		    v + 1);
}

/* The entries Ceph writes at debug_osd 10-20 when an op has been applied and is being completed. */
static void osd_log_applied(struct osd *osd, struct op *op, struct pg *pg, int r)
{
	struct log *lg = osd->log;
	const char *type = proto_op_name(op->type);
	uint64_t v = pg->version;
	unsigned bytes = op->type == PROTO_OP_WRITE ? op->data_len : op->reply_len;

	log_submitf(lg, 10, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64 " (0'0,%u'%" PRIu64 "] n=%" PRIu64
		    ") active+clean] op_applied version %u'%" PRIu64 " r=%d",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, OSD_EPOCH, v, v, OSD_EPOCH, v, r);
	log_submitf(lg, 20, "bluestore",
		    "store.%s %s 1.%x_head #1:%s:head# 0x0~%x = %d (%u bytes, fsync=%s)",
		    osd->store->dir ? "dir" : "mem", type, op->pg, op->name, bytes, r, bytes,
		    osd->store->fsync ? "on" : "off");
	log_submitf(lg, 15, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		    " ) active+clean] log_op_stats osd_op(%s %s) inb %u outb %u lat %.6f",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, type, op->name,
		    op->type == PROTO_OP_WRITE ? op->data_len : 0u,
		    op->type == PROTO_OP_READ ? op->reply_len : 0u, osd_age_s(op));
	log_submitf(lg, 20, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		    " ) active+clean] calc_trim_to_aggressive limit = %u'%" PRIu64
		    " pg_log size %" PRIu64 " max 3000",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, OSD_EPOCH, v > 3000 ? v - 3000 : 0,
		    v < 3000 ? v : 3000);
	log_submitf(lg, 10, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		    " ) active+clean] prepare_transaction done %s %s r=%d tid %" PRIu64
		    " mtime %ld.%09ld",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, type, op->name, r, op->id,
		    (long)op->recv_stamp.tv_sec, op->recv_stamp.tv_nsec);
	log_submitf(lg, 20, "osd",
		    "osd.0 pg_epoch: %u pg[1.%x( v %u'%" PRIu64
		    " ) active+clean] issue_repop rep_tid %" PRIu64
		    " o 1:%s:head reply to conn(%" PRIu64 " %s) via finisher",
		    OSD_EPOCH, op->pg, OSD_EPOCH, v, op->id, op->name, op->conn->id,
		    op->conn->peer);
}

void osd_handle_op(void *ctx, struct op *op)
{
	struct osd *osd = ctx;
	uint64_t id = op->id;
	struct pg *pg = &osd->pgs[op->pg % osd->npgs];
	void *data = NULL;
	size_t len = 0;
	uint64_t held_from = 0;
	int r;

	corecap_op_phase_enter(id, "dequeued");
	if (osd->big_lock_on) {
		pthread_mutex_lock(&osd->big_lock);
		held_from = monotonic_ns();
	}
	pthread_mutex_lock(&pg->lock);
	if (log_enabled(osd->log, 10)) {
		corecap_log_enter();
		osd_log_dequeue(osd, op, pg);
		corecap_log_exit();
	}
	if (op->type == PROTO_OP_WRITE) {
		r = store_write(osd->store, op->name, op->data, op->data_len);
	} else {
		r = store_read(osd->store, op->name, &data, &len);
		if (r == 0 && len > PROTO_MAX_DATA) {
			free(data);
			data = NULL;
			len = 0;
			r = -EFBIG;
		}
	}
	burn_cpu_us(osd->op_cpu_us);
	if (r == 0)
		pg->version++;
	op->result = r;
	op->reply_data = data;
	op->reply_len = (uint32_t)len;
	if (log_enabled(osd->log, 10)) {
		corecap_log_enter();
		osd_log_applied(osd, op, pg, r);
		corecap_log_exit();
	}
	pthread_mutex_unlock(&pg->lock);
	if (osd->big_lock_on) {
		atomic_fetch_add_explicit(&osd->big_lock_held_ns, monotonic_ns() - held_from,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&osd->big_lock_holds, 1, memory_order_relaxed);
		pthread_mutex_unlock(&osd->big_lock);
	}
	atomic_fetch_add_explicit(&osd->ops_done, 1, memory_order_relaxed);
	corecap_op_phase(id, "committed");
	finisher_queue(osd->finisher, op);
	corecap_op_exit(id);
}
