/* Text into HTML or XML: the five characters that would end an element or
 * an attribute value, escaped. */
#ifndef AIRLAB_UTIL_MARKUP_H
#define AIRLAB_UTIL_MARKUP_H

#include <stdio.h>

/* Writes s (NULL: nothing) to f, escaped for element text and quoted
 * attribute values. */
void markup_text(FILE *f, const char *s);

#endif
