#include <stdio.h>
#include "list.h"

static __attribute__((noinline)) void show(const struct item *it, enum item_kind kind)
{
	printf("%s (%d)\n", it->name, kind);
}

int main(void)
{
	struct item a = { .name = "a" }, b = { .name = "b" };
	struct item *head = item_push(item_push(NULL, &a), &b);

	show(head, ITEM_PLAIN);
	return item_count(head) == 2 ? 0 : 1;
}
