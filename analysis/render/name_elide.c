#include "name_elide.h"

#include <stdbool.h>
#include <string.h>

#define ELLIPSIS "\xe2\x80\xa6"

static bool is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

static bool is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* Whether a cut between s[i - 1] and s[i] splits no token. */
static bool boundary(const char *s, size_t i)
{
	unsigned char a = (unsigned char)s[i - 1], b = (unsigned char)s[i];

	if (is_cont(b))
		return false; /* inside a UTF-8 sequence */
	return is_word(a) != is_word(b) || a == ' ' || b == ' ';
}

size_t corecap_name_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += !is_cont((unsigned char)*s);
	return n;
}

/* Characters of s[b, e). */
static size_t width_of(const char *s, size_t b, size_t e)
{
	size_t n = 0;

	for (size_t i = b; i < e; i++)
		n += !is_cont((unsigned char)s[i]);
	return n;
}

static size_t copy_whole(const char *s, char *out, size_t size)
{
	size_t len = strlen(s);

	if (len >= size)
		len = size - 1;
	while (len && is_cont((unsigned char)s[len]))
		len--; /* a truncated buffer never ends inside a sequence */
	memcpy(out, s, len);
	out[len] = '\0';
	return width_of(out, 0, len);
}

size_t corecap_name_elide(const char *s, size_t width, char *out, size_t size)
{
	size_t len = strlen(s), head = 0, tail = len, budget, hw, tw;

	if (!size)
		return 0;
	if (corecap_name_width(s) <= width || width < 2)
		return copy_whole(s, out, size);
	budget = width - 1;
	/* The end first gets half (it holds the offset, the arguments), the
	 * start the rest; then whichever stopped short lends to the other. */
	for (int pass = 0; pass < 2; pass++) {
		size_t tail_max = pass ? budget - width_of(s, 0, head) : budget / 2;

		for (size_t i = tail - 1; i > head; i--)
			if (boundary(s, i) && width_of(s, i, len) <= tail_max)
				tail = i;
			else if (width_of(s, i, len) > tail_max)
				break;
		tw = width_of(s, tail, len);
		for (size_t i = head + 1; i < tail; i++)
			if (boundary(s, i) && width_of(s, 0, i) <= budget - tw)
				head = i;
			else if (width_of(s, 0, i) > budget - tw)
				break;
	}
	/* Spaces at the cut add nothing. */
	while (head && s[head - 1] == ' ')
		head--;
	while (tail < len && s[tail] == ' ')
		tail++;
	hw = width_of(s, 0, head);
	tw = width_of(s, tail, len);
	if ((!head && tail == len) || head + strlen(ELLIPSIS) + (len - tail) >= size)
		return copy_whole(s, out, size);
	memcpy(out, s, head);
	memcpy(out + head, ELLIPSIS, strlen(ELLIPSIS));
	memcpy(out + head + strlen(ELLIPSIS), s + tail, len - tail);
	out[head + strlen(ELLIPSIS) + len - tail] = '\0';
	return hw + 1 + tw;
}

void corecap_name_put(FILE *out, const char *s, size_t width)
{
	char buf[1024];
	size_t w = corecap_name_elide(s, width, buf, sizeof(buf));

	fputs(buf, out);
	for (; w < width; w++)
		fputc(' ', out);
}
