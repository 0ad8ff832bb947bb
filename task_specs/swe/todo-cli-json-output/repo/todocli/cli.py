"""Command line: todo [--db FILE] add|list|done|remove ..."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys

from todocli.filters import order, select
from todocli.formatting import format_table
from todocli.models import PRIORITIES, Task
from todocli.storage import StoreError, TaskStore

DEFAULT_DB = "~/.todo.json"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="todo")
    parser.add_argument("--db", default=os.environ.get("TODO_DB", DEFAULT_DB), help="task file")
    sub = parser.add_subparsers(dest="command", required=True)

    add = sub.add_parser("add", help="add a task")
    add.add_argument("title")
    add.add_argument("-p", "--priority", choices=PRIORITIES, default="normal")
    add.add_argument("--due", type=dt.date.fromisoformat, help="YYYY-MM-DD")
    add.add_argument("-t", "--tag", action="append", default=[], dest="tags")

    ls = sub.add_parser("list", help="show tasks")
    ls.add_argument("-a", "--all", action="store_true", help="include finished tasks")
    ls.add_argument("-t", "--tag")
    ls.add_argument("--overdue", action="store_true")
    ls.add_argument("--sort", choices=["id", "priority", "due"], default="id")

    for name in ("done", "remove"):
        cmd = sub.add_parser(name, help=f"{name} a task")
        cmd.add_argument("id", type=int)
    return parser


def _find(tasks: list[Task], task_id: int) -> Task:
    for task in tasks:
        if task.id == task_id:
            return task
    raise LookupError(f"no task with id {task_id}")


def main(argv: list[str] | None = None, today: dt.date | None = None) -> int:
    args = build_parser().parse_args(argv)
    store = TaskStore(os.path.expanduser(args.db))
    today = today or dt.date.today()
    try:
        tasks = store.load()
        if args.command == "add":
            task = Task(store.next_id(tasks), args.title, priority=args.priority, due=args.due, tags=args.tags)
            tasks.append(task)
            store.save(tasks)
            print(f"added task {task.id}")
        elif args.command == "list":
            shown = select(tasks, show_done=args.all, tag=args.tag, overdue_on=today if args.overdue else None)
            print(format_table(order(shown, args.sort)))
        elif args.command == "done":
            _find(tasks, args.id).done = True
            store.save(tasks)
            print(f"finished task {args.id}")
        elif args.command == "remove":
            tasks.remove(_find(tasks, args.id))
            store.save(tasks)
            print(f"removed task {args.id}")
    except (StoreError, LookupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
