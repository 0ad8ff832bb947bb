"""A seccomp filter for the bubblewrap backend, compiled to classic BPF in pure Python (bwrap loads
it from `--seccomp FD`; no libseccomp binding needed).

Denied with EPERM: new namespaces (unshare, setns, clone with a CLONE_NEW* flag), mounts, kernel
modules and kexec, the kernel keyring, ptrace and cross-process memory access, bpf, perf events,
userfaultfd, reboot/swap/acct, raw I/O ports, open_by_handle_at, and setting a setuid/setgid bit
(chmod family, creating a file with such a mode): a file the sandbox writes to a bound host folder
never becomes a setuid binary out there. clone3 and openat2 get ENOSYS (their flags live in memory a
filter cannot read), so libc falls back to clone/openat, whose flags it can. Any other architecture
(32-bit syscalls on a 64-bit host, x32) is denied outright."""

from __future__ import annotations

import errno
import platform
import struct

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
# offsets in struct seccomp_data
NR, ARCH, ARG0 = 0, 4, 16
X32_BIT = 0x40000000
SETID = 0o6000  # S_ISUID | S_ISGID
CREATES = 0o100 | 0o20000000  # O_CREAT | __O_TMPFILE: only then does open's mode argument count
CLONE_NEW_FLAGS = (
    0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080
)  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME

DENIED = (
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "keyctl",
    "add_key",
    "request_key",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "iopl",
    "ioperm",
    "open_by_handle_at",
    "syslog",
)

# Syscall numbers per architecture (asm/unistd_64.h, asm-generic/unistd.h), with the audit arch id.
X86_64 = {
    "unshare": 272,
    "setns": 308,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "move_mount": 429,
    "open_tree": 428,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "reboot": 169,
    "swapon": 167,
    "swapoff": 168,
    "acct": 163,
    "iopl": 172,
    "ioperm": 173,
    "open_by_handle_at": 304,
    "syslog": 103,
    "clone": 56,
    "clone3": 435,
    "openat2": 437,
    "chmod": 90,
    "fchmod": 91,
    "fchmodat": 268,
    "fchmodat2": 452,
    "creat": 85,
    "mknod": 133,
    "mknodat": 259,
    "open": 2,
    "openat": 257,
}
AARCH64 = {
    "unshare": 97,
    "setns": 268,
    "mount": 40,
    "umount2": 39,
    "pivot_root": 41,
    "move_mount": 429,
    "open_tree": 428,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "init_module": 105,
    "finit_module": 273,
    "delete_module": 106,
    "kexec_load": 104,
    "kexec_file_load": 294,
    "keyctl": 219,
    "add_key": 217,
    "request_key": 218,
    "ptrace": 117,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "bpf": 280,
    "perf_event_open": 241,
    "userfaultfd": 282,
    "reboot": 142,
    "swapon": 224,
    "swapoff": 225,
    "acct": 89,
    "open_by_handle_at": 265,
    "syslog": 116,
    "clone": 220,
    "clone3": 435,
    "openat2": 437,
    "fchmod": 52,
    "fchmodat": 53,
    "fchmodat2": 452,
    "mknodat": 33,
    "openat": 56,
}
# Syscalls denied only when every (argument, mask) test is true: (argument index, bits any of which set).
GUARDED = {
    "clone": [(0, CLONE_NEW_FLAGS)],
    "chmod": [(1, SETID)],
    "fchmod": [(1, SETID)],
    "fchmodat": [(2, SETID)],
    "fchmodat2": [(2, SETID)],
    "creat": [(1, SETID)],
    "mknod": [(1, SETID)],
    "mknodat": [(2, SETID)],
    "open": [(1, CREATES), (2, SETID)],
    "openat": [(2, CREATES), (3, SETID)],
}
ARCHES = {"x86_64": (0xC000003E, X86_64), "aarch64": (0xC00000B7, AARCH64)}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def supported() -> bool:
    return platform.machine() in ARCHES


def program(machine: str | None = None) -> bytes:
    """The compiled filter (an array of struct sock_filter) for this machine's architecture."""
    machine = machine or platform.machine()
    if machine not in ARCHES:
        raise ValueError(f"no seccomp filter for architecture {machine!r}")
    arch, numbers = ARCHES[machine]
    eperm = _op(RET_K, RET_ERRNO | errno.EPERM)
    out = [_op(LD_W_ABS, ARCH), _op(JEQ_K, arch, jt=1), eperm, _op(LD_W_ABS, NR)]
    if machine == "x86_64":  # the x32 ABI shares the arch id: deny every x32 syscall
        out += [_op(JGE_K, X32_BIT, jf=1), eperm]
    for name in DENIED:
        if name in numbers:
            out += [_op(JEQ_K, numbers[name], jf=1), eperm]
    for name in ("clone3", "openat2"):
        out += [_op(JEQ_K, numbers[name], jf=1), _op(RET_K, RET_ERRNO | errno.ENOSYS)]
    for name, tests in GUARDED.items():
        if name in numbers:
            out += _guard(numbers[name], tests, eperm)
    out.append(_op(RET_K, RET_ALLOW))
    return b"".join(out)


def _guard(number: int, tests: list[tuple[int, int]], deny: bytes) -> list[bytes]:
    """Deny syscall `number` when each argument's low word has one of its mask's bits set, else allow."""
    block = [_op(JEQ_K, number, jf=2 * len(tests) + 2)]
    for k, (arg, mask) in enumerate(tests):
        block += [_op(LD_W_ABS, ARG0 + 8 * arg), _op(JSET_K, mask, jf=2 * (len(tests) - k) - 1)]
    return [*block, deny, _op(RET_K, RET_ALLOW)]
