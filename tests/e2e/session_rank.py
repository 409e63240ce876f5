"""A rank of tests/e2e/rank_sessions_test.sh: it starts a child, which starts a grandchild; each of the
three writes "ROLE PID SID AUTOGROUP" to DIR/up<RANK> once it is ready, and its role to DIR/int<RANK>
when SIGINT reaches it, then waits for the one it started (the launch kills what is left of a rank's
group once the rank ends) and exits 0. The grandchild ignores SIGTERM, as a stuck helper would.
    session_rank.py ROLE DIR MARKER      (ROLE: rank, child or grandchild; MARKER: for pgrep -f)
"""
import os
import signal
import subprocess
import sys
import time

role, out, marker = sys.argv[1:4]
rank = os.environ["RANK"]


started = []


def on_int(*_):
    with open(os.path.join(out, "int" + rank), "a") as f:
        f.write(role + "\n")
    for process in started:
        process.wait()
    os._exit(0)


signal.signal(signal.SIGINT, on_int)
if role == "grandchild":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
following = {"rank": "child", "child": "grandchild"}.get(role)
if following:
    started.append(subprocess.Popen([sys.executable, __file__, following, out, marker]))
try:
    with open("/proc/self/autogroup") as f:
        autogroup = f.read().split()[0]
except OSError:
    autogroup = "-"
with open(os.path.join(out, "up" + rank), "a") as f:
    f.write("%s %d %d %s\n" % (role, os.getpid(), os.getsid(0), autogroup))
while True:
    time.sleep(300)
