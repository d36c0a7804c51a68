#!/bin/sh
# The short, fixed stress set for `make test`: two seeds per target, 700
# operations each (SHORT_OPS; 2000 on ext2, the fastest), on small files
# (1.25 GiB on xfs, so that 1 GiB mappings can occur), and one negative
# control (a byte changed behind the model's back must be found).
# Runs on the filesystems guest/test-job.sh left mounted.
here=/mnt/repo/guest
SEEDS="11 12" OPS=${SHORT_OPS:-700} OPS_EXT2=2000 CHECKS=2 SIZE_EXT4=256M SIZE_XFS=1280M \
	SIZE_EXT2=256M sh "$here/stress-run.sh"
status=$?
echo "hugedax-test: begin dax_stress negative control"
/mnt/out/bin/dax_stress -s 13 -n 500 -S 64M -X 200 /mnt/ext4/stress-control
echo "hugedax-test: end dax_stress negative control status $?"
rm -f /mnt/ext4/stress-control
exit "$status"
