# SPDX-License-Identifier: GPL-2.0
"""One handle, several threads: the same answers, and close() while others read."""
import threading

import kmemdev
from conftest import task_list


def test_threads_share_a_handle(k):
    want_banner = k.read("linux_banner", 64)
    base = k.symbol("_stext")
    want_v = k.readv([(base + 64 * i, 64) for i in range(32)])
    want_sym = k.symbolize(base)
    assert want_sym.addr == base
    errors = []

    def work():
        try:
            for _ in range(30):
                assert k.read("linux_banner", 64) == want_banner
                assert k.readv([(base + 64 * i, 64) for i in range(32)]) == want_v
                assert any(t.pid == 1 for t in task_list(k, ["pid"]))
                assert k.symbolize(base) == want_sym
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_close_while_others_read():
    h = kmemdev.open()
    started = threading.Barrier(5)
    outcome = []

    def work():
        started.wait()
        try:
            while True:
                h.read("linux_banner", 4096)
        except ValueError as e:
            outcome.append(str(e))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    started.wait()
    h.close()
    for t in threads:
        t.join()
    assert len(outcome) == 4 and all("closed" in o for o in outcome)
