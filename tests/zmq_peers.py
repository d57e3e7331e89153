"""A fake zmq worker for the transport's tests: it joins a trunk, answers SETUP with READY, every
PASS with what the test says, STOP with BYE, and ends when nothing comes for a while."""

import threading

import zmq

from solverkit import __version__
from solverkit.core.wire import pack_header, unpack_header
from solverkit_transports.protocol import PROTOCOL

#: the statistics a READY (and a RESULT) carries
STATS = {"stored_bytes": 0, "num_values": 0, "peak_rss_mb": 1.0, "saturated": 0}


def fake_worker(endpoint, on_pass, host="fake", pid=4242, timeout_ms=5000):
    """A thread that joins as a worker and answers every PASS with on_pass(header); it stops on
    STOP or after `timeout_ms` without a message."""

    def run():
        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVTIMEO, timeout_ms)
        sock.connect(endpoint)
        try:
            sock.send(pack_header({"type": "hello", "protocol": PROTOCOL, "solverkit": __version__, "host": host,
                                   "pid": pid, "threads": 1}))
            while True:
                header = unpack_header(sock.recv_multipart()[0], "test")
                if header["type"] == "setup":
                    sock.send(pack_header({"type": "ready", "id": header["id"], **STATS}))
                elif header["type"] == "pass":
                    sock.send_multipart(on_pass(header))
                elif header["type"] == "stop":
                    sock.send(pack_header({"type": "bye", "id": header["id"]}))
                    return
        except zmq.Again:
            return
        finally:
            ctx.destroy(0)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread
