#include "op_table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int corecap_op_table_init(struct op_table *t, FILE *dump)
{
	*t = (struct op_table){0};
	corecap_u64map_init(&t->inflight);
	t->dump = dump;
	t->phases = malloc(sizeof(*t->phases));
	if (!t->phases || !(t->phases[0] = strdup("begin"))) {
		free(t->phases);
		t->phases = NULL;
		return -ENOMEM;
	}
	t->n_phases = 1;
	if (dump)
		fprintf(dump, "op_id\ttype\tbegin_ns\tend_ns\tlatency_ns\tcpu_ns\tlock_wait_ns\t"
			      "cond_wait_ns\tlogging_ns\tio_ns\tqueue_ns\tother_ns\texcluded\n");
	return 0;
}

void corecap_op_table_release(struct op_table *t)
{
	struct model_op *op;
	uint64_t v;

	for (size_t i = 0; corecap_u64map_next(&t->inflight, &i, NULL, &v);)
		free((struct model_op *)(uintptr_t)v);
	while ((op = t->free)) {
		t->free = op->free_next;
		free(op);
	}
	for (size_t i = 0; i < t->n_types; i++) {
		free(t->types[i].name);
		corecap_latency_hist_release(&t->types[i].hist);
		corecap_u64map_release(&t->types[i].detail);
	}
	free(t->types);
	for (size_t i = 0; i < t->n_phases; i++)
		free(t->phases[i]);
	free(t->phases);
	free(t->client);
	corecap_u64map_release(&t->inflight);
	*t = (struct op_table){0};
}

struct model_op *corecap_op_table_find(const struct op_table *t, uint64_t id)
{
	uint64_t *v = corecap_u64map_find(&t->inflight, id);

	return v ? (struct model_op *)(uintptr_t)*v : NULL;
}

struct model_op *corecap_op_table_create(struct op_table *t, uint64_t id)
{
	struct model_op *op = t->free;
	uint64_t *slot;

	if (op)
		t->free = op->free_next;
	else if (!(op = malloc(sizeof(*op))))
		return NULL;
	slot = corecap_u64map_upsert(&t->inflight, id, NULL);
	if (!slot) {
		free(op);
		return NULL;
	}
	*op = (struct model_op){.id = id, .type = UINT32_MAX};
	*slot = (uint64_t)(uintptr_t)op;
	return op;
}

void corecap_op_table_drop(struct op_table *t, struct model_op *op)
{
	corecap_u64map_remove(&t->inflight, op->id);
	op->free_next = t->free;
	t->free = op;
}

int corecap_op_table_set_type(struct op_table *t, struct model_op *op, const char *type)
{
	struct op_type *types;
	size_t i;

	if (!type)
		type = "op";
	for (i = 0; i < t->n_types; i++)
		if (strcmp(t->types[i].name, type) == 0)
			break;
	if (i == t->n_types) {
		types = realloc(t->types, (t->n_types + 1) * sizeof(*types));
		if (!types)
			return -ENOMEM;
		t->types = types;
		types[i] = (struct op_type){.name = strdup(type)};
		if (!types[i].name)
			return -ENOMEM;
		corecap_latency_hist_init(&types[i].hist);
		corecap_u64map_init(&types[i].detail);
		t->n_types++;
	}
	op->type = (uint32_t)i;
	return 0;
}

uint32_t corecap_op_table_phase(struct op_table *t, const char *name)
{
	char **phases, *copy;

	if (!name)
		return OP_PHASE_NONE;
	for (size_t i = 0; i < t->n_phases; i++)
		if (strcmp(t->phases[i], name) == 0)
			return (uint32_t)i;
	phases = realloc(t->phases, (t->n_phases + 1) * sizeof(*phases));
	if (!phases)
		return OP_PHASE_NONE;
	t->phases = phases;
	copy = strdup(name);
	if (!copy)
		return OP_PHASE_NONE;
	phases[t->n_phases] = copy;
	return (uint32_t)t->n_phases++;
}

void corecap_op_table_charge(struct model_op *op, enum op_cat cat, uint64_t detail_key,
			     uint64_t from, uint64_t to)
{
	uint64_t ns;
	uint32_t i;

	if (to <= from)
		return;
	ns = to - from;
	op->cat_ns[cat] += ns;
	for (i = 0; i < op->n_detail; i++)
		if (op->detail[i].key == detail_key)
			break;
	if (i == op->n_detail) {
		if (i == OP_DETAIL_MAX)
			return; /* shows as detail_over_cap at the type */
		op->detail[i].key = detail_key;
		op->detail[i].ns = 0;
		op->n_detail++;
	}
	op->detail[i].ns += ns;
}

void corecap_op_table_set_client(struct model_op *op, uint64_t client_op)
{
	op->has_client = true;
	op->client_op = client_op;
}

/* Keeps a client-named op's times (excluded or not: they are right either way). */
static int keep_client(struct op_table *t, const struct model_op *op, uint64_t end_ns)
{
	if (t->n_client == OP_CLIENT_MAX) {
		t->client_over_cap++;
		return 0;
	}
	if (t->n_client == t->client_cap) {
		size_t cap = t->client_cap ? 2 * t->client_cap : 1024;
		struct op_client_rec *c = realloc(t->client, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		t->client = c;
		t->client_cap = cap;
	}
	t->client[t->n_client++] = (struct op_client_rec){
		.client_op = op->client_op,
		.begin_ns = op->begin_ns,
		.end_ns = end_ns,
		.reply_ns =
			op->reply_ns >= op->begin_ns && op->reply_ns <= end_ns ? op->reply_ns : 0};
	return 0;
}

int corecap_op_table_finish(struct op_table *t, struct model_op *op, uint64_t end_ns, bool exclude)
{
	uint64_t latency = end_ns > op->begin_ns ? end_ns - op->begin_ns : 0, sum = 0, err,
		 dsum = 0;
	struct op_type *type;
	uint64_t *v;
	int ret = 0;

	for (int c = 0; c < CAT__COUNT; c++)
		sum += op->cat_ns[c];
	err = sum > latency ? sum - latency : latency - sum;
	t->checked++;
	if (err > t->max_err_ns)
		t->max_err_ns = err;
	if (err > 1000)
		t->violations++;
	if (t->dump) {
		fprintf(t->dump, "%" PRIu64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, op->id,
			op->type < t->n_types ? t->types[op->type].name : "op", op->begin_ns,
			end_ns, latency);
		for (int c = 0; c < CAT__COUNT; c++)
			fprintf(t->dump, "\t%" PRIu64, op->cat_ns[c]);
		fprintf(t->dump, "\t%d\n", exclude ? 1 : 0);
	}
	if (op->has_client && op->begun && (ret = keep_client(t, op, end_ns)))
		goto out_free;
	if (exclude || op->type >= t->n_types)
		goto out_free;
	type = &t->types[op->type];
	ret = corecap_latency_hist_add(&type->hist, latency);
	for (int c = 0; c < CAT__COUNT; c++)
		type->cat_ns[c] += op->cat_ns[c];
	for (uint32_t i = 0; i < op->n_detail; i++) {
		v = corecap_u64map_upsert(&type->detail, op->detail[i].key, NULL);
		if (!v) {
			ret = -ENOMEM;
			break;
		}
		*v += op->detail[i].ns;
		dsum += op->detail[i].ns;
	}
	type->detail_over_cap_ns += sum > dsum ? sum - dsum : 0;
	t->finished++;
out_free:
	corecap_op_table_drop(t, op);
	return ret;
}

const char *corecap_op_cat_name(enum op_cat cat)
{
	static const char *const names[CAT__COUNT] = {
		"cpu", "lock_wait", "cond_wait", "logging", "io", "queue", "other",
	};

	return cat < CAT__COUNT ? names[cat] : "?";
}

const char *corecap_log_source_name(enum log_source src)
{
	static const char *const names[LOG__COUNT] = {"annotated", "io", "lock_wait",
						      "queued_behind"};

	return src < LOG__COUNT ? names[src] : "?";
}
