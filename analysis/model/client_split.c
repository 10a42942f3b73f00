/* client_split: see client_split.h. */
#include "client_split.h"

#include <errno.h>
#include <stdlib.h>

const char *corecap_split_part_name(enum split_part p)
{
	static const char *const names[SPLIT__COUNT] = {"client", "client_own", "network_out",
							"daemon", "network_back"};

	return p < SPLIT__COUNT ? names[p] : "?";
}

void corecap_client_split_acc_init(struct client_split_acc *acc, struct client_split_host *out)
{
	*acc = (struct client_split_acc){.out = out};
	*out = (struct client_split_host){0};
}

static int64_t abs_i64(int64_t v)
{
	return v < 0 ? -v : v;
}

int corecap_client_split_acc_add(struct client_split_acc *acc, const struct split_times *t)
{
	struct client_split_host *out = acc->out;
	int64_t part[SPLIT__COUNT], sum_err, drift_err, b = t->bound_ns;

	if (out->matched == acc->cap) {
		size_t cap = acc->cap ? 2 * acc->cap : 1024;

		for (int p = 0; p <= SPLIT__COUNT; p++) {
			int64_t **v = p < SPLIT__COUNT ? &acc->parts[p] : &acc->after_reply;
			int64_t *grown = realloc(*v, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			*v = grown;
		}
		acc->cap = cap;
	}
	part[SPLIT_CLIENT] = (int64_t)(t->recv_ns - t->issue_ns);
	part[SPLIT_CLIENT_OWN] = (int64_t)(t->send_ns - t->issue_ns);
	part[SPLIT_NET_OUT] = t->begin_rec_ns - (int64_t)t->send_ns;
	part[SPLIT_DAEMON] = (int64_t)t->daemon_ns;
	part[SPLIT_NET_BACK] = part[SPLIT_CLIENT] - part[SPLIT_CLIENT_OWN] - part[SPLIT_NET_OUT] -
			       part[SPLIT_DAEMON];
	sum_err = abs_i64(part[SPLIT_CLIENT_OWN] + part[SPLIT_NET_OUT] + part[SPLIT_DAEMON] +
			  part[SPLIT_NET_BACK] - part[SPLIT_CLIENT]);
	drift_err = abs_i64(part[SPLIT_NET_BACK] - ((int64_t)t->recv_ns - t->reply_rec_ns));
	if (sum_err > out->max_sum_err_ns)
		out->max_sum_err_ns = sum_err;
	if (drift_err > out->max_drift_err_ns)
		out->max_drift_err_ns = drift_err;
	out->drift_over_bound += drift_err > b;
	out->net_out_negative += part[SPLIT_NET_OUT] < -b;
	out->net_back_negative += part[SPLIT_NET_BACK] < -b;
	out->client_below_daemon += part[SPLIT_CLIENT] < part[SPLIT_DAEMON] - b;
	if (b > 0 && (uint64_t)b > out->bound_ns)
		out->bound_ns = (uint64_t)b;
	for (int p = 0; p < SPLIT__COUNT; p++) {
		acc->parts[p][out->matched] = part[p];
		acc->sum[p] += (double)part[p];
	}
	acc->after_reply[out->matched] = (int64_t)t->after_reply_ns;
	acc->after_reply_sum += (double)t->after_reply_ns;
	out->replies_seen += t->reply_seen;
	out->matched++;
	return 0;
}

static int cmp_i64(const void *a, const void *b);

static double median_us(int64_t *v, size_t m)
{
	qsort(v, m, sizeof(*v), cmp_i64);
	return (m % 2 ? (double)v[m / 2] : ((double)v[m / 2 - 1] + (double)v[m / 2]) / 2) / 1e3;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void corecap_client_split_acc_finish(struct client_split_acc *acc)
{
	struct client_split_host *out = acc->out;
	size_t m = out->matched;

	if (!m)
		return;
	for (int p = 0; p < SPLIT__COUNT; p++) {
		out->median_us[p] = median_us(acc->parts[p], m);
		out->mean_us[p] = acc->sum[p] / (double)m / 1e3;
	}
	out->after_reply_median_us = median_us(acc->after_reply, m);
	out->after_reply_mean_us = acc->after_reply_sum / (double)m / 1e3;
}

void corecap_client_split_acc_release(struct client_split_acc *acc)
{
	for (int p = 0; p < SPLIT__COUNT; p++)
		free(acc->parts[p]);
	free(acc->after_reply);
	*acc = (struct client_split_acc){0};
}
