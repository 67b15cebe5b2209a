// SPDX-License-Identifier: GPL-2.0-only
/* Growable vectors of malloc()ed strings (cc-btf.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc-btf.h"

int strv__push(struct strv *sv, char *s)
{
	if (!s)
		return -ENOMEM;
	if (sv->nr == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 8;
		char **v = realloc(sv->v, cap * sizeof(*v));

		if (!v) {
			free(s);
			return -ENOMEM;
		}
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->nr++] = s;
	return 0;
}

int strv__push_dup(struct strv *sv, const char *s)
{
	return strv__push(sv, strdup(s));
}

void strv__clear(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}
