#!/bin/bash
# Get and build xfstests for `make xfstests`, outside this repository.
# usage: xfstests-prepare.sh DIR
#   DIR  an xfstests checkout (XFSTESTS=); if it does not exist it is cloned
#        from $XFSTESTS_GIT (default https://github.com/kdave/xfstests) at
#        $XFSTESTS_REF (default v2023.06.18; the newest tag if that is
#        missing)
# Installs the Debian packages xfstests needs to build and run (only here,
# so that `make test` does not pay for them), adds its test user fsgqa
# (generic/462, of -g dax, runs a program as that user), then runs `make`
# in DIR. The guest sees the host's root, /etc/passwd included, read-only,
# so it runs the tree built here with the users made here.
# The last line of output is "xfstests: DIR COMMIT (DESCRIPTION)".
set -euo pipefail
dir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
url=${XFSTESTS_GIT:-https://github.com/kdave/xfstests}
ref=${XFSTESTS_REF:-v2023.06.18}

# What its build needs (make, gcc and pkg-config come with setup-host.sh;
# liburing-dev, libcap-dev and libgdbm-dev only add programs the tests
# named by run-xfstests.sh do not use), and getfattr/setfacl, which many
# tests of -g quick want. Everything else they run (xfs_io, mkfs.*, fio,
# bc, perl) is there already.
"$here/scripts/setup-host.sh" \
	autoconf automake libtool-bin gawk uuid-dev xfslibs-dev libacl1-dev \
	libaio-dev acl attr

# xfstests' README makes fsgqa, fsgqa2 and 123456-fsgqa; only tests of
# -g quick want the other two (they do not run without them)
id fsgqa >/dev/null 2>&1 || {
	echo "xfstests: adding the user fsgqa (xfstests runs some tests as it)"
	useradd -m fsgqa
}

if [ ! -e "$dir" ]; then
	echo "xfstests: cloning $url at $ref into $dir"
	tmp=$dir.clone.$$
	rm -rf "$tmp"
	if ! git clone -q --no-checkout "$url" "$tmp"; then
		rm -rf "$tmp"
		echo "xfstests: no checkout at $dir and cannot clone $url;" \
			"pass XFSTESTS=/path/to/xfstests (a checkout), or XFSTESTS_GIT=URL" >&2
		exit 1
	fi
	if ! git -C "$tmp" rev-parse -q --verify "$ref^{commit}" >/dev/null; then
		new=$(git -C "$tmp" tag --sort=-creatordate | head -n1)
		echo "xfstests: $ref not found, using the newest tag, $new"
		ref=$new
	fi
	git -C "$tmp" -c advice.detachedHead=false checkout -q --detach "$ref"
	mv "$tmp" "$dir"
fi
[ -x "$dir/check" ] || {
	echo "xfstests: $dir has no ./check: not an xfstests checkout" >&2
	exit 1
}
case "$(realpath "$dir")" in
/tmp/*) echo "xfstests: warning: the guest has its own /tmp and cannot see $dir" >&2 ;;
esac
# make is incremental; a first build takes a few minutes on 2 cores
echo "xfstests: building in $dir (log: $dir/hugedax-build.log)"
if ! make -C "$dir" -j"$(nproc)" > "$dir/hugedax-build.log" 2>&1; then
	tail -n 30 "$dir/hugedax-build.log" >&2
	echo "xfstests: build failed in $dir" >&2
	exit 1
fi
for prog in ltp/fsx src/holetest src/t_mmap_dio; do
	[ -x "$dir/$prog" ] || { echo "xfstests: $dir/$prog was not built" >&2; exit 1; }
done
commit=$(git -C "$dir" rev-parse HEAD 2>/dev/null || echo unknown)
desc=$(git -C "$dir" describe --tags --always --dirty 2>/dev/null || echo "not a git checkout")
echo "xfstests: $(realpath "$dir") $commit ($desc)"
