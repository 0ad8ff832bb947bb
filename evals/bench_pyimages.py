"""Python images (issue 18): each Python version's image built cold, the way an evaluation builds
it on first need (debootstrap of the Debian release into a fresh cache, `docker import`, then
sandbox/Dockerfile), timed, against the default release (bookworm, Python 3.11: what
scripts/install.sh builds) measured in the same run; then one gold task graded in each image, so
the session runner and the pytest plugin are shown to work on that Python.

    python evals/bench_pyimages.py [--versions 3.9,3.11,3.13] [--out evals/results/bench_pyimages.md]

Nothing shared is touched: the root filesystems go to a temporary cache, the images get names of
their own (repofix-bench-*) and are removed at the end."""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from repofix.evaluation import images  # noqa: E402
from repofix.evaluation.candidates import GoldSource  # noqa: E402
from repofix.evaluation.environments import Environments  # noqa: E402
from repofix.evaluation.progress import Progress  # noqa: E402
from repofix.evaluation.runner import RunOptions, run_evaluation  # noqa: E402
from repofix.evaluation.store import ResultsStore  # noqa: E402
from repofix.sandboxes import Limits  # noqa: E402
from repofix.sandboxes.session import runner_dir  # noqa: E402
from tests.test_evaluation_grading import HIDDEN_TESTS, VISIBLE_TESTS, diff, make_task  # noqa: E402

warnings.simplefilter("ignore")
CHECK = "\n\ndef test_python():\n    import platform\n    print(platform.python_version())\n"


def build(version: str, cache: Path, log: Path) -> tuple[float, float, str]:
    """(seconds for the base, seconds for the Dockerfile, image tag)."""
    release = images.RELEASES[version]
    base, tag = f"repofix-bench-base:{release}-{os.getpid()}", f"repofix-bench-python:{version}-{os.getpid()}"
    env = {
        **os.environ,
        "REPOFIX_DEBIAN_SUITE": release,
        "REPOFIX_BASE_IMAGE": base,
        "REPOFIX_CACHE_DIR": str(cache),
    }
    with log.open("w", encoding="utf-8") as stream:
        started = time.monotonic()
        code, _ = images.stream_build(["bash", str(runner_dir() / "build_base.sh")], stream, print, env)
        base_seconds = time.monotonic() - started
        if code != 0:
            raise SystemExit(f"{release} base failed; log: {log}")
        started = time.monotonic()
        argv = ["docker", "build", "--build-arg", f"BASE_IMAGE={base}", "-t", tag, str(runner_dir())]
        code, _ = images.stream_build(argv, stream, print)
        if code != 0:
            raise SystemExit(f"{tag} failed; log: {log}")
    return base_seconds, time.monotonic() - started, tag


def grade_in(tag: str, version: str, scratch: Path) -> str:
    task = make_task(
        id=f"py{version.replace('.', '')}",
        environment={"python": version, "image": tag},
        test_patch=diff("tests/test_mathx.py", VISIBLE_TESTS, HIDDEN_TESTS + CHECK),
        FAIL_TO_PASS=["tests/test_mathx.py::test_add", "tests/test_mathx.py::test_python"],
    )
    environments = Environments("docker", Limits(cpus=1.0), scratch / "logs")
    with ResultsStore(scratch / "run") as store:
        run_evaluation(
            [task], GoldSource(), store, environments, scratch / "run", RunOptions(), Progress(1, quiet=True)
        )
        result = store.latest()[task.id]
    return f"{result.status.value} ({len(result.tests_status.FAIL_TO_PASS['success'])}/2)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", default="3.11,3.9,3.13")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    versions = args.versions.split(",")
    rows, made = [], []
    try:
        for version in versions:
            with tempfile.TemporaryDirectory(prefix="repofix-bench-py-") as folder:
                scratch = Path(folder)
                base_s, docker_s, tag = build(version, scratch / "cache", scratch / "build.log")
                made += [tag, f"repofix-bench-base:{images.RELEASES[version]}-{os.getpid()}"]
                actual = images.python_version(tag)
                rows.append(
                    (
                        version,
                        images.RELEASES[version],
                        base_s,
                        docker_s,
                        actual,
                        grade_in(tag, version, scratch),
                    )
                )
    finally:
        subprocess.run(["docker", "image", "rm", "-f", *made], capture_output=True)
    baseline = next((r[2] + r[3] for r in rows if r[0] == "3.11"), None)
    lines = [
        f"# Python images built cold ({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
        f"load average {os.getloadavg()[0]:.1f})",
        "",
        "| Python | Debian | debootstrap + import s | Dockerfile s | total s | vs bookworm (3.11) | python3 | gold task |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for version, release, base_s, docker_s, actual, graded in rows:
        ratio = f"{(base_s + docker_s) / baseline:.2f}x" if baseline else "-"
        lines.append(
            f"| {version} | {release} | {base_s:.0f} | {docker_s:.0f} | {base_s + docker_s:.0f} | {ratio} | {actual} | {graded} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
