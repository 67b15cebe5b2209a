#!/usr/bin/env bats
# The library's containers (libarchive-btf/util/util.c's abtf__grow() and string
# interning, hashmap.c): tests/unit/containers.c, compiled now with their
# sources. Everything else tests them through cc-btf and btf-link; this
# holds the growth helper to its overflow check, which no valid input
# reaches, and the error words to libbpf's codes (LIBBPF_ERRNO__*), which
# strerror() calls "Unknown error 4003"; and the byte order swap of raw
# BTF to the bytes it is given, whatever lengths they claim (under ASan
# and UBSan where gcc has them).

load test_helper

@test "containers: growth refuses overflowing sizes; the hash map and string interning; the BTF swap" {
	need_cmd gcc pkg-config
	local lib=$ABTF_TOP/libarchive-btf san=()
	echo 'int main(void){return 0;}' > probe.c
	gcc -fsanitize=address,undefined -o probe probe.c 2>/dev/null &&
		san=(-fsanitize=address,undefined -fno-sanitize-recover=all)
	# shellcheck disable=SC2046
	gcc -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Wno-unused-parameter "${san[@]}" \
		-I"$lib" $(pkg-config --cflags libelf) \
		-o containers "$ABTF_TOP/tests/unit/containers.c" \
		"$lib/util/util.c" "$lib/util/hashmap.c" $(pkg-config --libs libbpf)
	run timeout 60 ./containers
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}
