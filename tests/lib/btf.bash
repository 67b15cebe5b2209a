# BTF made, compared and read: pahole's as the reference, btf-link
# --compare as the judge, bpftool dumps read by name.
# shellcheck shell=bash disable=SC2154 # bats' run sets status and output

# The flags the kernel build gives pahole 1.24 (scripts/pahole-flags.sh).
PAHOLE_KERNEL_FLAGS="--btf_gen_floats -j --lang_exclude=rust"

# pahole_btf OBJ OUT: the BTF Debian's pahole makes of OBJ, as a raw file.
pahole_btf() {
	# shellcheck disable=SC2086 # the flags are words
	pahole -J $PAHOLE_KERNEL_FLAGS --btf_encode_detached="$2" "$1"
}

# encode_as_pahole124 OBJ OUT: cc-btf's BTF of OBJ in pahole 1.24's array
# shape (as_pahole124); OUT.nested keeps cc-btf's own.
encode_as_pahole124() {
	"$CC_BTF" --encode -o "$2.nested" "$1" && as_pahole124 "$2.nested" "$2"
}

# as_pahole124 BTF OUT: one object's BTF in pahole 1.24's array shape:
# cc-btf encodes a multi-dimensional array nested, as pahole 1.32; where
# BTF has such an array, btf-link -f --flat_arrays makes it one ARRAY of
# all its elements, as pahole before 1.32 (docs/design.md, "Array
# shape"). (Only then: btf-link on one object's raw BTF is no linked
# image, whose DATASECs it could place.)
as_pahole124() {
	if nested_arrays "$1"; then
		"$BTF_LINK" -f --flat_arrays -o "$2" "$1"
	else
		cp "$1" "$2"
	fi
}

# nested_arrays BTF: BTF has an ARRAY whose element is an ARRAY.
nested_arrays() {
	bpftool btf dump file "$1" | awk '
		$2 == "ARRAY" { id = substr($1, 2, length($1) - 2); arr[id] = 1
				sub(/^type_id=/, "", $4); elem[id] = $4 }
		END { for (a in elem) if (elem[a] in arr) found = 1
		      exit !found }'
}

# same_btf [--base B] REF OURS: btf-link --compare finds them equal.
same_btf() {
	run "$BTF_LINK" --compare "$@"
	if [ "$status" -ne 0 ] || [ -n "$output" ]; then
		echo "btf-link --compare $*: exit $status (want 0, no output):"
		echo "$output"
		return 1
	fi
}

# link_as_pahole FILE FEATURES PAHOLE-FLAGS...: btf-link's BTF of FILE
# with --btf_features=FEATURES (ours.btf) means what pahole -J (1.24) makes
# of FILE with the flags (ref.btf); the differences are shown otherwise.
# btf-link gets --flat_arrays, as kbuild gives it for a pahole before 1.32.
link_as_pahole() {
	local file=$1 feats=$2
	shift 2
	pahole -J "$@" --btf_encode_detached=ref.btf "$file"
	"$BTF_LINK" --btf_features="$feats" --flat_arrays -o ours.btf "$file"
	run "$BTF_LINK" --compare ref.btf ours.btf
	if [ "$status" -ne 0 ] || [ -n "$output" ]; then
		echo "--btf_features=$feats against pahole $*: exit $status"
		echo "$output"
		return 1
	fi
}

# count_kind DUMP KIND NAME: how many KIND 'NAME' a bpftool dump has.
count_kind() {
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
