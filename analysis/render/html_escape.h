/*
 * html_escape: text made safe for XML and HTML (SVG text, attributes,
 * HTML bodies). The output is always well-formed UTF-8 XML character
 * data: the five markup characters become entities, control characters
 * that XML 1.0 forbids are dropped, and bytes that are not valid UTF-8
 * become U+FFFD, so a thread name or a symbol can never break a document.
 */
#ifndef CORECAP_HTML_ESCAPE_H
#define CORECAP_HTML_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Writes s, escaped, to out (at most max_chars characters, then "..", if max_chars > 0). */
void corecap_html_escape(FILE *out, const char *s, size_t max_chars);
/* Writes s as the contents of a JSON string (without the quotes). */
void corecap_json_escape(FILE *out, const char *s);

#endif
