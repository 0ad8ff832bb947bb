"""Exit codes scripts can rely on; every command uses these (a foundation module: any room may import it)."""

EXIT_DONE = 0  # the command did what was asked (a run: verified done)
EXIT_NOT_DONE = 1  # it ran, but the goal is not met (a run stopped before done, a task set not all resolved)
EXIT_USAGE = 2  # the input is wrong (usage, an invalid task spec, a setup error): the tool is not at fault
EXIT_INTERRUPTED = 130  # stopped by Ctrl-C (128 + SIGINT, as shells report it)
