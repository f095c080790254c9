#!/usr/bin/env python3
"""Send one QMP command to a running QEMU and print its "return" value as JSON.

usage: qmp.py SOCKET COMMAND [ARGUMENTS-JSON]
       qmp.py SOCKET block_resize '{"device": "drv-vd0", "size": 12884901888}'
       qmp.py SOCKET --batch < FILE

Exit status 0 on success; 1 when QEMU answers with an error (printed on stderr as
"CLASS: description"); 2 when the socket cannot be used.  Waits up to 10 s for the socket.
With --batch, each line of standard input is "COMMAND [ARGUMENTS-JSON]", all sent on one
connection, one result line each; errors are printed and counted, and the exit status is 1
if there was any.
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


def execute(f, command, args):
    cmd = {"execute": command}
    if args is not None:
        cmd["arguments"] = args
    f.write(json.dumps(cmd) + "\n")
    f.flush()
    return reply(f)


def batch(f):
    errors = 0
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        command, _, args = line.partition(" ")
        msg = execute(f, command, json.loads(args) if args else None)
        if "error" in msg:
            err = msg["error"]
            print(f"{command}: {err.get('class', 'Error')}: {err.get('desc', '')}", file=sys.stderr)
            errors += 1
        else:
            print(json.dumps(msg.get("return", {})))
    return 1 if errors else 0


def main():
    if len(sys.argv) == 3 and sys.argv[2] == "--batch":
        try:
            s = connect(sys.argv[1])
        except SystemExit as e:
            print(e, file=sys.stderr)
            return 2
        with s, s.makefile("rw") as f:
            reply(f)  # greeting
            execute(f, "qmp_capabilities", None)
            return batch(f)
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
        execute(f, "qmp_capabilities", None)
        msg = execute(f, command, args)
    if "error" in msg:
        err = msg["error"]
        print(f"{err.get('class', 'Error')}: {err.get('desc', '')}", file=sys.stderr)
        return 1
    print(json.dumps(msg.get("return", {})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
