"""What makes the differential check's runs (differ.py) alike or, on purpose, unlike: the same
random draws and temporary file names in each, the folder they share removed whole, and a heap
shifted so that a run allocates elsewhere than another."""

import os
import shutil
import tempfile


def _shift_heap(times):
    """Objects kept alive through a run: `times` of each small-object size class (16 to 512 bytes)
    and of a few larger sizes, so that what the run allocates lies elsewhere than in a run without
    them."""
    sizes = [*range(48, 513, 16), 600, 2000, 9000]
    return (
        [object() for _ in range(times)]
        + [float(n) for n in range(times)]
        + [bytes(size - 33) for size in sizes for _ in range(times)]
    )


def _same_draws():
    """Every run draws the same numbers: `random`'s, and the names `tempfile` makes (its own
    generator, seeded anew in each forked child). A test's `NamedTemporaryFile` then has one name in
    every run, and a call that shows it tells no two patches apart, even one the original never
    made (deckset-inline's, past where the original failed: heldout54)."""
    import random

    random.seed(0)
    try:  # tempfile's private generator, as CPython 3.6 to 3.13 keep it; another one is left be
        names = tempfile._RandomNameSequence()
    except AttributeError:
        return
    names._rng, names._rng_pid = random.Random(0), os.getpid()  # what its `rng` checks before reseeding
    tempfile._name_sequence = names


def _remove(folder):
    """Remove `folder` whole: a test may leave a folder in it read-only, as pytest's own clean-up
    would not mind."""
    for here, folders, _ in os.walk(folder):
        for name in folders:
            path = os.path.join(here, name)
            try:
                if not os.path.islink(path):  # a link's target is not ours to change
                    os.chmod(path, 0o700)
            except OSError:  # gone already: rmtree below deals with the rest
                pass
    shutil.rmtree(folder, ignore_errors=True)
