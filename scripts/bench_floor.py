"""The floor of a small request: the same 1 KiB GET exchanged over bare loopback
sockets with the target, no HTTP client, no signing, no recording.

64 connections, each one request in flight, written and read off an epoll loop (the
way keystorm's fast client does): what the kernel's side of each exchange costs this
process (its system CPU time), below which no client's CPU per request goes on this
machine. The loop itself is Python, so only the kernel figure is a floor."""

import http.client
import resource
import selectors
import socket
import sys
import time
from urllib.parse import urlsplit

KIB = 1024


def small_get(endpoint, n, conc=64):
    """{closed.get.floor.sys_us}: system CPU µs per GET of a 1 KiB object, `n` GETs
    over `conc` connections to `endpoint` (a sim that does not check signatures)."""
    url = urlsplit(endpoint)
    host, port = url.hostname, url.port or 80
    put(host, port, "/floor", b"")
    put(host, port, "/floor/object", b"x" * KIB)
    request = f"GET /floor/object HTTP/1.1\r\nhost: {url.netloc}\r\n\r\n".encode()
    sel = selectors.DefaultSelector()
    conns = []
    for _ in range(conc):
        s = socket.create_connection((host, port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        conns.append(s)
        sel.register(s, selectors.EVENT_READ, bytearray())
    buf = bytearray(64 * KIB)
    view = memoryview(buf)
    sent = done = 0
    started = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_THREAD)
    for s in conns[:n]:
        s.send(request)
        sent += 1
    while done < n:
        for key, _ in sel.select():
            got = key.data
            k = key.fileobj.recv_into(buf)
            if k == 0:
                sys.exit("floor: the target closed a connection")
            got += view[:k]
            if not whole_response(got):
                continue
            del got[:]
            done += 1
            if sent < n:
                key.fileobj.send(request)
                sent += 1
    after = resource.getrusage(resource.RUSAGE_THREAD)
    wall = time.monotonic() - started
    for s in conns:
        sel.unregister(s)
        s.close()
    return {"closed.get.floor.sys_us": (after.ru_stime - before.ru_stime) * 1e6 / n,
            "closed.get.floor.ops_per_s": n / wall}


def whole_response(got):
    """Whether `got` holds a whole response: its head, then Content-Length bytes."""
    end = got.find(b"\r\n\r\n")
    if end < 0:
        return False
    for line in bytes(got[:end]).split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(got) - end - 4 >= int(value)
    sys.exit("floor: a response without Content-Length")


def put(host, port, path, body):
    c = http.client.HTTPConnection(host, port, timeout=10)
    c.request("PUT", path, body=body)
    r = c.getresponse()
    r.read()
    c.close()
    if r.status >= 300 and not (path.count("/") == 1 and r.status == 409):
        sys.exit(f"floor: PUT {path} answered {r.status}")


if __name__ == "__main__":
    print(small_get(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100_000))
