"""The README is assembled from docs/readme/ and shows the two set-up commands."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_is_up_to_date():
    result = subprocess.run(
        [sys.executable, "docs/build_readme.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


def test_readme_shows_install_and_test_commands():
    text = (ROOT / "README.md").read_text()
    assert "bash scripts/install.sh && repofix demo" in text
    assert "python -m pytest -q" in text
    assert (ROOT / "scripts" / "install.sh").exists()
