#!/usr/bin/env python3
"""bounded_run.py SECONDS CMD [ARG...]

Runs CMD with its output on our stdout/stderr, kills it (SIGKILL) if it runs
longer than SECONDS, and prints on a last line of stderr
"bounded_run: status S maxrss_kb K killed 0|1" (S: its exit status, 128+N
for a signal): a measure of the child alone (wait4), not of its parent.
"""
import os
import signal
import sys
import time


def main():
    limit = float(sys.argv[1])
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(sys.argv[2], sys.argv[2:])
        finally:
            os._exit(127)
    end = time.monotonic() + limit
    killed = 0
    while True:
        p, status, ru = os.wait4(pid, os.WNOHANG)
        if p == pid:
            break
        if time.monotonic() > end and not killed:
            os.kill(pid, signal.SIGKILL)
            killed = 1
        time.sleep(0.01)
    code = os.waitstatus_to_exitcode(status)
    code = code if code >= 0 else 128 - code
    print("bounded_run: status %d maxrss_kb %d killed %d" % (code, ru.ru_maxrss, killed),
          file=sys.stderr)


if __name__ == "__main__":
    main()
