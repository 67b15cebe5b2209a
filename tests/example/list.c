#include "list.h"

/* A per-CPU-style variable, as the kernel's DEFINE_PER_CPU makes them. */
__attribute__((section(".data..percpu"))) int list_ops;

struct item *item_push(struct item *head, struct item *it)
{
	it->next = head;
	list_ops++;
	return it;
}

int item_count(const struct item *head)
{
	int n = 0;

	for (; head; head = head->next)
		n++;
	return n;
}
