"""The candidate list of a held-aside set (bench_builtin_screen.py `list`): packages from the machine's
local list of PyPI packages whose summary names a data topic and no topic of services, frameworks or
randomness, and whose name the repository does not already name, in the order of a seeded shuffle.

The rules are those recorded in the frozen sets' notes (heldout50 to heldout55): small, pure data
libraries are the ones whose suites run offline and whose outcome a planted bug decides."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from bench_builtin_bugs import PROJECTS
from bench_builtin_sets import RESULTS, load_set

from repofix.atomic import write_atomic

PYPI_TSV = Path("/usr/share/package-lists/pypi.tsv")
REPO = RESULTS.parent.parent
FIRST_YEAR, LAST_YEAR = 2015, 2022
DEFAULT_SEED = 20270118

# each alternative is a word with its plurals and forms; matched as a whole word, case-insensitive
TOPICS = [
    r"json",
    r"yaml",
    r"toml",
    r"csv",
    r"xml",
    r"ini",
    r"pars(?:e|es|ed|er|ers|ing)",
    r"strings?",
    r"text(?:s|ual)?",
    r"dates?",
    r"calendars?",
    r"maths?|mathematics|mathematical",
    r"matri(?:x|xes|ces)",
    r"vectors?",
    r"numbers?",
    r"numeric(?:al|s)?",
    r"integers?",
    r"fractions?|fractional",
    r"roman",
    r"units?",
    r"conver(?:t|ts|ted|ter|ters|ting|sion|sions)",
    r"validat(?:e|es|ed|ing|ion|ions|or|ors)",
    r"format(?:s|ted|ter|ters|ting)?",
    r"calculators?",
    r"expressions?",
    r"trees?",
    r"graphs?",
    r"lists?",
    r"dicts?|dictionary|dictionaries",
    r"queues?",
    r"stacks?",
    r"heaps?",
    r"sort(?:s|ed|er|ing)?",
    r"search(?:es|ed|er|ing)?",
    r"algorithms?",
    r"data[ -]structures?",
    r"encod(?:e|es|ed|er|ers|ing|ings)",
    r"decod(?:e|es|ed|er|ers|ing|ings)",
    r"templat(?:e|es|ing)",
    r"regex(?:es|p)?",
    r"diff(?:s|ing)?",
    r"schema(?:s|ta)?",
    r"config(?:s|uration|urations)?",
    r"geometr(?:y|ic|ical)",
    r"intervals?",
    r"ranges?",
    r"tables?",
    r"markdown",
    r"grammars?",
    r"lex(?:er|ers|ing)",
    r"tokeni[sz](?:e|er|ers|ing|ation)",
]
# topics whose projects need a service, a framework, a device or chance: whole words, plurals too
EXCLUDED = [
    r"clients?",
    r"servers?",
    r"apis?",
    r"agents?",
    r"llms?",
    r"ai",
    r"gpt",
    r"openai",
    r"networks?",
    r"sockets?",
    r"threads?",
    r"cache",
    r"crypto",
    r"random",
    r"timers?",
    r"async",
    r"web",
    r"http",
    r"urls?",
    r"terminal",
    r"cli",
    r"command-line",
    r"django",
    r"flask",
    r"fastapi",
    r"aws",
    r"cloud",
    r"databases?",
    r"sql",
    r"gui",
    r"qt",
    r"tk",
    r"pandas",
    r"numpy",
    r"torch",
    r"tensorflow",
    r"spark",
    r"telegram",
    r"discord",
    r"bots?",
    r"scraping",
    r"download",
    r"selenium",
    r"docker",
    r"kubernetes",
]


def whole_words(alternatives: list[str]) -> re.Pattern[str]:
    """One case-insensitive pattern that matches any alternative as a whole word (`-` counts as
    inside a word only where an alternative spells it, as in command-line)."""
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])", re.IGNORECASE)


TOPIC_RE, EXCLUDED_RE = whole_words(TOPICS), whole_words(EXCLUDED)


def normalized(name: str) -> str:
    """A project name as PyPI compares names (PEP 503): `Easy_Tokenizer` is `easy-tokenizer`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def tokens(text: str) -> set[str]:
    """The words of a text that could be a project's name, normalized; `name==1.0` gives `name`."""
    return {normalized(t.strip("-_.")) for t in re.findall(r"[A-Za-z0-9][A-Za-z0-9._-]*", text)}


def used_names(repo: Path = REPO) -> set[str]:
    """Names the repository already uses: every token of the README, its parts, the results'
    reports, the frozen sets' headers (not their bugs) and the first set's projects."""
    texts = [repo / "README.md", *sorted((repo / "docs" / "readme").glob("*.md"))]
    texts += sorted((repo / "evals" / "results").glob("*.md"))
    used = set().union(*(tokens(p.read_text(errors="replace")) for p in texts if p.is_file()))
    for path in sorted((repo / "evals" / "results").glob("*.bugs.json")):
        used |= tokens(json.dumps(load_set(path)[0]))
    return used | {normalized(spec.split("==")[0]) for spec in PROJECTS}


def rows(tsv: Path) -> Iterator[tuple[str, str, str, str]]:
    """(name, version, month, summary) of each package line of the local list (header skipped)."""
    with tsv.open(encoding="utf-8", errors="replace") as lines:
        next(lines, None)
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 5:
                yield fields[0], fields[1], fields[2], fields[4]


def keep(month: str, summary: str, name: str, used: set[str]) -> bool:
    """The list's rule: released 2015-2022, a data topic, no excluded topic, a name not yet used."""
    year = month[:4]
    return (
        year.isdigit()
        and FIRST_YEAR <= int(year) <= LAST_YEAR
        and TOPIC_RE.search(summary) is not None
        and EXCLUDED_RE.search(summary) is None
        and normalized(name) not in used
    )


def candidates(source: Iterable[tuple[str, str, str, str]], used: set[str], seed: int) -> list[str]:
    """`name==version` of the kept packages: sorted, then shuffled by `seed` (the order screened)."""
    specs = sorted({f"{n}=={v}" for n, v, month, summary in source if v and keep(month, summary, n, used)})
    random.Random(seed).shuffle(specs)
    return specs


def write_list(out: Path, seed: int = DEFAULT_SEED, tsv: Path = PYPI_TSV, repo: Path = REPO) -> int:
    specs = candidates(rows(tsv), used_names(repo), seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, "".join(f"{s}\n" for s in specs))  # a list cut short would shift every index
    return len(specs)
