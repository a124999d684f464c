# A long-lived spawner for the spawn-cost experiment (bench/spawner/README.md): Node asks, this small
# process forks. Node's own child_process.spawn forks the whole Node process (its page tables grow with its
# RSS); this process is a few MB, and CPython forks children with vfork where it can.
#
# Requests, one JSON line each on stdin:
#   {"op": "spawn", "id": 1, "argv": [...], "cwd": "...", "env": {...} | null, "input": "<base64>" | null}
#   {"op": "drop", "id": 1}   stop reading a child's pipes (an escaped grandchild may hold them open)
# Answers on stdout, frames of [kind u8][id u32 BE][length u32 BE][payload]:
#   1 spawned: the pid in ASCII · 2 stdout bytes · 3 stderr bytes · 5 spawn error: JSON {code, message}
#   4 done: JSON {"code": int | null, "signal": int | null} once the child is reaped and both pipes closed
# Children run in their own session (process group), like runProcess's `detached: true`, so Node can kill
# the whole tree by pid and group. Memory stays bounded: a frame is at most one 64 KiB read, and writes to
# Node block, which stops reading the children until Node catches up.
import errno
import json
import os
import selectors
import signal
import struct
import sys

CHUNK = 64 * 1024
out = sys.stdout.buffer
sel = selectors.DefaultSelector()
runs = {}  # id -> {"pid", "open": {stream kind: fd}, "input": bytes, "exit": (code, signal) | None}


def frame(kind, run_id, payload=b''):
    out.write(struct.pack('>BII', kind, run_id, len(payload)))
    out.write(payload)
    out.flush()


def finish_if_done(run_id):
    run = runs.get(run_id)
    if run is None or run['open'] or run['exit'] is None:
        return
    code, sig = run['exit']
    frame(4, run_id, json.dumps({'code': code, 'signal': sig}).encode())
    del runs[run_id]


def reap():
    for run_id, run in list(runs.items()):
        if run['exit'] is not None:
            continue
        try:
            pid, status = os.waitpid(run['pid'], os.WNOHANG)
        except ChildProcessError:
            pid, status = run['pid'], 0
        if pid == 0:
            continue
        if os.WIFSIGNALED(status):
            run['exit'] = (None, os.WTERMSIG(status))
        else:
            run['exit'] = (os.waitstatus_to_exitcode(status), None)
        finish_if_done(run_id)


def close_stream(run_id, kind, fd):
    try:
        sel.unregister(fd)
    except (KeyError, ValueError):
        pass
    os.close(fd)
    run = runs.get(run_id)
    if run is not None:
        run['open'].pop(kind, None)


def spawn(req):
    """posix_spawnp: glibc starts the child with vfork semantics, so the cost does not grow with our size."""
    run_id = req['id']
    wants_input = req.get('input') is not None
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if wants_input else (None, None)
    actions = [
        (os.POSIX_SPAWN_DUP2, in_r, 0) if wants_input else (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, out_w, 1),
        (os.POSIX_SPAWN_DUP2, err_w, 2),
    ]
    env = req.get('env')
    try:
        # posix_spawn has no chdir (Python does not expose addchdir_np): this process is single-threaded.
        os.chdir(req['cwd'])
        pid = os.posix_spawnp(req['argv'][0], req['argv'], env if env is not None else os.environ,
                              file_actions=actions, setsid=True)
    except OSError as error:
        for fd in (out_r, out_w, err_r, err_w, in_r, in_w):
            if fd is not None:
                os.close(fd)
        code = errno.errorcode.get(error.errno, 'EIO')
        frame(5, run_id, json.dumps({'code': code, 'message': str(error)}).encode())
        return
    for fd in (out_w, err_w, in_r):
        if fd is not None:
            os.close(fd)
    run = {'pid': pid, 'open': {2: out_r, 3: err_r}, 'exit': None}
    runs[run_id] = run
    frame(1, run_id, str(pid).encode())
    for kind, fd in ((2, out_r), (3, err_r)):
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ, (run_id, kind))
    if wants_input:
        import base64

        run['input'] = memoryview(base64.b64decode(req['input']))
        os.set_blocking(in_w, False)
        sel.register(in_w, selectors.EVENT_WRITE, (run_id, 0))


def write_input(run_id, fd):
    run = runs.get(run_id)
    data = run['input'] if run else b''
    try:
        n = os.write(fd, data[:CHUNK]) if data else 0
        if run:
            run['input'] = data[n:]
        if n < len(data):
            return
    except BlockingIOError:
        return
    except OSError:
        pass  # EPIPE: the child exits without reading its input, which is not an error
    sel.unregister(fd)
    os.close(fd)


def on_request(line):
    req = json.loads(line)
    if req['op'] == 'spawn':
        spawn(req)
    elif req['op'] == 'drop':
        run = runs.get(req['id'])
        if run is not None:
            for kind, fd in list(run['open'].items()):
                close_stream(req['id'], kind, fd)
            finish_if_done(req['id'])


def main():
    # SIGCHLD wakes the selector through a pipe, so a child's exit is seen at once.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    os.set_blocking(wake_r, False)
    sel.register(wake_r, selectors.EVENT_READ, ('wake', 0))
    stdin = sys.stdin.buffer.raw
    os.set_blocking(stdin.fileno(), False)
    sel.register(stdin, selectors.EVENT_READ, ('requests', 0))
    pending = b''
    while True:
        for key, _ in sel.select():
            tag, kind = key.data
            if tag == 'wake':
                try:
                    os.read(wake_r, 4096)
                except BlockingIOError:
                    pass
                reap()
            elif tag == 'requests':
                try:
                    data = os.read(stdin.fileno(), CHUNK)
                except BlockingIOError:
                    continue
                if not data:
                    return  # Node has gone: so do we (children keep their own sessions)
                pending += data
                *lines, pending = pending.split(b'\n')
                for line in lines:
                    if line:
                        on_request(line)
            elif kind == 0:
                write_input(tag, key.fd)
            else:
                try:
                    data = os.read(key.fd, CHUNK)
                except BlockingIOError:
                    continue
                if data:
                    frame(kind, tag, data)
                else:
                    close_stream(tag, kind, key.fd)
                    finish_if_done(tag)
        reap()


if __name__ == '__main__':
    main()
