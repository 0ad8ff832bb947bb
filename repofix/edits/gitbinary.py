"""Decoding `GIT binary patch` sections: base85 + zlib, either a literal file or a git delta."""

from __future__ import annotations

import base64
import zlib


class BinaryPatchError(ValueError):
    pass


def decode_lines(lines: list[str]) -> bytes:
    """Inflate the base85 lines of one `literal N` / `delta N` section."""
    raw = bytearray()
    for line in lines:
        if not line:
            continue
        code = line[0]
        if "A" <= code <= "Z":
            size = ord(code) - ord("A") + 1
        elif "a" <= code <= "z":
            size = ord(code) - ord("a") + 27
        else:
            raise BinaryPatchError(f"bad length character {code!r} in binary patch line")
        try:
            raw += base64.b85decode(line[1:])[:size]
        except ValueError as exc:
            raise BinaryPatchError(f"bad base85 data in binary patch: {exc}") from exc
    try:
        return zlib.decompress(bytes(raw))
    except zlib.error as exc:
        raise BinaryPatchError(f"binary patch does not inflate: {exc}") from exc


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def apply_delta(base: bytes, delta: bytes) -> bytes:
    """Apply a git pack-style delta (copy / insert instructions) to `base`."""
    try:
        return _apply_delta(base, delta)
    except IndexError as exc:  # an instruction runs past the end of the delta
        raise BinaryPatchError("binary delta is truncated") from exc


def _apply_delta(base: bytes, delta: bytes) -> bytes:
    src_size, pos = _varint(delta, 0)
    dst_size, pos = _varint(delta, pos)
    if src_size != len(base):
        raise BinaryPatchError("binary delta was made against a different version of the file")
    out = bytearray()
    while pos < len(delta):
        op = delta[pos]
        pos += 1
        if op & 0x80:  # copy from base: offset and size bytes selected by the low bits
            offset = size = 0
            for i in range(4):
                if op & (1 << i):
                    offset |= delta[pos] << (8 * i)
                    pos += 1
            for i in range(3):
                if op & (1 << (4 + i)):
                    size |= delta[pos] << (8 * i)
                    pos += 1
            size = size or 0x10000
            out += base[offset : offset + size]
        elif op:  # insert the next `op` bytes literally
            out += delta[pos : pos + op]
            pos += op
        else:
            raise BinaryPatchError("invalid delta opcode 0")
    if len(out) != dst_size:
        raise BinaryPatchError("binary delta produced the wrong size")
    return bytes(out)
