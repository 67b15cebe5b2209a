#!/bin/bash
# Benchmark: btf-link versus pahole -J on the same linked image.
#
#   bench/link.sh IMAGE [RUNS]
#
# IMAGE is a linked file whose .BTF is a cc-btf archive and which still has
# its DWARF (e.g. a kernel's .tmp_vmlinux.btf, or 6.12's .tmp_vmlinux1,
# built with CC="cc-btf gcc"). pahole runs with the kernel's flags for it,
# btf-link with the same features. Reports wall, user+sys CPU and peak RSS
# of each (best of RUNS), and checks that both BTFs mean the same
# (btf-link --compare).
#
# Environment:
#   PAHOLE          the pahole to run (default: pahole)
#   PAHOLE_FLAGS    its flags (default: what 6.1 and 6.12 give pahole 1.24,
#                   "--btf_gen_floats -j --lang_exclude=rust"); for 6.12
#                   and pahole 1.26+: "-j --btf_features=encode_force,var,
#                   float,enum64,decl_tag,type_tag,optimized_func,
#                   consistent_func,decl_tag_kfuncs"
#   BTF_LINK_FLAGS  btf-link's (default: none, its default features); what
#                   the kbuild patches give it: --btf_features=LIST
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${ABTF_BUILD:-$top/build}
img=${1:?usage: bench/link.sh IMAGE [RUNS]}
runs=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: best wall time of $runs, with its CPU and peak RSS
run() {
	local name=$1 best= line
	shift
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" >/dev/null 2>&1
		line=$(cat "$tmp/t")
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" \
			'BEGIN { split(a, x); split(b, y); exit !(x[1] < y[1]) }'; then
			best=$line
		fi
	done
	read -r wall usr sys rss <<< "$best"
	printf '%-10s %8.2f s %8.2f s %10d KB\n' "$name" "$wall" \
		"$(echo "$usr + $sys" | bc)" "$rss"
	echo "$wall $(echo "$usr + $sys" | bc) $rss" > "$tmp/$name.res"
}

printf '%-10s %10s %10s %13s\n' tool wall cpu peak-rss
pahole=${PAHOLE:-pahole}
read -r -a pahole_flags <<< "${PAHOLE_FLAGS:---btf_gen_floats -j --lang_exclude=rust}"
read -r -a link_flags <<< "${BTF_LINK_FLAGS:-}"
echo "pahole: $("$pahole" --version) ${pahole_flags[*]}; btf-link ${link_flags[*]}"
cp "$img" "$tmp/img"
run pahole "$pahole" -J "${pahole_flags[@]}" \
	--btf_encode_detached="$tmp/pahole.btf" "$tmp/img"
run btf-link "$build/bin/btf-link" "${link_flags[@]}" -o "$tmp/ours.btf" "$tmp/img"
read -r pw pc pr < "$tmp/pahole.res"
read -r ow oc orss < "$tmp/btf-link.res"
echo
awk -v pw="$pw" -v ow="$ow" -v pc="$pc" -v oc="$oc" -v pr="$pr" -v orss="$orss" \
	'BEGIN { printf "btf-link / pahole: wall %.2fx, cpu %.2fx, peak rss %.2fx\n",
		 ow / pw, oc / pc, orss / pr }'
"$build/bin/btf-link" "${link_flags[@]}" -v -o "$tmp/ours.btf" "$tmp/img" 2>&1 | sed 's/^/  /'
printf 'input .BTF archive: %d bytes; pahole BTF: %d bytes; ours: %d bytes\n' \
	"$(objcopy --dump-section .BTF="$tmp/a" "$tmp/img" /dev/null && stat -c %s "$tmp/a")" \
	"$(stat -c %s "$tmp/pahole.btf")" "$(stat -c %s "$tmp/ours.btf")"
if "$build/bin/btf-link" --compare "$tmp/pahole.btf" "$tmp/ours.btf" > "$tmp/diff"; then
	echo "semantically equal to pahole"
else
	echo "differences from pahole: $(wc -l < "$tmp/diff") (first 20:)"
	head -20 "$tmp/diff"
fi
