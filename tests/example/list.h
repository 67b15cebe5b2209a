/* A built-in example: a tiny multi-file program for cc-btf. */
#ifndef EXAMPLE_LIST_H
#define EXAMPLE_LIST_H

struct item {
	struct item *next;
	const char *name;
	unsigned int flags : 3;
	unsigned int refs : 29;
	union {
		long value;
		double weight;
	};
};

enum item_kind { ITEM_PLAIN, ITEM_SPECIAL = -1 };

struct item *item_push(struct item *head, struct item *it);
int item_count(const struct item *head);

#endif
