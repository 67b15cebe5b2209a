# The entry point every bats file loads (load test_helper): the shared
# helpers of tests/lib/, one file per concern, and each test's own
# directory. (tests/lib/e2e.bash, for the kernel end-to-end files, is
# loaded by those alone.)
# shellcheck shell=bash source-path=SCRIPTDIR

# Found from this file, not from the test file's directory: a bats file
# written elsewhere (tests/reliability.bats's probe) loads this one too.
ABTF_LIB=$(dirname "${BASH_SOURCE[0]}")/lib
# shellcheck source=lib/tools.bash
source "$ABTF_LIB/tools.bash"
# shellcheck source=lib/files.bash
source "$ABTF_LIB/files.bash"
# shellcheck source=lib/output.bash
source "$ABTF_LIB/output.bash"
# shellcheck source=lib/btf.bash
source "$ABTF_LIB/btf.bash"
# shellcheck source=lib/build.bash
source "$ABTF_LIB/build.bash"
# shellcheck source=lib/kernel.bash
source "$ABTF_LIB/kernel.bash"

# Every test gets its own directory, so that bats --jobs is safe.
setup() {
	WORK=$BATS_TEST_TMPDIR
	cd "$WORK" || return 1
}
