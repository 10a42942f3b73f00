#include "kernel_chrome.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/kernel_states.h"
#include "read/kernel_reader.h"
#include <corecap/run_format.h>

struct kchrome {
	struct chrome_trace *t;
	int err;
};

static void on_slice(void *ctx, const struct kstate_thread *th, enum kstate s, uint64_t from_ns,
		     uint64_t to_ns)
{
	struct kchrome *c = ctx;
	int ret =
		corecap_chrome_trace_kstate(c->t, th->tid, corecap_kstate_name(s), from_ns, to_ns);

	if (ret && !c->err)
		c->err = ret;
}

static int consume(void *ks, const struct corecap_krec *r)
{
	return corecap_kernel_states_consume(ks, r);
}

int corecap_kernel_chrome(struct chrome_trace *t, const char *run_dir, uint64_t rec_ws,
			  uint64_t rec_we, uint64_t ws, uint64_t we, char **err)
{
	struct kernel_reader k;
	struct kernel_states ks;
	struct kchrome c = {.t = t};
	int ret;

	*err = NULL;
	corecap_kernel_reader_init(&k);
	ret = corecap_kernel_reader_load(&k, run_dir, rec_ws, rec_we, err);
	if (ret) {
		corecap_kernel_reader_release(&k);
		return ret == -ENOENT ? 1 : ret;
	}
	corecap_kernel_states_init(&ks, ws, we);
	ks.on_slice = on_slice;
	ks.slice_ctx = &c;
	ret = corecap_kernel_reader_each(&k, consume, &ks);
	if (!ret) {
		corecap_kernel_states_finish(&ks);
		for (size_t i = 0; i < ks.len && !ret; i++)
			if (ks.all[i]->comm[0])
				ret = corecap_chrome_trace_name_thread(t, ks.all[i]->tid,
								       ks.all[i]->comm);
		if (!ret)
			ret = c.err;
	}
	if (ret && asprintf(err, "cannot export '%s/" CORECAP_KERNEL_DIR "': %s", run_dir,
			    strerror(-ret)) < 0)
		*err = NULL;
	corecap_kernel_states_release(&ks);
	corecap_kernel_reader_release(&k);
	return ret;
}
