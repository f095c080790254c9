#!/usr/bin/env python3
"""Send one QMP command to a running QEMU and print its "return" value as JSON.

usage: qmp.py SOCKET COMMAND [ARGUMENTS-JSON]
       qmp.py SOCKET block_resize '{"device": "drv-vd0", "size": 12884901888}'

Exit status 0 on success; 1 when QEMU answers with an error (printed on stderr as
"CLASS: description"); 2 when the socket cannot be used.  Waits up to 10 s for the socket.
"""

import json
import socket
import sys
import time


def connect(path, wait=10.0):
    deadline = time.monotonic() + wait
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError as e:
            s.close()
            if time.monotonic() > deadline:
                raise SystemExit(f"qmp.py: cannot connect to {path}: {e}; is QEMU running with -qmp?") from None
            time.sleep(0.05)


def reply(f):
    """Next non-event message."""
    while True:
        line = f.readline()
        if not line:
            raise SystemExit("qmp.py: QEMU closed the QMP connection")
        msg = json.loads(line)
        if "event" not in msg:
            return msg


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    path, command = sys.argv[1], sys.argv[2]
    args = json.loads(sys.argv[3]) if len(sys.argv) == 4 else None
    try:
        s = connect(path)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    with s, s.makefile("rw") as f:
        reply(f)  # greeting
        f.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
        f.flush()
        reply(f)
        cmd = {"execute": command}
        if args is not None:
            cmd["arguments"] = args
        f.write(json.dumps(cmd) + "\n")
        f.flush()
        msg = reply(f)
    if "error" in msg:
        err = msg["error"]
        print(f"{err.get('class', 'Error')}: {err.get('desc', '')}", file=sys.stderr)
        return 1
    print(json.dumps(msg.get("return", {})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
