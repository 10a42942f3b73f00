#include "html_escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past Unicode are not text. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

void corecap_html_escape(FILE *out, const char *str, size_t max_chars)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t chars = 0;

	while (*s) {
		size_t n = utf8_len(s);

		if (max_chars && chars == max_chars) {
			fputs("..", out);
			return;
		}
		chars++;
		if (n == 0) {
			fputs("\xef\xbf\xbd", out);
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, out);
			s += n;
			continue;
		}
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		case '\t':
		case '\n':
			fputc(*s, out);
			break;
		default:
			if (*s >= 0x20 && *s != 0x7f)
				fputc(*s, out);
			else
				chars--; /* forbidden in XML 1.0: dropped */
		}
		s++;
	}
}

void corecap_json_escape(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = utf8_len(s);

		if (n == 0) {
			fputs("\\ufffd", out);
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, out);
			s += n;
			continue;
		}
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s < 0x20 || *s == 0x7f)
			fprintf(out, "\\u%04x", *s);
		else if (*s == '<')
			fputs("\\u003c", out); /* safe inside an HTML <script> too */
		else
			fputc(*s, out);
		s++;
	}
}
