/* op_detect: see op_detect.h. */
#include "op_detect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/ctf_reader.h"

struct scan {
	int32_t pid;
	bool net; /* a socket call of the daemon's that moved bytes */
};

static int scan_event(void *ctx, const struct model_event *ev)
{
	struct scan *s = ctx;

	if (s->pid >= 0 && ev->pid >= 0 && ev->pid != s->pid)
		return 0;
	switch (ev->kind) {
	case MEV_OP_BEGIN:
	case MEV_OP_END:
		return -ECANCELED; /* annotated: nothing more to learn */
	case MEV_IO:
		if (ev->io.io_class == CORECAP_IO_NET && ev->io.bytes > 0)
			s->net = true;
		return 0;
	default:
		return 0;
	}
}

int corecap_op_detect_wanted(char *const *traces, size_t n, int32_t pid, bool *detect, char **err)
{
	struct scan s = {.pid = pid};
	struct ctf_reader r;
	int ret;

	*detect = false;
	ret = corecap_ctf_reader_init(&r, traces, n, scan_event, &s);
	if (!ret)
		ret = corecap_ctf_reader_run(&r);
	if (ret == -ECANCELED) {
		ret = 0;
	} else if (!ret) {
		*detect = s.net;
	} else {
		const char *why = corecap_ctf_reader_error(&r);

		*err = strdup(why ? why : strerror(-ret));
	}
	corecap_ctf_reader_release(&r);
	return ret;
}

void corecap_op_detect_init(struct op_detect *o, bool on, int32_t pid,
			    int (*fn)(void *, const struct model_event *), void *ctx)
{
	*o = (struct op_detect){.on = on, .fn = fn, .ctx = ctx};
	if (on) {
		corecap_net_ops_init(&o->net, NULL, pid);
		corecap_net_ops_out(&o->net, fn, ctx);
	}
}

int corecap_op_detect_consume(void *ctx, const struct model_event *ev)
{
	struct op_detect *o = ctx;

	return o->on ? corecap_net_ops_consume(&o->net, ev) : o->fn(o->ctx, ev);
}

int corecap_op_detect_finish(struct op_detect *o)
{
	return o->on ? corecap_net_ops_finish(&o->net) : 0;
}

void corecap_op_detect_release(struct op_detect *o)
{
	if (o->on)
		corecap_net_ops_release(&o->net);
	*o = (struct op_detect){0};
}
