# Shared by tests/split.bats and tests/kernel-split.bats: reading a
# bpftool dump of split BTF.
# shellcheck shell=bash

# count DUMP KIND NAME: how many KIND 'NAME' a bpftool dump has.
count() {
	grep -c "^\[[0-9]*\] $2 '$3'" "$1" || true
}

# id_of DUMP KIND NAME: the type ID of the one KIND 'NAME'.
id_of() {
	sed -n "s/^\[\([0-9]*\)\] $2 '$3' .*/\1/p" "$1"
}

# param_type DUMP FUNC [N]: the type ID of FUNC's parameter N (1: first).
param_type() {
	local proto
	proto=$(sed -n "s/^\[[0-9]*\] FUNC '$2' type_id=\([0-9]*\) .*/\1/p" "$1")
	[ -n "$proto" ] || return 1
	sed -n "/^\[$proto\] FUNC_PROTO /,/^\[/p" "$1" |
		sed -n "$((${3:-1} + 1))s/.* type_id=\([0-9]*\)\$/\1/p"
}

# ptr_target DUMP ID: what PTR ID points to.
ptr_target() {
	sed -n "s/^\[$2\] PTR '(anon)' type_id=\([0-9]*\)\$/\1/p" "$1"
}
