#!/usr/bin/env bash
# A private single-host Slurm cluster for the tests, everything in one folder:
#   tests/slurm_cluster.sh start DIR CPUS   MUNGE with a fresh key, slurmctld and slurmd (one node,
#                                           CPUS CPUs) on 127.0.0.1 and free ports; waits until the
#                                           node is idle. Then SLURM_CONF=DIR/slurm.conf points
#                                           sbatch, squeue and scontrol at it.
#   tests/slurm_cluster.sh stop DIR         ends its jobs and daemons, by PID (and every process
#                                           whose environment names DIR/slurm.conf: the jobs'),
#                                           whatever state start left them in.
#   tests/slurm_cluster.sh check            exit 0 when a cluster can be started here, else prints
#                                           why (not root, packages missing) and exits 1.
# DIR must be short (a Unix socket's path lives in it) and new; it is left for the caller to delete.
set -uo pipefail
PATH=$PATH:/usr/sbin:/sbin

check() {
  if [ "$(id -u)" != 0 ]; then
    echo "the daemons must run as root (slurmd starts jobs as their user); this is uid $(id -u)"
    return 1
  fi
  local missing=()
  for tool in munged slurmctld slurmd sbatch squeue scontrol sinfo scancel; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "missing ${missing[*]}: install Debian's slurm-wlm and munge (MMDIFF_SLURM=1 scripts/setup)"
    return 1
  fi
}

free_ports() {  # two free TCP ports on 127.0.0.1
  python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])'
}

start() {
  local dir=$1 cpus=$2
  check >&2 || return 1
  mkdir -p "$dir"/{munge,state,spool,log} || return 1
  chmod 700 "$dir" "$dir/munge"
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" || { cat "$dir/munge/munged.log" >&2; return 1; }
  local ports host
  read -r -a ports < <(free_ports)
  host=$(hostname)
  cat >"$dir/slurm.conf" <<EOF
# A private test cluster (tests/slurm_cluster.sh): one node on this host, 127.0.0.1 only.
ClusterName=mmdiff-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire: how long a requeued job waits before it may start again (default 120 s: the old
# run's credential must expire first); 10 s is plenty on one host.
AuthInfo=socket=$dir/munge/socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=30
MinJobAge=600
NodeName=mmdiff-test-node NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" || { cat "$dir/log/slurmctld.log" >&2; return 1; }
  slurmd -f "$SLURM_CONF" -N mmdiff-test-node || { cat "$dir/log/slurmd.log" >&2; return 1; }
  # Until the node is idle: a condition, bounded generously for a busy machine.
  for _ in $(seq 600); do
    [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && return 0
    sleep 0.2
  done
  echo "the node did not become idle in 120 s:" >&2
  sinfo -N >&2
  tail -20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2
  return 1
}

# PIDs of the processes whose environment holds SLURM_CONF=DIR/slurm.conf.
cluster_processes() {
  local want="SLURM_CONF=$1/slurm.conf" p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = $$ ] && continue
    grep -qzxF "$want" "$p/environ" 2>/dev/null && echo "${p#/proc/}"
  done
}

# Whether process $1 runs (a zombie does not: nobody may reap it in a container).
running() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# PIDs of the cluster's daemons that still run (from their pid files).
daemons() {
  local pidfile pid
  for pidfile in "$1/slurmd.pid" "$1/slurmctld.pid" "$1/munge/munged.pid"; do
    [ -f "$pidfile" ] && pid=$(cat "$pidfile") && running "$pid" && echo "$pid"
  done
}

signal_all() {  # DIR SIGNAL: the daemons, then every process started with the cluster's conf
  local pids
  pids="$(daemons "$1") $(cluster_processes "$1")"
  [ -n "${pids// /}" ] && kill -"$2" $pids 2>/dev/null
  return 0
}

stop() {
  local dir=$1
  # (Not exported: this script's own processes must not look like the cluster's.)
  if [ -f "$dir/slurm.conf" ] && SLURM_CONF="$dir/slurm.conf" scancel --quiet --full \
    --user="$(id -un)" >/dev/null 2>&1; then
    # Until the jobs are gone (their steps' daemons keep slurmd waiting), at most 20 s.
    for _ in $(seq 100); do
      [ -z "$(SLURM_CONF="$dir/slurm.conf" squeue -h -o %i 2>/dev/null | head -1)" ] && break
      sleep 0.2
    done
  fi
  signal_all "$dir" TERM
  for _ in $(seq 50); do
    [ -z "$(daemons "$dir")" ] && [ -z "$(cluster_processes "$dir")" ] && return 0
    sleep 0.2
  done
  signal_all "$dir" KILL
  return 0
}

case "${1:-}" in
  check) check ;;
  start) [ $# = 3 ] || { echo "usage: $0 start DIR CPUS" >&2; exit 2; }; start "$2" "$3" ;;
  stop) [ $# = 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
  *) echo "usage: $0 check | start DIR CPUS | stop DIR" >&2; exit 2 ;;
esac
