#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_format.h"

#define FORMAT_MAX_BYTES 65536

/* The name of a declaration such as "unsigned short common_type" or
 * "char prev_comm[16]" or "__data_loc char[] parent_comm": its last
 * identifier outside brackets. */
static bool decl_name(const char *decl, size_t len, char *out, size_t out_size)
{
	size_t end = len, start;

	while (end > 0 && (decl[end - 1] == ' ' || decl[end - 1] == '\t'))
		end--;
	if (end > 0 && decl[end - 1] == ']') {
		while (end > 0 && decl[end - 1] != '[')
			end--;
		if (end == 0)
			return false;
		end--;
	}
	start = end;
	while (start > 0 &&
	       (decl[start - 1] == '_' || (decl[start - 1] >= 'a' && decl[start - 1] <= 'z') ||
		(decl[start - 1] >= 'A' && decl[start - 1] <= 'Z') ||
		(decl[start - 1] >= '0' && decl[start - 1] <= '9')))
		start--;
	if (start == end || end - start >= out_size)
		return false;
	memcpy(out, decl + start, end - start);
	out[end - start] = '\0';
	return true;
}

static bool parse_uint_after(const char *line, const char *key, uint32_t *out)
{
	const char *p = strstr(line, key);
	unsigned long v;
	char *end;

	if (!p)
		return false;
	p += strlen(key);
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno || end == p || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* One "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" line. */
static int parse_field(struct corecap_tp_format *f, const char *line)
{
	struct corecap_tp_field *fl;
	const char *decl = strstr(line, "field:");
	const char *semi;
	uint32_t sign = 0;

	if (!decl)
		return 0;
	decl += strlen("field:");
	semi = strchr(decl, ';');
	if (!semi)
		return -EINVAL;
	if (f->n_fields == CORECAP_TP_FORMAT_MAX_FIELDS)
		return 0; /* more fields than we read: the ones we need come first */
	fl = &f->fields[f->n_fields];
	if (!decl_name(decl, (size_t)(semi - decl), fl->name, sizeof(fl->name)))
		return -EINVAL;
	if (!parse_uint_after(semi, "offset:", &fl->offset) ||
	    !parse_uint_after(semi, "size:", &fl->size))
		return -EINVAL;
	parse_uint_after(semi, "signed:", &sign);
	fl->is_signed = sign != 0;
	f->n_fields++;
	return 0;
}

int corecap_tp_format_parse(struct corecap_tp_format *f, const char *text)
{
	const char *line = text;
	bool have_id = false;
	int ret = 0;

	f->n_fields = 0;
	f->id = 0;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512];

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		/* The fields end where the print format (free text) begins. */
		if (strncmp(buf, "print fmt:", 10) == 0)
			break;
		if (strncmp(buf, "ID:", 3) == 0) {
			have_id = parse_uint_after(buf, "ID:", &f->id);
		} else if (strstr(buf, "field:")) {
			ret = parse_field(f, buf);
			if (ret < 0)
				goto out;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!have_id || f->n_fields == 0)
		ret = -EINVAL;
out:
	return ret;
}

int corecap_tp_format_load(struct corecap_tp_format *f, const char *tracefs, const char *system,
			   const char *event, char *err, size_t err_size)
{
	char path[512], *text;
	size_t len = 0;
	ssize_t n;
	int fd, ret = 0;

	snprintf(f->name, sizeof(f->name), "%s:%s", system, event);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, system, event);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_size, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	text = malloc(FORMAT_MAX_BYTES + 1);
	if (!text) {
		ret = -ENOMEM;
		snprintf(err, err_size, "out of memory");
		goto out_close;
	}
	while (len < FORMAT_MAX_BYTES && (n = read(fd, text + len, FORMAT_MAX_BYTES - len)) > 0)
		len += (size_t)n;
	text[len] = '\0';
	ret = corecap_tp_format_parse(f, text);
	if (ret < 0)
		snprintf(err, err_size, "cannot parse '%s': no ID or no field", path);
	free(text);
out_close:
	close(fd);
out:
	return ret;
}

const struct corecap_tp_field *corecap_tp_format_field(const struct corecap_tp_format *f,
						       const char *name)
{
	for (size_t i = 0; i < f->n_fields; i++)
		if (strcmp(f->fields[i].name, name) == 0)
			return &f->fields[i];
	return NULL;
}

bool corecap_tp_field_read(const struct corecap_tp_field *fl, const void *raw, size_t raw_bytes,
			   int64_t *out)
{
	uint64_t v = 0;
	bool ok = fl && (fl->size == 1 || fl->size == 2 || fl->size == 4 || fl->size == 8) &&
		  (size_t)fl->offset + fl->size <= raw_bytes;

	if (ok) {
		unsigned shift = 64 - 8 * fl->size;

		/* Little-endian: the low bytes of v. */
		memcpy(&v, (const unsigned char *)raw + fl->offset, fl->size);
		*out = fl->is_signed && shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
	}
	return ok;
}
