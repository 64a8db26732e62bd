#!/bin/sh
# Delegates a cgroup subtree to the user Fusebox runs as, so that an unprivileged Fusebox can give each sandbox
# the same pids and memory cgroup a root one does (rlimits alone cannot bound the memory of all of a sandbox's
# processes and its kernel objects together). Run as root, once per boot: cgroup file systems do not persist.
#
#   sudo packages/local-sandbox/bin/delegate-cgroups.sh fusebox
#
# It creates /sys/fs/cgroup/{pids,memory}/fusebox-<uid> (and cpuacct, where mounted: forked runs report their CPU
# time from it) and gives the user the directory and its process lists,
# as systemd's Delegate= does: the user may create cgroups beneath it and move its own processes between them,
# but not change this cgroup's own limits, which stay root's (write a total for all sandboxes into its
# memory.limit_in_bytes or pids.max if you want one). Fusebox run as that user finds it by its uid.
set -eu

if [ "$#" -ne 1 ]; then
  echo "usage: $0 <user Fusebox runs as>" >&2
  exit 2
fi
uid=$(id -u "$1")
gid=$(id -g "$1")
if [ "$uid" -eq 0 ]; then
  echo "$1 is root: a root Fusebox makes its own cgroups, nothing to delegate" >&2
  exit 2
fi
for controller in pids memory cpuacct cpu; do
  if { [ "$controller" = cpuacct ] || [ "$controller" = cpu ]; } && [ ! -e "/sys/fs/cgroup/$controller/cgroup.procs" ]; then
    continue
  fi
  if [ ! -e "/sys/fs/cgroup/$controller/cgroup.procs" ]; then
    echo "no cgroup v1 $controller hierarchy at /sys/fs/cgroup/$controller" >&2
    exit 1
  fi
  dir="/sys/fs/cgroup/$controller/fusebox-$uid"
  mkdir -p "$dir"
  chown "$uid:$gid" "$dir" "$dir/cgroup.procs" "$dir/tasks"
done
echo "delegated /sys/fs/cgroup/{pids,memory,cpuacct,cpu}/fusebox-$uid to $1 (uid $uid)"
