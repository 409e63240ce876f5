"""A rank that waits for the signal before the walltime, as a checkpointing training script does.

end_signal_rank.py MARKERS [SECONDS]: on USR1 or USR2 it appends "RANK TIME SIGNAL HOST" to MARKERS
and exits 0; without a signal it gives up after SECONDS (default 30) with exit 3.
"""
import os
import signal
import socket
import sys
import time


def on_signal(number, frame):
    host = os.environ.get("SLURMD_NODENAME") or socket.gethostname()
    with open(sys.argv[1], "a") as markers:
        markers.write("%s %.3f %s %s\n" % (os.environ.get("RANK", "?"), time.time(), signal.Signals(number).name, host))
    sys.exit(0)


signal.signal(signal.SIGUSR2, on_signal)
signal.signal(signal.SIGUSR1, on_signal)
print("rank", os.environ.get("RANK", "?"), "ready", flush=True)
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 30)
sys.exit(3)
