"""What the repair worker prints about candidates, read as data the repository could have written.

The worker runs the project's code, and that code can find the worker's output pipe and write to it
(a conftest that scans its file descriptors): a line that does not parse, names no candidate that
was sent, or has a field of the wrong kind is refused with `MalformedReply`, never indexed or
trusted as it is. The engine says so and gives up; a forged line cannot make it crash or claim."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from repofix.repair.source import Mutation

# what a check's verdict on a candidate holds, and what it may hold besides
VERDICT = {"ok": (bool,), "stage": (str,), "reason": (str,), "seconds": (int, float)}
VERDICT_EXTRAS = {"also": (int,), "hot": (bool,)}
PHASES = ("passing ", "failing ")  # how a behaviour digest's key starts: the phase, then the function
# what the differential check says of a candidate (`behaviour`: per function, a digest)
DIFFERENCE = {"changed": (int,), "example": (list,)}
DIFFERENCE_EXTRAS = {"behaviour": (dict,)}
SHOWN = 160  # characters of a refused line quoted in the error
MOST_CHANGED = 1_000_000  # calls a patch can be said to change (each is kept as a line: bounded)


class MalformedReply(ValueError):
    """A line of the worker's output that is not what the worker writes; the message says so and what
    the line held, as the engine gives it (`repair()` in a RepairError, `repofix fix` as a give-up)."""

    def __init__(self, what: str) -> None:
        super().__init__(f"the repair worker's output was tampered with: {what}")


@dataclass
class Differences:
    """The differential check's answer, per mutation it checked: `changed`, the first changed call's
    example and a blank line per further changed call (the count is what ranking and doubts use);
    `behaviour`, per phase and function ("passing name"), a digest of what its calls did on the tests
    where that differs from the original program's (a function left out did as the original did;
    equal digests: the tests saw the two patches do the same there)."""

    changed: dict[Mutation, list[str]] = field(default_factory=dict)
    behaviour: dict[Mutation, dict[str, str]] = field(default_factory=dict)


def json_lines(stdout: str, seam: bool = False) -> list[dict]:
    """The worker's complete JSON lines: one cut off when its call was cut at the deadline is
    dropped, and so is the one line that does not parse where the sandbox dropped the middle of a
    long output (`seam`: the result says it was truncated)."""
    lines = stdout.split("\n")[:-1]  # the text after the last newline was still being written
    items = []
    for line in (line for line in lines if line.startswith("{")):
        try:
            item = json.loads(line)
        except ValueError:
            if seam:
                seam = False
                continue
            raise MalformedReply(f"a line that is not JSON: {line[:SHOWN]!r}") from None
        if not isinstance(item, dict):
            raise MalformedReply(f"a line that is no object: {line[:SHOWN]!r}")
        items.append(item)
    return items


def candidate_items(stdout: str, count: int, required: dict, extras: dict, seam: bool = False) -> list[dict]:
    """The lines about candidates (those with an "id"), each naming one of the `count` sent and
    holding each `required` field, and any of `extras`, with a value of its kinds."""
    items = [item for item in json_lines(stdout, seam) if "id" in item]
    for item in items:
        ident = item["id"]
        if type(ident) is not int or not 0 <= ident < count:
            raise MalformedReply(f"a line names no candidate that was sent (id {str(ident)[:SHOWN]!r})")
        for name, kinds in [*required.items(), *((n, k) for n, k in extras.items() if n in item)]:
            if not isinstance(item.get(name), kinds):
                raise MalformedReply(f"candidate {ident}'s {name!r} is {str(item.get(name))[:SHOWN]!r}")
    return items


def verdict_items(stdout: str, count: int, seam: bool = False) -> list[dict]:
    """The check's verdicts on the `count` candidates sent (Checker.check and the agent's model read them)."""
    return candidate_items(stdout, count, VERDICT, VERDICT_EXTRAS, seam)


def differences(stdout: str, mutations: list[Mutation], seam: bool = False) -> Differences:
    found = Differences()
    for item in candidate_items(stdout, len(mutations), DIFFERENCE, DIFFERENCE_EXTRAS, seam):
        mutation = mutations[item["id"]]
        example, digests = item["example"], item.get("behaviour", {})
        if not 0 <= item["changed"] <= MOST_CHANGED:
            raise MalformedReply(f"candidate {item['id']} is said to change {item['changed']} calls")
        if not all(isinstance(text, str) for text in example):
            raise MalformedReply(f"candidate {item['id']}'s example is not text")
        if not all(isinstance(value, str) and key.startswith(PHASES) for key, value in digests.items()):
            raise MalformedReply(f"candidate {item['id']}'s behaviour is not digests by function")
        found.changed[mutation] = [*example, *[""] * (item["changed"] - 1)]
        if "behaviour" in item:
            found.behaviour[mutation] = digests
    noise = noise_items(stdout, seam)
    for digests in found.behaviour.values():
        for key in noise:
            digests.pop(key, None)
    return found


def noise_items(stdout: str, seam: bool = False) -> list[str]:
    """The differential check's last line: the functions (keys as in `behaviour`) whose calls
    differed in further runs of the original program, left out of every patch's digests after all.
    The worker writes it once, last; a line of noise anywhere else, or a second one, was written by
    someone else (the project's code can reach the worker's output) and is refused, so a forged line
    can hide no rival unless it takes the worker's own place at the end."""
    items = json_lines(stdout, seam)
    said = [item["noisy"] for item in items if "noisy" in item and "id" not in item]
    if not said:
        return []
    if len(said) > 1 or "noisy" not in items[-1]:
        raise MalformedReply("a line of noise that is not the worker's one last line")
    noise = said[0]
    if not isinstance(noise, list) or not all(isinstance(k, str) and k.startswith(PHASES) for k in noise):
        raise MalformedReply(f"a line of noise that is not functions: {str(noise)[:SHOWN]!r}")
    return noise
