"""Runs `gnl operators add <login> --name "Tty User" --by root@example.com` on a pseudo-terminal, types the
two passwords when asked, and prints everything the terminal showed, then `exit <code>`."""
import os
import pty
import sys
import time

login, first, second = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execvp('node', ['node', 'bin/gnl.mjs', 'operators', 'add', login, '--name', 'Tty User', '--by', 'root@example.com'])

shown = b''


def read_until(token, timeout=60):
    global shown
    end = time.time() + timeout
    while time.time() < end and token not in shown:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            return
        if not chunk:
            return
        shown += chunk


read_until(b'Password')
os.write(fd, first.encode() + b'\r')
read_until(b'again')
os.write(fd, second.encode() + b'\r')
while True:
    try:
        chunk = os.read(fd, 1024)
    except OSError:
        break
    if not chunk:
        break
    shown += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(shown.decode('utf8', 'replace'))
sys.stdout.write(f'\nexit {os.waitstatus_to_exitcode(status)}\n')
