# Hostile deliverable: phones home to a TCP listener on the host's loopback (port in argv[1]).
import socket
import sys

port = int(sys.argv[2])  # argv[1] is the test's marker
try:
    with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
        conn.sendall(b"exfiltrated")
    print("connected")
except OSError as error:
    print(f"blocked: {error}")
