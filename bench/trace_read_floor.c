/*
 * trace_read_floor: babeltrace2's read of a run's CTF trace, each stream's
 * messages taken by a sink of its own (`nomux`: in no order across
 * streams) or, as `babeltrace2 -c sink.utils.dummy` reads it, merged by
 * its muxer into one sink (`mux`). What the muxer costs is what a reader
 * that merges the streams itself (corecap merges the kernel records in
 * anyway) could leave out of issue 48's floor: the trace read through
 * babeltrace2. bench/trace_read_floor.sh times both beside the CLI's.
 * Every trace below TRACE_DIR (each directory with a `metadata` file)
 * gets a source of its own.
 *
 * usage: trace_read_floor mux|nomux TRACE_DIR
 * Exit status: 0, 1 when the trace cannot be read, 2 usage.
 */
#include <babeltrace2/babeltrace.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_TRACES 64

struct floor_graph {
	bt_graph *graph;
	const bt_component_class_source *fs;
	const bt_component_class_filter *muxer;
	const bt_component_class_sink *dummy;
	const bt_component_filter *mux; /* mux mode only */
	unsigned sources, sinks, mux_inputs;
};

/* The trace directories below dir (those holding a `metadata` file). */
static void find_traces(const char *dir, char paths[][4096], unsigned *n, int depth)
{
	char p[4096];
	struct dirent *e;
	struct stat st;
	DIR *d;

	snprintf(p, sizeof(p), "%s/metadata", dir);
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && *n < MAX_TRACES) {
		snprintf(paths[(*n)++], 4096, "%s", dir);
		return;
	}
	if (depth > 8 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) < (int)sizeof(p) &&
		    stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			find_traces(p, paths, n, depth + 1);
	closedir(d);
}

/* An output port to a new dummy sink, or to the muxer's next input. */
static bool connect_out(struct floor_graph *f, const bt_port_output *out)
{
	const bt_port_input *in;
	const bt_component_sink *s;
	char name[32];

	if (f->mux) {
		in = bt_component_filter_borrow_input_port_by_index_const(f->mux, f->mux_inputs++);
	} else {
		snprintf(name, sizeof(name), "sink%u", f->sinks++);
		if (bt_graph_add_sink_component(f->graph, f->dummy, name, NULL,
						BT_LOGGING_LEVEL_WARNING, &s))
			return false;
		in = bt_component_sink_borrow_input_port_by_index_const(s, 0);
	}
	return in &&
	       bt_graph_connect_ports(f->graph, out, in, NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK;
}

static bool add_trace(struct floor_graph *f, const char *path)
{
	const bt_component_source *src;
	bt_value *params = bt_value_map_create(), *inputs = bt_value_array_create();
	char name[32];
	bool ok;

	snprintf(name, sizeof(name), "src%u", f->sources++);
	ok = params && inputs && !bt_value_array_append_string_element(inputs, path) &&
	     !bt_value_map_insert_entry(params, "inputs", inputs) &&
	     bt_graph_add_source_component(f->graph, f->fs, name, params, BT_LOGGING_LEVEL_WARNING,
					   &src) == BT_GRAPH_ADD_COMPONENT_STATUS_OK;
	bt_value_put_ref(inputs);
	bt_value_put_ref(params);
	for (uint64_t i = 0; ok && i < bt_component_source_get_output_port_count(src); i++)
		ok = connect_out(f, bt_component_source_borrow_output_port_by_index_const(src, i));
	return ok;
}

int main(int argc, char **argv)
{
	static char paths[MAX_TRACES][4096];
	struct floor_graph f = {0};
	const bt_plugin *ctf = NULL, *utils = NULL;
	const bt_component_sink *sink;
	bt_graph_run_status st;
	unsigned n = 0;
	bool mux;

	if (argc != 3 || (strcmp(argv[1], "mux") && strcmp(argv[1], "nomux"))) {
		fprintf(stderr, "usage: trace_read_floor mux|nomux TRACE_DIR\n");
		return 2;
	}
	mux = strcmp(argv[1], "mux") == 0;
	find_traces(argv[2], paths, &n, 0);
	if (!n) {
		fprintf(stderr,
			"trace_read_floor: no CTF trace (a directory with a metadata file) below "
			"'%s'\n",
			argv[2]);
		return 1;
	}
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils)) {
		fprintf(stderr,
			"trace_read_floor: babeltrace2's ctf and utils plugins not found\n");
		return 1;
	}
	f.fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	f.muxer = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	f.dummy = bt_plugin_borrow_sink_component_class_by_name_const(utils, "dummy");
	if (!f.fs || !f.muxer || !f.dummy || !(f.graph = bt_graph_create(0)))
		return 1;
	if (mux &&
	    (bt_graph_add_filter_component(f.graph, f.muxer, "mux", NULL, BT_LOGGING_LEVEL_WARNING,
					   &f.mux) ||
	     bt_graph_add_sink_component(f.graph, f.dummy, "sink", NULL, BT_LOGGING_LEVEL_WARNING,
					 &sink) ||
	     bt_graph_connect_ports(
		     f.graph, bt_component_filter_borrow_output_port_by_index_const(f.mux, 0),
		     bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)))
		return 1;
	for (unsigned i = 0; i < n; i++)
		if (!add_trace(&f, paths[i])) {
			fprintf(stderr, "trace_read_floor: cannot read '%s'\n", paths[i]);
			return 1;
		}
	do
		st = bt_graph_run(f.graph);
	while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	bt_graph_put_ref(f.graph);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		fprintf(stderr, "trace_read_floor: the graph ended with status %d\n", (int)st);
		return 1;
	}
	return 0;
}
