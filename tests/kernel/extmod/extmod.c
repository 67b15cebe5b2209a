// SPDX-License-Identifier: GPL-2.0-only
/*
 * An out-of-tree module for tests/kernel/e2e.sh's extmod phase, built with
 * make M= and a distilled base (.BTF.base): it holds a kernel struct by
 * value (sized in the distilled base), points to another (sized too), and
 * uses a kernel enum and typedefs, so that its split BTF refers to each
 * kind the kernel relocates at load.
 */
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/pid.h>

struct extmod_state {
	struct list_head list;
	struct file *file;
	enum pid_type type;
	u64 count;
};

static struct extmod_state extmod_st;

noinline int extmod_use(struct extmod_state *s, struct file *file)
{
	s->file = file;
	s->count++;
	return s->type;
}
EXPORT_SYMBOL_GPL(extmod_use);

static int __init extmod_init(void)
{
	INIT_LIST_HEAD(&extmod_st.list);
	return extmod_use(&extmod_st, NULL);
}

static void __exit extmod_exit(void)
{
}

module_init(extmod_init);
module_exit(extmod_exit);
MODULE_DESCRIPTION("archive-btf: an external module with a distilled base");
MODULE_LICENSE("GPL");
