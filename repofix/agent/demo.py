"""`repofix demo`: the bundled quickstart project in a fresh git repository, fixed by `repofix fix`."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import click

from repofix.agent.cli import start
from repofix.agent.stopping import fail
from repofix.gitsafe import argv, git_env


@click.command()
@click.option(
    "--model",
    "-m",
    default=None,
    help="Model to use (default: the configured one, else the built-in "
    "repair engine, which needs no network and no API key).",
)
@click.option(
    "--sandbox", type=click.Choice(["docker", "bwrap", "none"]), default=None, help="Sandbox backend."
)
@click.option(
    "--dest",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to put the demo repository (default: a new temporary folder).",
)
def demo(model: str | None, sandbox: str | None, dest: Path | None) -> None:
    """Try repofix on a small bundled project with a bug: copies it into a fresh git repository and
    runs `repofix fix` there, delivering the fix as a branch."""
    source = Path(__file__).resolve().parents[2] / "examples" / "quickstart"
    if not source.is_dir():
        fail(f"the bundled example is missing ({source}); run the demo from a repofix checkout")
    dest = dest or Path(tempfile.mkdtemp(prefix="repofix-demo-")) / "quickstart"
    if dest.exists() and any(dest.iterdir()):
        fail(f"{dest} is not empty; choose another --dest")
    shutil.copytree(source, dest, dirs_exist_ok=True)
    for command in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        [
            "-c",
            "user.name=repofix demo",
            "-c",
            "user.email=demo@repofix.invalid",
            "commit",
            "-qm",
            "quickstart: a shop with a bug",
        ],
    ):
        subprocess.run(argv(dest, command), check=True, env=git_env())
    click.echo(f"demo repository: {dest}", err=True)
    options = dict(
        repo=str(dest),
        rev=None,
        model=model,
        api_base=None,
        price_file=None,
        max_steps=None,
        max_cost=None,
        timeout=None,
        sandbox=sandbox,
        test_cmd=None,
        setup=(),
        apply_=False,
        as_json=False,
    )
    start("", "fix", (), None, None, options)
