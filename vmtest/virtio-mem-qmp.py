#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""The host side of run.sh's +virtio-mem: resize the guest's virtio-mem device
when the guest asks.

    virtio-mem-qmp.py QMP_SOCKET SERIAL_LOG

Follows the guest's serial log; for each "@@VMEM_REQUEST BYTES" line sets the
device's requested-size (qom-set vm0 requested-size BYTES) over QEMU's QMP
socket.  The guest's virtio_mem driver then plugs or unplugs memory, and the
guest watches it happen in its own /proc and /sys (tests/vm/virtio_mem_test.c).
Exits when QEMU closes the socket; a request QEMU refuses is printed on
stderr, and the guest, never seeing its memory change, fails on its alarm.
"""
import json
import os
import re
import select
import socket
import sys
import time

REQUEST = re.compile(rb"@@VMEM_REQUEST (\d+)")


def connect(path, wait=60.0):
    """QEMU's QMP socket, once QEMU has made it."""
    deadline = time.monotonic() + wait
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


class Qmp:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def message(self):
        """The next JSON message; None when QEMU has gone."""
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                return None
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command, **arguments):
        """Run @command; its error's description, or None on success."""
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self.message()
            if reply is None:
                return "QEMU went away"
            if "return" in reply:
                return None
            if "error" in reply:
                return reply["error"].get("desc", str(reply["error"]))
            # an event (MEMORY_DEVICE_SIZE_CHANGE, ...): not the reply


def open_log(path, wait=60.0):
    deadline = time.monotonic() + wait
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise FileNotFoundError(path)
        time.sleep(0.1)
    return open(path, "rb")


def main():
    qmp_path, log_path = sys.argv[1:3]
    qmp = Qmp(connect(qmp_path))
    qmp.message()  # the greeting
    err = qmp.execute("qmp_capabilities")
    if err:
        sys.exit(f"virtio-mem-qmp: qmp_capabilities: {err}")
    log = open_log(log_path)
    pending = b""
    while True:
        readable, _, _ = select.select([qmp.sock], [], [], 0.05)
        if readable:
            # events only, between requests; nothing at all once QEMU exits
            if not qmp.sock.recv(65536, socket.MSG_PEEK):
                return
            qmp.message()
        pending += log.read()
        *lines, pending = pending.split(b"\n")
        for line in lines:
            m = REQUEST.search(line)
            if not m:
                continue
            size = int(m.group(1))
            err = qmp.execute("qom-set", path="vm0", property="requested-size", value=size)
            if err:
                print(f"virtio-mem-qmp: requested-size {size}: {err}", file=sys.stderr)


if __name__ == "__main__":
    main()
