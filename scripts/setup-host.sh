#!/bin/bash
# Install what the harness needs on this (Debian bookworm) machine, once.
# usage: setup-host.sh [PACKAGE...]   (also these, for one target's needs)
set -euo pipefail
pkgs=(
	linux-source-6.1=6.1.192-3	# the pinned kernel tree
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio xz-utils kmod perl
	git qemu-system-x86 jq
	e2fsprogs xfsprogs ndctl	# run inside the guest, from the host's root
	gnuplot-nox fio stress-ng shellcheck
	libpmemobj-dev			# tests/pmdk_test: a PMDK application
	xfslibs-dev			# daxpages --collapse: XFS_IOC_SWAPEXT
	"$@"
)
missing=()
for p in "${pkgs[@]}"; do
	name=${p%%=*} want=${p#*=}
	have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
	case "$have" in
	"install ok installed "*)
		[ "$name" = "$p" ] || [ "${have##* }" = "$want" ] || missing+=("$p") ;;
	*) missing+=("$p") ;;
	esac
done
[ ${#missing[@]} = 0 ] && exit 0
echo "setup-host: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
