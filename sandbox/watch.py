"""inotify for the session runner (stdlib ctypes, Linux): which workspace paths were touched since the
last look, so finding changes costs O(changed files) instead of a walk over the whole tree.

No thread: the kernel queues events until `touched()` reads them. Whenever the picture could be
incomplete (queue overflow, a directory renamed, the root itself replaced), `touched()` returns None
and the caller walks the tree once and starts a fresh watcher."""

import ctypes
import os
import struct

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x1000000, 0x2000000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
EVENT = struct.Struct("iIII")


class Watcher:
    def __init__(self, root, skip):
        self.root = root
        self.skip = skip
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.dirs = {}  # watch descriptor -> directory, relative to root ("" is the root)
        try:
            self.add_tree("")
        except OSError:
            self.close()
            raise

    def add_tree(self, rel):
        top = os.path.join(self.root, rel) if rel else self.root
        for folder, subdirs, _ in os.walk(top):
            subdirs[:] = [name for name in subdirs if name not in self.skip]
            relative = os.path.relpath(folder, self.root)
            self.add(relative if relative != "." else "")

    def add(self, rel):
        path = os.path.join(self.root, rel) if rel else self.root
        wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), MASK)
        if wd < 0:
            error = ctypes.get_errno()
            if error in (2, 20):  # ENOENT, ENOTDIR: it vanished already; its parent's event covers it
                return
            raise OSError(error, "inotify_add_watch %s: %s" % (path, os.strerror(error)))
        self.dirs[wd] = rel

    def touched(self):
        """Paths (files or directories, relative) touched since the last call; None: walk everything."""
        touched = set()
        while True:
            try:
                data = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                return touched
            offset = 0
            while offset < len(data):
                wd, mask, _, size = EVENT.unpack_from(data, offset)
                name = data[offset + EVENT.size : offset + EVENT.size + size].rstrip(b"\0")
                offset += EVENT.size + size
                if mask & IN_Q_OVERFLOW:
                    return None
                base = self.dirs.get(wd)
                if base is None:
                    continue
                if mask & IN_IGNORED:
                    del self.dirs[wd]
                    continue
                if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
                    if base == "":
                        return None  # the root itself went away
                    continue  # the parent's IN_DELETE / IN_MOVED_FROM reports it
                if not name:  # an event on the watched folder itself
                    if base == "":
                        return None  # the root's own attributes changed (chmod .): look at everything
                    continue  # the parent's event, with this folder's name, reports it
                entry = os.fsdecode(name)
                rel = base + "/" + entry if base else entry
                if mask & IN_ISDIR:
                    if entry in self.skip:
                        continue
                    if mask & (IN_MOVED_FROM | IN_MOVED_TO):
                        return None  # a directory rename re-labels a whole subtree: start over
                    if mask & IN_CREATE:
                        try:
                            self.add_tree(rel)
                        except OSError:
                            return None
                touched.add(rel)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
