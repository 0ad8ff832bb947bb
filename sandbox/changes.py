"""Workspace file access for the session runner: change tracking and bulk read/write.

Change tracking compares `lstat` signatures (mtime, ctime, size, mode, inode) of the paths inotify
saw touched (or of the whole tree when it cannot), so the host only pulls what changed. Paths are POSIX, relative to the workspace; symlinks are reported as
such and read as their target, never followed."""

import os
import stat

import watch  # noqa: E402  (sibling module, bundled by the host)

SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}


def scan(root):
    entries = {}
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            iterator = os.scandir(os.path.join(root, rel) if rel else root)
        except OSError:
            continue
        with iterator:
            for entry in iterator:
                path = rel + "/" + entry.name if rel else entry.name
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    if entry.name not in SKIP_DIRS:
                        stack.append(path)
                    continue
                entries[path] = signature(info)
    return entries


def git_mode(mode):
    if stat.S_ISLNK(mode):
        return 0o120000
    if not stat.S_ISREG(mode):
        return 0  # a fifo, socket or device: the host refuses it (reading a fifo would block)
    return 0o100755 if mode & 0o111 else 0o100644


def signature(info):
    return (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_mode, info.st_ino)


class Tracker:
    """What changed since the last `changes()`: with inotify only the touched paths are examined;
    without it (or after an overflow) the whole tree is walked and compared."""

    def __init__(self, root):
        self.root = root
        self.watcher = None
        self.pending = set()  # touched paths not yet reported (kept when reset=False)
        self.snapshot()

    def snapshot(self):
        self.before = scan(self.root) if os.path.isdir(self.root) else {}
        self.pending = set()
        if self.watcher is None:
            self._restart_watcher()
            return
        # Keep the inotify descriptor: closing one can stall for an RCU grace period (~15 ms).
        # Drop what it saw so far and watch every folder there is now (re-adding is idempotent).
        try:
            if self.watcher.touched() is None:
                raise OSError("inotify lost track")
            self.watcher.add_tree("")
        except OSError:
            self._restart_watcher()

    def _restart_watcher(self):
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None
        if os.path.isdir(self.root):
            try:
                self.watcher = watch.Watcher(self.root, SKIP_DIRS)
            except (OSError, AttributeError):  # no inotify here, or out of watches: walk instead
                self.watcher = None

    def changes(self, reset=True):
        touched = self.watcher.touched() if self.watcher is not None else None
        if touched is None:
            now = scan(self.root)
            current = dict(now)
            current.update({path: None for path in self.before if path not in now})
            if reset:
                self._restart_watcher()
        else:
            self.pending |= touched
            current = self._examine(self.pending)
        modified = {}
        for path, sig in current.items():
            if sig is not None and self.before.get(path) != sig:
                modified[path] = [git_mode(sig[3]), stat.S_ISLNK(sig[3])]
        deleted = sorted(path for path, sig in current.items() if sig is None and path in self.before)
        if reset:
            for path, sig in current.items():
                if sig is None:
                    self.before.pop(path, None)
                else:
                    self.before[path] = sig
            self.pending = set()
        return {"modified": modified, "deleted": deleted}

    def _examine(self, paths):
        """path -> signature (None: gone) for each touched path, directories expanded."""
        current = {}
        for path in paths:
            full = os.path.join(self.root, path)
            try:
                info = os.lstat(full)
            except OSError:
                info = None
            if info is not None and not stat.S_ISDIR(info.st_mode):
                current[path] = signature(info)
                continue
            prefix = path + "/"
            for old in [p for p in self.before if p.startswith(prefix)]:  # what the folder held
                current.setdefault(old, None)
            if info is None:
                current[path] = None
            else:
                for sub, sig in scan(full).items():
                    current[prefix + sub] = sig
        return current


def resolve(root, path):
    """`path` inside `root`, refusing absolute paths and `..` escapes (a bad host request)."""
    if os.path.isabs(path) or ".." in path.split("/"):
        raise ValueError("path %r is outside the workspace" % path)
    return os.path.join(root, path)


def read_files(root, paths):
    sizes, blobs = {}, []
    for path in paths:
        full = resolve(root, path)
        try:
            if os.path.islink(full):
                data = os.readlink(full).encode("utf-8", "surrogateescape")
            else:  # never a fifo or device, even one put there since the scan
                fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK)
                with open(fd, "rb") as handle:
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        raise IsADirectoryError(path)
                    data = handle.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            sizes[path] = -1
            continue
        sizes[path] = len(data)
        blobs.append(data)
    return {"sizes": sizes}, b"".join(blobs)


def write_files(root, files, payload):
    """`files`: path -> None (delete) or [size, git_mode or None to keep the current mode];
    contents are consecutive in `payload`."""
    offset = 0
    for path, spec in files.items():
        full = resolve(root, path)
        if spec is None:
            if os.path.islink(full) or os.path.isfile(full):
                os.unlink(full)
            continue
        size, mode = spec
        data = payload[offset : offset + size]
        offset += size
        parent = os.path.dirname(full)
        if not os.path.isdir(parent) or os.path.islink(parent):
            if os.path.lexists(parent) and not os.path.isdir(parent):
                os.unlink(parent)
            os.makedirs(parent, exist_ok=True)
        if os.path.isdir(full) and not os.path.islink(full):
            raise IsADirectoryError("%s is a directory in the sandbox" % path)
        if mode is None:  # keep the mode of the file being replaced
            mode = 0o100644
            if os.path.isfile(full) and not os.path.islink(full) and os.stat(full).st_mode & 0o111:
                mode = 0o100755
        if os.path.lexists(full):
            os.unlink(full)
        if mode == 0o120000:
            os.symlink(data.decode("utf-8", "surrogateescape"), full)
            continue
        # A short name beside the file: the file's own name plus a suffix may pass the 255-byte limit
        temporary = os.path.join(os.path.dirname(full), ".repofix-tmp-%d" % os.getpid())
        try:
            with open(temporary, "wb") as handle:
                handle.write(data)
            os.chmod(temporary, 0o755 if mode == 0o100755 else 0o644)
            os.replace(temporary, full)
        except BaseException:  # a full disk: leave no half-written temporary for the next sync to pick up
            if os.path.lexists(temporary):
                os.unlink(temporary)
            raise
