#!/usr/bin/env python3
"""hosts_forward.py ADDR PORT: forwards TCP connections to ADDR:PORT to
127.0.0.1:PORT, in the test host it runs in (tests/e2e/hosts_lib.sh): the
reference daemon listens on loopback only, and the client runs in another
host. Prints 'forwarding ADDR:PORT' once it listens."""
import socket
import sys
import threading


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(64)
    print(f"forwarding {addr}:{port}", flush=True)
    while True:
        c, _ = ls.accept()
        u = socket.create_connection(("127.0.0.1", port))
        for s in (c, u):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=pump, args=(c, u), daemon=True).start()
        threading.Thread(target=pump, args=(u, c), daemon=True).start()


main()
