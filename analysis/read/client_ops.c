/* client_ops: see client_ops.h. */
#include "client_ops.h"
#include "run_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The next tab-separated unsigned field of *p into *v; false when absent or not a number. */
static bool field_u64(char **p, uint64_t *v)
{
	char *end;

	if (!*p || **p < '0' || **p > '9')
		return false;
	errno = 0;
	*v = strtoull(*p, &end, 10);
	if (errno || (*end != '\t' && *end != '\0'))
		return false;
	*p = *end == '\t' ? end + 1 : NULL;
	return true;
}

/* Parses "op_id type issue send recv" into *op; false when the line is not one. */
static bool parse_line(char *line, struct client_op *op)
{
	char *p = line, *type_end;

	if (!field_u64(&p, &op->op_id) || !p)
		return false;
	type_end = strchr(p, '\t');
	if (!type_end || type_end == p)
		return false;
	p = type_end + 1;
	return field_u64(&p, &op->issue_ns) && p && field_u64(&p, &op->send_ns) && p &&
	       field_u64(&p, &op->recv_ns) && !p && op->issue_ns <= op->send_ns &&
	       op->send_ns <= op->recv_ns;
}

static int keep(struct client_ops *c, const struct client_op *op)
{
	if (c->n == CLIENT_OPS_MAX) {
		c->over_cap++;
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		struct client_op *grown = realloc(c->ops, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		c->ops = grown;
		c->cap = cap;
	}
	c->ops[c->n++] = *op;
	return 0;
}

int corecap_client_ops_read(struct client_ops *c, const char *path, char **err)
{
	struct run_lines l;
	char *line;
	size_t len;
	int ret;

	*c = (struct client_ops){0};
	ret = corecap_run_lines_open(&l, path, CLIENT_OPS_MAX_LINE);
	if (ret == -ENOENT)
		return ret;
	if (ret < 0) {
		if (asprintf(err, "cannot open '%s': %s", path, corecap_run_file_strerror(-ret)) <
		    0)
			*err = NULL;
		return ret;
	}
	while ((ret = corecap_run_lines_next(&l, &line, &len)) == 1) {
		struct client_op op;

		if (len == 0 || line[0] == '#')
			continue;
		if (!parse_line(line, &op)) {
			c->bad++;
			continue;
		}
		ret = keep(c, &op);
		if (ret < 0)
			break;
	}
	if (ret < 0 && ret != -ENOMEM)
		corecap_run_lines_err(&l, ret, err);
	corecap_run_lines_close(&l);
	return ret < 0 ? ret : 0;
}

void corecap_client_ops_release(struct client_ops *c)
{
	free(c->ops);
	*c = (struct client_ops){0};
}
