// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
int main(void) { fputs("cc-btf: not built yet\n", stderr); return 1; }
