/*
 * name_elide: a long name (a C++ symbol, a lock label) made to fit a
 * column without cutting a token in two. The start and the end are kept
 * ("PG::lock(bool) const+0x27" keeps its class and its offset) and "…"
 * (U+2026, one column) replaces the middle; cuts fall only where an
 * identifier or number meets punctuation or a space, so an address, an
 * identifier or a "::" is never split. Widths count characters (UTF-8
 * sequences), not bytes.
 */
#ifndef CORECAP_NAME_ELIDE_H
#define CORECAP_NAME_ELIDE_H

#include <stddef.h>
#include <stdio.h>

/* The number of characters (UTF-8 sequences) of s. */
size_t corecap_name_width(const char *s);
/*
 * s, elided to at most width characters, into out (size bytes, always
 * terminated). A name of which no start and end fit around "…" at token
 * boundaries is kept whole, wider than asked, rather than cut mid-token.
 * Returns the result's width.
 */
size_t corecap_name_elide(const char *s, size_t width, char *out, size_t size);
/* Writes s elided to width, padded with spaces to width (left-aligned). */
void corecap_name_put(FILE *out, const char *s, size_t width);

#endif
