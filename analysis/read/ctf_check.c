#include "ctf_check.h"
#include <corecap/diag.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

#include "run_file.h"

#define METADATA_MAGIC	      0x75D11D57u
#define METADATA_HEADER_BYTES 37u
#define INDEX_MAGIC	      0xC1F1DCC1u
#define INDEX_HEADER_BYTES    16u
#define INDEX_ENTRY_MIN_BYTES 56u /* version 1.0: 7 u64 */
#define MAX_NESTING	      256
#define MAX_NAME	      128

static uint32_t get_u32(const unsigned char *p, bool big)
{
	return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t get_be64(const unsigned char *p)
{
	return (uint64_t)get_u32(p, true) << 32 | get_u32(p + 4, true);
}

/* ---- the metadata text: a lexer just good enough to find where it breaks ---- */

enum tok_kind { T_EOF, T_IDENT, T_NUMBER, T_STRING, T_PUNCT, T_ASSIGN /* := */ };

struct tok {
	enum tok_kind kind;
	const char *s;
	size_t len;
	unsigned line;
};

struct lexer {
	const char *p, *end;
	unsigned line;
	char **err;
};

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* The next token; -EINVAL (with *err) on an unterminated comment or string or a NUL. */
static int next_tok(struct lexer *lx, struct tok *t)
{
	for (;;) {
		while (lx->p < lx->end && strchr(" \t\r\n\f\v", *lx->p)) {
			if (*lx->p == '\n')
				lx->line++;
			lx->p++;
		}
		if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '*') {
			unsigned line = lx->line;

			for (lx->p += 2;
			     lx->p + 1 < lx->end && !(lx->p[0] == '*' && lx->p[1] == '/'); lx->p++)
				if (*lx->p == '\n')
					lx->line++;
			if (lx->p + 1 >= lx->end)
				return corecap_err(
					lx->err, -EINVAL,
					"truncated: the comment opened at line %u never closes",
					line);
			lx->p += 2;
			continue;
		}
		if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			continue;
		}
		break;
	}
	*t = (struct tok){.s = lx->p, .line = lx->line};
	if (lx->p >= lx->end) {
		t->kind = T_EOF;
		return 0;
	}
	if (*lx->p == '\0')
		return corecap_err(lx->err, -EINVAL, "a NUL byte in the text at line %u", lx->line);
	if (*lx->p == '"' || *lx->p == '\'') {
		char q = *lx->p++;

		while (lx->p < lx->end && *lx->p != q && *lx->p != '\n') {
			if (*lx->p == '\\' && lx->p + 1 < lx->end)
				lx->p++;
			lx->p++;
		}
		if (lx->p >= lx->end || *lx->p != q)
			return corecap_err(lx->err, -EINVAL,
					   "%s: the %s opened at line %u does not close",
					   lx->p >= lx->end ? "truncated" : "syntax error",
					   q == '"' ? "string" : "character literal", t->line);
		lx->p++;
		t->kind = T_STRING;
	} else if (is_ident_start(*lx->p)) {
		while (lx->p < lx->end && is_ident_char(*lx->p))
			lx->p++;
		t->kind = T_IDENT;
	} else if (*lx->p >= '0' && *lx->p <= '9') {
		while (lx->p < lx->end && (is_ident_char(*lx->p) || *lx->p == '.'))
			lx->p++;
		t->kind = T_NUMBER;
	} else if (*lx->p == ':' && lx->p + 1 < lx->end && lx->p[1] == '=') {
		lx->p += 2;
		t->kind = T_ASSIGN;
	} else {
		lx->p++;
		t->kind = T_PUNCT;
	}
	t->len = (size_t)(lx->p - t->s);
	return 0;
}

static bool tok_is(const struct tok *t, const char *s)
{
	return t->len == strlen(s) && memcmp(t->s, s, t->len) == 0;
}

/* Names (of structs and typealiases) whose body holds a sequence or a tagged variant. */
struct name_set {
	char **v;
	size_t n;
};

static bool name_set_has(const struct name_set *s, const struct tok *t)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == t->len && memcmp(s->v[i], t->s, t->len) == 0)
			return true;
	return false;
}

static int name_set_add(struct name_set *s, const char *name, size_t len)
{
	char **grown;

	if (s->n >= 4096)
		return 0; /* more names than any real metadata: stop remembering */
	grown = realloc(s->v, (s->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	s->v = grown;
	if (!(s->v[s->n] = strndup(name, len)))
		return -ENOMEM;
	s->n++;
	return 0;
}

static void name_set_release(struct name_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* A bracket still open, and what it opened. */
struct open_bracket {
	char c;
	unsigned line;
	bool event_body;     /* `event {` at the top level */
	char name[MAX_NAME]; /* `struct NAME {`: NAME; else empty */
	bool dynamic;	     /* a named body that holds a sequence or a tagged variant */
};

struct scan {
	struct open_bracket st[MAX_NESTING];
	int depth;
	struct name_set dyn; /* named structs and typealiases that are dynamic */
	bool in_event_ctx;   /* inside `context := ...;` of an event */
	bool in_typealias;   /* a top-level typealias statement */
	bool typealias_dynamic;
	bool after_typealias_assign;
	struct tok prev, prev2;
	char event_name[MAX_NAME];
};

static void mark_dynamic(struct scan *s)
{
	for (int i = 0; i < s->depth; i++)
		if (s->st[i].name[0])
			s->st[i].dynamic = true;
	if (s->in_typealias && !s->after_typealias_assign)
		s->typealias_dynamic = true;
}

/* What a sequence or tagged variant in an event's own context is called, for the error. */
static int context_refusal(struct scan *s, const struct tok *t, char **err)
{
	return corecap_err(
		err, -EINVAL,
		"line %u: the context of event '%s' holds a %s, which libbabeltrace2 %u.%u.%u "
		"cannot read (it aborts; fixed in 2.0.5)",
		t->line, s->event_name[0] ? s->event_name : "?",
		tok_is(t, "variant") ? "variant" : "sequence", bt_version_get_major(),
		bt_version_get_minor(), bt_version_get_patch());
}

static int scan_text(const char *text, size_t len, const struct ctf_check_opts *o, char **err)
{
	struct lexer lx = {.p = text, .end = text + len, .line = 1, .err = err};
	struct scan *s = calloc(1, sizeof(*s));
	struct tok t;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	for (;;) {
		if ((ret = next_tok(&lx, &t)))
			break;
		if (t.kind == T_EOF)
			break;
		if (t.kind == T_PUNCT && strchr("{[(", *t.s)) {
			struct open_bracket *b;

			if (s->depth == MAX_NESTING) {
				ret = corecap_err(err, -EINVAL,
						  "line %u: brackets nested deeper than %d", t.line,
						  MAX_NESTING);
				break;
			}
			b = &s->st[s->depth++];
			*b = (struct open_bracket){.c = *t.s, .line = t.line};
			b->event_body = *t.s == '{' && s->depth == 1 && tok_is(&s->prev, "event");
			if (b->event_body)
				s->event_name[0] = '\0';
			if (*t.s == '{' && s->prev.kind == T_IDENT && tok_is(&s->prev2, "struct") &&
			    s->prev.len < MAX_NAME)
				snprintf(b->name, sizeof(b->name), "%.*s", (int)s->prev.len,
					 s->prev.s);
			/* `[ident]`: a sequence's length is a field, not a number. */
		} else if (t.kind == T_PUNCT && strchr("}])", *t.s)) {
			char want = *t.s == '}' ? '{' : *t.s == ']' ? '[' : '(';
			struct open_bracket *b;

			if (!s->depth || s->st[s->depth - 1].c != want) {
				ret = s->depth ? corecap_err(
							 err, -EINVAL,
							 "syntax error at line %u: '%c' closes the "
							 "'%c' opened at line %u",
							 t.line, *t.s, s->st[s->depth - 1].c,
							 s->st[s->depth - 1].line)
					       : corecap_err(err, -EINVAL,
							     "syntax error at line %u: '%c' closes "
							     "nothing",
							     t.line, *t.s);
				break;
			}
			b = &s->st[--s->depth];
			if (b->name[0] && b->dynamic &&
			    (ret = name_set_add(&s->dyn, b->name, strlen(b->name))))
				break;
		} else if (t.kind == T_IDENT && s->prev.kind == T_PUNCT && *s->prev.s == '[' &&
			   s->depth && s->st[s->depth - 1].c == '[') {
			mark_dynamic(s);
			if (s->in_event_ctx && o->refuse_context_sequence) {
				ret = context_refusal(s, &t, err);
				break;
			}
		} else if (t.kind == T_PUNCT && *t.s == '<' && s->prev.kind == T_IDENT &&
			   (tok_is(&s->prev, "variant") || tok_is(&s->prev2, "variant"))) {
			struct tok v = {.s = "variant", .len = 7, .line = t.line};

			mark_dynamic(s);
			if (s->in_event_ctx && o->refuse_context_sequence) {
				ret = context_refusal(s, &v, err);
				break;
			}
		} else if (t.kind == T_IDENT && name_set_has(&s->dyn, &t)) {
			mark_dynamic(s);
			if (s->in_event_ctx && o->refuse_context_sequence) {
				ret = context_refusal(s, &t, err);
				break;
			}
		}
		/* Statements: `context :=` directly inside an event body, top-level typealiases. */
		if (t.kind == T_ASSIGN && s->depth == 1 && s->st[0].event_body &&
		    tok_is(&s->prev, "context") &&
		    (s->prev2.kind == T_PUNCT && (*s->prev2.s == ';' || *s->prev2.s == '{')))
			s->in_event_ctx = true;
		if (t.kind == T_STRING && s->depth == 1 && s->st[0].event_body &&
		    s->prev.kind == T_PUNCT && *s->prev.s == '=' && tok_is(&s->prev2, "name") &&
		    t.len >= 2)
			snprintf(s->event_name, sizeof(s->event_name), "%.*s",
				 (int)(t.len - 2 < MAX_NAME - 1 ? t.len - 2 : MAX_NAME - 1),
				 t.s + 1);
		if (t.kind == T_IDENT && s->depth == 0 && tok_is(&t, "typealias") &&
		    (s->prev.kind == T_EOF || (s->prev.kind == T_PUNCT && *s->prev.s == ';'))) {
			s->in_typealias = true;
			s->typealias_dynamic = s->after_typealias_assign = false;
		}
		if (s->in_typealias && s->depth == 0 && t.kind == T_ASSIGN)
			s->after_typealias_assign = true;
		else if (s->in_typealias && s->after_typealias_assign && t.kind == T_IDENT &&
			 s->typealias_dynamic && (ret = name_set_add(&s->dyn, t.s, t.len)))
			break;
		if (t.kind == T_PUNCT && *t.s == ';') {
			if (s->depth <= 1)
				s->in_event_ctx = false;
			if (s->depth == 0)
				s->in_typealias = false;
		}
		s->prev2 = s->prev;
		s->prev = t;
	}
	if (!ret && s->depth)
		ret = corecap_err(
			err, -EINVAL,
			"truncated: the text ends (line %u) with %d bracket%s open, the last "
			"'%c' at line %u",
			lx.line, s->depth, s->depth > 1 ? "s" : "", s->st[s->depth - 1].c,
			s->st[s->depth - 1].line);
	if (!ret && s->prev.kind == T_EOF)
		ret = corecap_err(err, -EINVAL, "no declaration in the metadata text");
	if (!ret && !(s->prev.kind == T_PUNCT && *s->prev.s == ';'))
		ret = corecap_err(
			err, -EINVAL,
			"truncated: the text ends (line %u) inside a declaration (no closing ';')",
			lx.line);
	name_set_release(&s->dyn);
	free(s);
	return ret;
}

/* The text of a packetized metadata file, packet by packet, checked. */
static int depacketize(const unsigned char *buf, size_t len, char **text, size_t *text_len,
		       char **err)
{
	bool big = get_u32(buf, true) == METADATA_MAGIC;
	size_t off = 0, n = 0, k = 0;
	char *out = malloc(len + 1);

	if (!out)
		return -ENOMEM;
	while (off < len) {
		const unsigned char *h = buf + off;
		uint32_t content, packet;

		k++;
		if (len - off < METADATA_HEADER_BYTES) {
			free(out);
			return corecap_err(
				err, -EINVAL,
				"truncated: metadata packet %zu at byte %zu has %zu bytes, less "
				"than its %u-byte header",
				k, off, len - off, METADATA_HEADER_BYTES);
		}
		if (get_u32(h, big) != METADATA_MAGIC || memcmp(h + 4, buf + 4, 16) != 0) {
			free(out);
			return corecap_err(
				err, -EINVAL,
				"metadata packet %zu at byte %zu: %s (not a packet boundary, or "
				"a corrupt file)",
				k, off,
				get_u32(h, big) != METADATA_MAGIC ? "bad magic"
								  : "another trace's UUID");
		}
		content = get_u32(h + 24, big);
		packet = get_u32(h + 28, big);
		if (h[32] || h[33] || h[34] || h[35] != 1 || h[36] != 8) {
			free(out);
			return corecap_err(
				err, -EINVAL,
				"metadata packet %zu: compression %u, encryption %u, checksum %u, "
				"CTF %u.%u (corecap reads uncompressed CTF 1.8)",
				k, h[32], h[33], h[34], h[35], h[36]);
		}
		if (packet % 8 || content % 8 || content > packet ||
		    content < METADATA_HEADER_BYTES * 8) {
			free(out);
			return corecap_err(
				err, -EINVAL,
				"metadata packet %zu at byte %zu: inconsistent sizes (content "
				"%u bits, packet %u bits)",
				k, off, content, packet);
		}
		if (packet / 8 > len - off) {
			free(out);
			return corecap_err(
				err, -EINVAL,
				"truncated: metadata packet %zu at byte %zu is %u bytes, but the "
				"file ends %zu bytes after its start",
				k, off, packet / 8, len - off);
		}
		memcpy(out + n, h + METADATA_HEADER_BYTES, content / 8 - METADATA_HEADER_BYTES);
		n += content / 8 - METADATA_HEADER_BYTES;
		off += packet / 8;
	}
	out[n] = '\0';
	*text = out;
	*text_len = n;
	return 0;
}

int corecap_ctf_check_metadata(const unsigned char *buf, size_t len, const struct ctf_check_opts *o,
			       char **err)
{
	char *text = NULL;
	size_t text_len = 0;
	int ret;

	*err = NULL;
	if (len >= 4 &&
	    (get_u32(buf, true) == METADATA_MAGIC || get_u32(buf, false) == METADATA_MAGIC)) {
		ret = depacketize(buf, len, &text, &text_len, err);
		if (ret)
			return ret;
		ret = scan_text(text, text_len, o, err);
		free(text);
		return ret;
	}
	if (len < 6 || memcmp(buf, "/* CTF", 6) != 0)
		return corecap_err(err, -EINVAL,
				   "not CTF metadata (neither packetized nor text beginning with "
				   "'/* CTF')");
	return scan_text((const char *)buf, len, o, err);
}

static int check_metadata_file(const char *dir, char **err)
{
	struct ctf_check_opts o = {
		.refuse_context_sequence = bt_version_get_major() == 2 &&
					   bt_version_get_minor() == 0 &&
					   bt_version_get_patch() < 5,
	};
	char path[4096], *why = NULL;
	unsigned char *buf;
	struct stat st;
	ssize_t k;
	size_t got = 0;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	fd = corecap_run_file_open(path);
	if (fd < 0) {
		if (asprintf(err, "cannot open '%s': %s", path, corecap_run_file_strerror(-fd)) < 0)
			*err = NULL;
		return fd;
	}
	if (fstat(fd, &st) != 0) {
		ret = -errno;
		close(fd);
		if (asprintf(err, "cannot read '%s': %s", path, strerror(-ret)) < 0)
			*err = NULL;
		return ret;
	}
	if (st.st_size > CTF_CHECK_MAX_METADATA_BYTES) {
		close(fd);
		if (asprintf(err, "'%s': larger than %u MiB: not a trace's metadata", path,
			     CTF_CHECK_MAX_METADATA_BYTES >> 20) < 0)
			*err = NULL;
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size && (k = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)k;
	close(fd);
	ret = corecap_ctf_check_metadata(buf, got, &o, &why);
	if (ret &&
	    asprintf(err, "invalid trace metadata '%s': %s", path, why ? why : strerror(-ret)) < 0)
		*err = NULL;
	free(why);
	free(buf);
	return ret;
}

/* Packets of stream file name that its index lists past the file's end. */
static void check_index(const char *dir, const char *name, uint64_t size, struct ctf_check *c)
{
	char path[4096], stream[4096 + 256];

	snprintf(path, sizeof(path), "%s/index/%s.idx", dir, name);
	snprintf(stream, sizeof(stream), "%s/%s", dir, name);
	corecap_ctf_check_index(path, size, stream, c);
}

void corecap_ctf_check_index(const char *path, uint64_t size, const char *stream,
			     struct ctf_check *c)
{
	unsigned char hdr[INDEX_HEADER_BYTES], *e = NULL;
	uint32_t entry_len;
	uint64_t missing = 0, missing_bytes = 0, n = 0;
	FILE *f;

	f = corecap_run_file_fopen(path);
	if (!f)
		return; /* no index: nothing to compare with */
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) || get_u32(hdr, true) != INDEX_MAGIC ||
	    get_u32(hdr + 4, true) != 1 ||
	    (entry_len = get_u32(hdr + 12, true)) < INDEX_ENTRY_MIN_BYTES || entry_len > 4096 ||
	    !(e = malloc(entry_len)))
		goto out;
	while (fread(e, 1, entry_len, f) == entry_len) {
		uint64_t off = get_be64(e), bytes = get_be64(e + 8) / 8;

		n++;
		if (off >= size) {
			missing++;
			missing_bytes += bytes;
		} else if (bytes > size - off) {
			missing++;
			missing_bytes += bytes - (size - off);
		}
	}
	c->index_packets += n;
	if (missing) {
		c->missing_packets += missing;
		c->missing_bytes += missing_bytes;
		if (!c->streams_cut++)
			snprintf(c->cut_name, sizeof(c->cut_name), "%s", stream);
	}
out:
	free(e);
	fclose(f);
}

/*
 * A file of the trace, as libbabeltrace2 will open it: through run_file
 * (a regular file within its bound, not a link out of the run), so that
 * the library never meets a FIFO, a device or another user's file. Its
 * size into *size.
 */
static int check_file(const char *path, uint64_t *size, char **err)
{
	struct stat st;
	int fd = corecap_run_file_open(path), ret = 0;

	if (fd < 0) {
		if (asprintf(err, "trace file '%s': %s", path, corecap_run_file_strerror(-fd)) < 0)
			*err = NULL;
		return fd == -ENOTREG_RUN_FILE ? -EINVAL : fd;
	}
	if (fstat(fd, &st) != 0) {
		ret = -errno;
		if (asprintf(err, "cannot open trace file '%s': %s", path, strerror(-ret)) < 0)
			*err = NULL;
	}
	*size = ret ? 0 : (uint64_t)st.st_size;
	close(fd);
	return ret;
}

/* Every file of dir/index/ (LTTng's stream indexes, which the library opens too). */
static int check_index_dir(const char *dir, char **err)
{
	char path[4096 + 512];
	struct dirent *de;
	struct stat st;
	uint64_t size;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/index", dir);
	d = opendir(path);
	if (!d)
		return 0; /* no index: nothing the library reads */
	while (!ret && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "%s/index/%s", dir, de->d_name);
		ret = check_file(path, &size, err);
	}
	closedir(d);
	return ret;
}

int corecap_ctf_check_trace(const char *dir, struct ctf_check *c, char **err)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	uint64_t size;
	DIR *d;
	int ret;

	*err = NULL;
	ret = check_metadata_file(dir, err);
	if (ret)
		return ret;
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		if (asprintf(err, "cannot open trace '%s': %s", dir, strerror(-ret)) < 0)
			*err = NULL;
		return ret;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "metadata") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		/* A directory of the trace itself (index/), not one a link leads to. */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			ret = -errno;
			if (asprintf(err, "cannot open trace file '%s': %s", path, strerror(-ret)) <
			    0)
				*err = NULL;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			if (strcmp(de->d_name, "index") == 0 && (ret = check_index_dir(dir, err)))
				break;
			continue;
		}
		if ((ret = check_file(path, &size, err)))
			break;
		check_index(dir, de->d_name, size, c);
	}
	closedir(d);
	return ret;
}
