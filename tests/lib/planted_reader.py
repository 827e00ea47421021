#!/usr/bin/env python3
"""A planted reader, run as another user by the sticky-directory tests:
fifo|socket PATH READY DONE OUT. Makes PATH (a FIFO mode 0622, or a listening
Unix stream socket), holds it open for reading without blocking, creates
READY, then reads whatever arrives until DONE exists and nothing is left, and
writes the number of bytes it received to OUT."""
import os
import select
import socket
import sys

kind, path, ready, done, out = sys.argv[1:6]
n = 0
if kind == "fifo":
    os.mkfifo(path)
    os.chmod(path, 0o622)
    fds = [os.open(path, os.O_RDONLY | os.O_NONBLOCK)]
    listener = None
else:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(4)
    listener.setblocking(False)
    fds = []
open(ready, "w").close()
while True:
    finished = os.path.exists(done)
    got = False
    if listener is not None:
        try:
            c, _ = listener.accept()
            fds.append(c.detach())
            got = True
        except BlockingIOError:
            pass
    for fd in fds:
        try:
            b = os.read(fd, 65536)
        except BlockingIOError:
            b = b""
        n += len(b)
        got = got or bool(b)
    if not got and finished:
        break
    if not got:
        select.select([], [], [], 0.05)  # a FIFO without a writer reads as EOF
with open(out, "w") as f:
    f.write(str(n))
