#!/usr/bin/env python3
"""kube-sim's pods/portforward SPDY/3.1 session, driven frame by frame.

kubectl (moby/spdystream) never sends WINDOW_UPDATE or SETTINGS and never sends GOAWAY
before new streams, so test_kubectl_port_forward.py cannot see whether kube-sim keeps to
a peer's flow-control windows, answers PING, or drops streams opened after GOAWAY. This client
does, with header blocks compressed by Python's zlib against the SPDY/3 dictionary.
"""
import os
import socket
import struct
import sys
import threading
import http.server
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubesim import KubeSim  # noqa: E402
from test_kubectl_port_forward import NS, OBJECTS, Backend  # noqa: E402

# The SPDY/3 header dictionary (draft 3, section 2.6.10.1).
DICTIONARY = (
    b'\x00\x00\x00\x07options\x00\x00\x00\x04head\x00\x00\x00\x04post\x00\x00\x00\x03put\x00\x00\x00\x06delete\x00\x00\x00\x05'
    b'trace\x00\x00\x00\x06accept\x00\x00\x00\x0eaccept-charset\x00\x00\x00\x0faccept-enco'
    b'ding\x00\x00\x00\x0faccept-language\x00\x00\x00\raccept-ranges\x00\x00\x00\x03age\x00'
    b'\x00\x00\x05allow\x00\x00\x00\rauthorization\x00\x00\x00\rcache-control\x00\x00\x00\nco'
    b'nnection\x00\x00\x00\x0ccontent-base\x00\x00\x00\x10content-encoding\x00\x00\x00\x10'
    b'content-language\x00\x00\x00\x0econtent-length\x00\x00\x00\x10content-lo'
    b'cation\x00\x00\x00\x0bcontent-md5\x00\x00\x00\rcontent-range\x00\x00\x00\x0cconten'
    b't-type\x00\x00\x00\x04date\x00\x00\x00\x04etag\x00\x00\x00\x06expect\x00\x00\x00\x07expires\x00\x00\x00\x04f'
    b'rom\x00\x00\x00\x04host\x00\x00\x00\x08if-match\x00\x00\x00\x11if-modified-since\x00\x00\x00\r'
    b'if-none-match\x00\x00\x00\x08if-range\x00\x00\x00\x13if-unmodified-since'
    b'\x00\x00\x00\rlast-modified\x00\x00\x00\x08location\x00\x00\x00\x0cmax-forwards\x00\x00\x00'
    b'\x06pragma\x00\x00\x00\x12proxy-authenticate\x00\x00\x00\x13proxy-authoriza'
    b'tion\x00\x00\x00\x05range\x00\x00\x00\x07referer\x00\x00\x00\x0bretry-after\x00\x00\x00\x06serve'
    b'r\x00\x00\x00\x02te\x00\x00\x00\x07trailer\x00\x00\x00\x11transfer-encoding\x00\x00\x00\x07upgra'
    b'de\x00\x00\x00\nuser-agent\x00\x00\x00\x04vary\x00\x00\x00\x03via\x00\x00\x00\x07warning\x00\x00\x00\x10ww'
    b'w-authenticate\x00\x00\x00\x06method\x00\x00\x00\x03get\x00\x00\x00\x06status\x00\x00\x00\x06200'
    b' OK\x00\x00\x00\x07version\x00\x00\x00\x08HTTP/1.1\x00\x00\x00\x03url\x00\x00\x00\x06public\x00\x00\x00\ns'
    b'et-cookie\x00\x00\x00\nkeep-alive\x00\x00\x00\x06origin100101201202205'
    b'206300302303304305306307402405406407408409410411'
    b'412413414415416417502504505203 Non-Authoritative'
    b' Information204 No Content301 Moved Permanently4'
    b'00 Bad Request401 Unauthorized403 Forbidden404 N'
    b'ot Found500 Internal Server Error501 Not Impleme'
    b'nted503 Service UnavailableJan Feb Mar Apr May J'
    b'un Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, W'
    b'ed, Thu, Fri, Sat, Sun, GMTchunked,text/html,ima'
    b'ge/png,image/jpg,image/gif,application/xml,appli'
    b'cation/xhtml+xml,text/plain,text/javascript,publ'
    b'icprivatemax-age=gzip,deflate,sdchcharset=utf-8c'
    b'harset=iso-8859-1,utf-,*,enq=0.'
)
SYN_STREAM, SYN_REPLY, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 1, 2, 4, 6, 7, 9
FIN, INITIAL_WINDOW_SIZE = 1, 7


class Client:
    def __init__(self, sim, pod):
        host, port = sim.url.split("://")[1].rsplit(":", 1)
        raw = socket.create_connection((host, int(port)), timeout=30)
        self.sock = sim._ssl_context().wrap_socket(raw, server_hostname=host) if sim.tls else raw
        self.sock.sendall(("POST /api/v1/namespaces/%s/pods/%s/portforward HTTP/1.1\r\nHost: %s\r\n"
                           "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io"
                           "\r\nContent-Length: 0\r\n\r\n" % (NS, pod, host)).encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self.buf += self._recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101 "), head
        self.compress = zlib.compressobj(9, zdict=DICTIONARY)
        self.decompress = zlib.decompressobj(zdict=DICTIONARY)

    def _recv(self):
        chunk = self.sock.recv(65536)
        assert chunk, "kube-sim closed the connection"
        return chunk

    def control(self, kind, payload, flags=0):
        self.sock.sendall(struct.pack(">HHI", 0x8003, kind, (flags << 24) | len(payload)) + payload)

    def data(self, stream, payload, flags=0):
        self.sock.sendall(struct.pack(">II", stream, (flags << 24) | len(payload)) + payload)

    def syn_stream(self, stream, headers):
        block = struct.pack(">I", len(headers))
        for k, v in headers.items():
            block += struct.pack(">I", len(k)) + k.encode() + struct.pack(">I", len(v)) + v.encode()
        block = self.compress.compress(block) + self.compress.flush(zlib.Z_SYNC_FLUSH)
        self.control(SYN_STREAM, struct.pack(">IIH", stream, 0, 0) + block)

    def frame(self):
        """(control, type or stream id, flags, payload)."""
        while len(self.buf) < 8:
            self.buf += self._recv()
        first, second = struct.unpack(">II", self.buf[:8])
        size = 8 + (second & 0xffffff)
        while len(self.buf) < size:
            self.buf += self._recv()
        payload, self.buf = self.buf[8:size], self.buf[size:]
        control = bool(first & 0x80000000)
        if control and (first & 0xffff) == SYN_REPLY:
            self.decompress.decompress(payload[4:])  # keeps the zlib stream in step
        return control, (first & 0xffff) if control else first, second >> 24, payload


def main():
    backend = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Backend)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    try:
        with KubeSim(tls=True) as sim:
            sim.kubectl("apply", "-f", "-", input=OBJECTS)
            sim.kubectl("patch", "pod", "web-0", "-n", NS, "--subresource=status", "--type=merge",
                        "-p", '{"status": {"phase": "Running"}}')
            sim.admin("/sim/v1/services/proxy", "POST", {"namespace": NS, "name": "web",
                                                         "url": "http://127.0.0.1:%d" % backend.server_port})
            c = Client(sim, "web-0")
            # This peer keeps windows: 1 KiB per stream.
            c.control(SETTINGS, struct.pack(">III", 1, INITIAL_WINDOW_SIZE, 1024))
            c.syn_stream(1, {"streamtype": "error", "port": "8080", "requestid": "0"})
            c.syn_stream(3, {"streamtype": "data", "port": "8080", "requestid": "0"})
            request = b"GET /bytes/5000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            c.data(3, request, FIN)
            replies, updates, received, pinged = set(), set(), b"", False
            while len(received) < 1024 or not pinged:
                control, kind, flags, payload = c.frame()
                if control and kind == SYN_REPLY:
                    replies.add(struct.unpack(">I", payload[:4])[0])
                elif control and kind == WINDOW_UPDATE:
                    updates.add(struct.unpack(">II", payload))
                elif control and kind == PING:
                    assert payload == struct.pack(">I", 5), payload
                    pinged = True
                elif not control:
                    assert kind == 3 and not flags & FIN, (kind, flags)
                    received += payload
                    assert len(received) <= 1024, "kube-sim sent %d bytes into a 1024-byte window" % len(received)
                    if len(received) == 1024:
                        c.control(PING, struct.pack(">I", 5))  # its answer follows anything already sent
                else:
                    raise AssertionError("unexpected frame %r" % ((control, kind, flags, payload),))
            assert replies == {1, 3}, replies
            assert updates == {(3, len(request)), (0, len(request))}, updates
            # More window: the rest of the response, then both streams close.
            c.control(WINDOW_UPDATE, struct.pack(">II", 3, 8192))
            c.control(WINDOW_UPDATE, struct.pack(">II", 0, 8192))
            closed = set()
            while closed != {1, 3}:
                control, kind, flags, payload = c.frame()
                assert not control, (kind, payload)
                if kind == 3:
                    received += payload
                else:
                    assert kind == 1 and payload == b"", (kind, payload)  # no error
                if flags & FIN:
                    closed.add(kind)
            body = (b"0123456789abcdef" * 313)[:5000]
            assert received.startswith(b"HTTP/1.1 200 ") and received.endswith(b"\r\n\r\n" + body), received[:200]
            # After the client's GOAWAY a new stream goes unanswered, as kubelet's spdystream
            # drops it (Connection.checkStreamFrame): the PING sent after it is answered first.
            c.control(GOAWAY, struct.pack(">II", 0, 0))
            c.syn_stream(5, {"streamtype": "error", "port": "8080", "requestid": "1"})
            c.control(PING, struct.pack(">I", 7))
            control, kind, flags, payload = c.frame()
            assert control and kind == PING and payload == struct.pack(">I", 7), (control, kind, payload)
            c.sock.close()
    finally:
        backend.shutdown()
    print("ok")


if __name__ == "__main__":
    main()
