#include "ctf_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void corecap_ctf_reader_set_error(struct ctf_reader *r, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	if (r->error)
		return; /* the first error is the one that explains */
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	r->error = msg;
}

/*
 * Appends libbabeltrace2's cause chain to r->error, outermost first, as
 * its CLI prints it (the library appends causes as the error rises, so
 * the last cause is the outermost), on the message's one line
 * (corecap/diag.h): ": caused by [MODULE] text", each cause's first line.
 */
static void append_bt_causes(struct ctf_reader *r)
{
	const bt_error *err = bt_current_thread_take_error();
	char *msg;

	if (!err)
		return;
	for (uint64_t i = bt_error_get_cause_count(err); i-- > 0;) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(err, i);
		const char *text = bt_error_cause_get_message(c);

		if (asprintf(&msg, "%s: caused by [%s] %.*s", r->error ? r->error : "",
			     bt_error_cause_get_module_name(c), (int)strcspn(text, "\n"), text) < 0)
			break;
		free(r->error);
		r->error = msg;
	}
	bt_error_release(err);
}

static const bt_plugin *find_plugin(struct ctf_reader *r, const char *name)
{
	const bt_plugin *plugin = NULL;

	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &plugin) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		corecap_ctf_reader_set_error(
			r, "cannot find the babeltrace2 plugin '%s' (is babeltrace2 installed?)",
			name);
		append_bt_causes(r);
		return NULL;
	}
	return plugin;
}

/* CORECAP_CTF_CHECK=0: hand the traces to the library unchecked (tests of the guard). */
static bool check_disabled(void)
{
	const char *s = getenv("CORECAP_CTF_CHECK");

	return s && strcmp(s, "0") == 0;
}

/* Trace dir's source, added as *src. */
static int add_source(struct ctf_reader *r, const bt_component_class_source *cls, const char *dir,
		      size_t idx, const bt_component_source **src)
{
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	bt_graph_add_component_status st;
	char name[32];
	int ret = -EINVAL;

	if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, dir)) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(name, sizeof(name), "ctf-%zu", idx);
	if (!check_disabled()) {
		char *err = NULL;

		ret = corecap_ctf_check_trace(dir, &r->check, &err);
		if (ret) {
			corecap_ctf_reader_set_error(r, "%s", err ? err : strerror(-ret));
			free(err);
			goto out;
		}
		ret = -EINVAL;
	}
	/* Errors logged, and captured: the metadata parser's only say where it broke. */
	corecap_ctf_guard_begin(r, dir);
	st = bt_graph_add_source_component(r->graph, cls, name, params, BT_LOGGING_LEVEL_ERROR,
					   src);
	__atomic_add_fetch(&r->progress, 1, __ATOMIC_RELAXED);
	corecap_ctf_guard_end();
	if (st != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		corecap_ctf_reader_set_error(r, "cannot open trace '%s'", dir);
		append_bt_causes(r);
		corecap_ctf_guard_log_causes(r);
		goto out;
	}
	corecap_ctf_guard_replay_log(r);
	ret = 0;
out:
	bt_value_put_ref(params);
	return ret;
}

/* The sink's initializing method: one input port per output port of the sources. */
static bt_component_class_initialize_method_status
sink_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	  const bt_value *params, void *data)
{
	struct ctf_reader *r = data;
	char name[32];

	(void)config, (void)params;
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), r);
	for (uint32_t i = 0; i < r->n_inputs; i++) {
		snprintf(name, sizeof(name), "in%u", i);
		switch (bt_self_component_sink_add_input_port(self, name, NULL, NULL)) {
		case BT_SELF_COMPONENT_ADD_PORT_STATUS_OK:
			break;
		case BT_SELF_COMPONENT_ADD_PORT_STATUS_MEMORY_ERROR:
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		default:
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		}
	}
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

/* Once connected: a message iterator on each input port, the merge's inputs. */
static bt_component_class_sink_graph_is_configured_method_status
sink_configured(bt_self_component_sink *self)
{
	struct ctf_reader *r =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	for (uint32_t i = 0; i < r->n_inputs; i++) {
		bt_message_iterator *it = NULL;

		switch (bt_message_iterator_create_from_sink_component(
			self, bt_self_component_sink_borrow_input_port_by_index(self, i), &it)) {
		case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK:
			corecap_ctf_merge_set_input(&r->merge, i, it);
			break;
		case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_MEMORY_ERROR:
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_MEMORY_ERROR;
		default:
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
		}
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* Our sink, with an input port per output port of srcs[0..n), connected to them. */
static int add_sink(struct ctf_reader *r, const bt_component_source *const *srcs, size_t n,
		    char *const *dirs)
{
	bt_component_class_sink *cls = NULL;
	const bt_component_sink *sink = NULL;
	uint32_t k = 0;
	int ret = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		r->n_inputs += (uint32_t)bt_component_source_get_output_port_count(srcs[i]);
	if (!(r->input_dirs = calloc(r->n_inputs ? r->n_inputs : 1, sizeof(*r->input_dirs))) ||
	    corecap_ctf_merge_init(&r->merge, r->n_inputs, corecap_ctf_events_key, r) ||
	    !(cls = bt_component_class_sink_create("corecap", corecap_ctf_events_consume)) ||
	    bt_component_class_sink_set_initialize_method(cls, sink_init) ||
	    bt_component_class_sink_set_graph_is_configured_method(cls, sink_configured)) {
		corecap_ctf_reader_set_error(r, "cannot create the reader's sink: %s",
					     strerror(ENOMEM));
		goto out;
	}
	ret = -EINVAL;
	if (bt_graph_add_sink_component_with_initialize_method_data(
		    r->graph, cls, "corecap", NULL, r, BT_LOGGING_LEVEL_NONE, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		corecap_ctf_reader_set_error(r, "cannot create the reader's sink");
		append_bt_causes(r);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		for (uint64_t p = 0; p < bt_component_source_get_output_port_count(srcs[i]); p++) {
			r->input_dirs[k] = dirs[i];
			if (bt_graph_connect_ports(
				    r->graph,
				    bt_component_source_borrow_output_port_by_index_const(srcs[i],
											  p),
				    bt_component_sink_borrow_input_port_by_index_const(sink, k++),
				    NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
				corecap_ctf_reader_set_error(
					r, "cannot connect trace '%s' to the reader's sink",
					dirs[i]);
				append_bt_causes(r);
				goto out;
			}
		}
	ret = 0;
out:
	bt_component_class_sink_put_ref(cls);
	return ret;
}

/*
 * The run cache's file for dirs: 1 when it is replayed (the read's figures
 * restored from it), 0 when not (r->cache_w set when this read writes it).
 */
static int open_cache(struct ctf_reader *r, char *const *dirs, size_t n)
{
	char *key = NULL;
	int dirfd, ret;

	if (!n || !corecap_run_cache_enabled() || (dirfd = corecap_run_cache_dir()) < 0 ||
	    corecap_run_cache_key(dirs, n, &key))
		return 0;
	ret = corecap_run_cache_load(dirfd, key, &r->cache_v, &r->cache_map, &r->cache_len);
	if (!ret) {
		const struct run_cache_tail *t = &r->cache_v.tail;

		r->replaying = true;
		r->foreign_events = t->foreign;
		r->packets = t->packets;
		r->check.index_packets = t->index_packets;
		r->check.missing_packets = t->missing_packets;
		r->check.missing_bytes = t->missing_bytes;
		r->check.streams_cut = (size_t)t->streams_cut;
		memcpy(r->check.cut_name, t->cut_name,
		       strnlen(t->cut_name, sizeof(r->check.cut_name) - 1));
		if (corecap_run_cache_verbose())
			fprintf(stderr, "corecap: run cache: replaying %llu events\n",
				(unsigned long long)t->events);
	} else {
		r->cache_w = corecap_run_cache_writer_open(dirfd, key);
	}
	free(key);
	return r->replaying;
}

int corecap_ctf_reader_init(struct ctf_reader *r, char *const *dirs, size_t n,
			    ctf_reader_consume_fn fn, void *ctx)
{
	const bt_plugin *ctf = NULL;
	const bt_component_class_source *fs;
	const bt_component_source **srcs = NULL;
	int ret = -EINVAL;

	*r = (struct ctf_reader){.consume = fn,
				 .ctx = ctx,
				 .log_fd = -1,
				 .first_dir = n ? dirs[0] : NULL,
				 .merge = {.stale = -1}};
	if (open_cache(r, dirs, n))
		return 0;
	r->graph = bt_graph_create(0);
	if (!r->graph) {
		corecap_ctf_reader_set_error(r, "cannot create a babeltrace2 graph");
		return -ENOMEM;
	}
	/* The metadata parser logs at this level, read from the environment when
	 * the plugin loads, not at the component's: without it a syntax error
	 * leaves no line number anywhere. */
	setenv("BABELTRACE_PLUGIN_CTF_METADATA_LOG_LEVEL", "E", 0);
	if (!(ctf = find_plugin(r, "ctf")))
		goto out;
	fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	if (!fs) {
		corecap_ctf_reader_set_error(r, "the babeltrace2 plugins lack source.ctf.fs");
		goto out;
	}
	if (!(srcs = calloc(n ? n : 1, sizeof(*srcs)))) {
		corecap_ctf_reader_set_error(r, "cannot read the traces: %s", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if ((ret = add_source(r, fs, dirs[i], i, &srcs[i])))
			goto out;
	ret = add_sink(r, srcs, n, dirs);
out:
	free(srcs);
	bt_plugin_put_ref(ctf);
	return ret;
}

int corecap_ctf_reader_run(struct ctf_reader *r)
{
	bt_graph_run_status st;

	if (r->replaying) {
		int ret = corecap_run_cache_replay(&r->cache_v, r->consume, r->wants_comm, r->ctx,
						   r->stack);

		if (ret) {
			r->consume_ret = ret;
			corecap_ctf_reader_set_error(r, "%s", strerror(-ret));
		}
		return ret;
	}
	corecap_ctf_guard_begin(r, r->first_dir);
	do
		st = bt_graph_run(r->graph);
	while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	corecap_ctf_guard_end();
	if (st == BT_GRAPH_RUN_STATUS_OK) {
		corecap_ctf_guard_replay_log(r);
		if (r->cache_w) {
			struct run_cache_tail t = {
				.foreign = r->foreign_events,
				.packets = r->packets,
				.index_packets = r->check.index_packets,
				.missing_packets = r->check.missing_packets,
				.missing_bytes = r->check.missing_bytes,
				.streams_cut = r->check.streams_cut,
			};

			memcpy(t.cut_name, r->check.cut_name,
			       strnlen(r->check.cut_name, sizeof(r->check.cut_name)));
			corecap_run_cache_commit(r->cache_w, &t); /* or not kept: no matter */
		}
		return 0;
	}
	if (r->consume_ret) {
		bt_current_thread_clear_error();
		corecap_ctf_reader_set_error(r, "%s", strerror(-r->consume_ret));
		return r->consume_ret;
	}
	corecap_ctf_reader_set_error(r, "babeltrace2 failed");
	append_bt_causes(r);
	corecap_ctf_guard_log_causes(r);
	return st == BT_GRAPH_RUN_STATUS_MEMORY_ERROR ? -ENOMEM : -EIO;
}

uint64_t corecap_ctf_reader_missing_packets(const struct ctf_reader *r)
{
	uint64_t short_read =
		r->check.index_packets > r->packets ? r->check.index_packets - r->packets : 0;

	return r->check.missing_packets > short_read ? r->check.missing_packets : short_read;
}

const char *corecap_ctf_reader_error(const struct ctf_reader *r)
{
	return r->error;
}

void corecap_ctf_reader_release(struct ctf_reader *r)
{
	corecap_ctf_merge_release(&r->merge); /* its iterators before their graph */
	free(r->input_dirs);
	if (r->graph)
		bt_graph_put_ref(r->graph);
	corecap_run_cache_writer_free(r->cache_w);
	corecap_run_cache_unload(r->cache_map, r->cache_len);
	free(r->classes);
	free(r->error);
	if (r->log_fd >= 0)
		close(r->log_fd);
	*r = (struct ctf_reader){.log_fd = -1};
}
