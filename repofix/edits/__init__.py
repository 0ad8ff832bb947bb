"""Turn what a model writes into exact file changes, or a precise error it can act on.

Entry point: `apply_edit(text, files) -> EditResult`. `FORMATS` below is the text the agent's prompt
uses to teach the formats; the parsers accept what it describes plus what models often write
instead: markdown fences and prose around the edit, 5-9 marker characters, hunk headers without
numbers (`@@ ... @@`) or file headers without a/ b/ prefixes, and `...` elision lines in SEARCH/REPLACE
(README, "What is tolerated, and what is refused").
"""

from repofix.edits.apply import apply_edit, parse_edit
from repofix.edits.model import EditError, EditResult, ErrorKind, FileSource, Hunk

FORMATS = """\
Edit files in one of three ways. Paths are relative to the repository root.

1. SEARCH/REPLACE blocks: the path alone on a line, then the block. SEARCH must copy
   lines of the current file exactly and occur once; they are replaced by the REPLACE lines.
   An empty SEARCH creates a new file. Several blocks apply one after another.

path/to/file.py
<<<<<<< SEARCH
    return a + b
=======
    return a - b
>>>>>>> REPLACE

2. Whole file: the path, then the complete new content (creates or overwrites the file).
   `<<<<<<< DELETE` followed by `>>>>>>> END` deletes the file.

path/to/new_module.py
<<<<<<< FILE
def main():
    pass
>>>>>>> END

3. A unified diff (as `git diff` prints it), one or many files, with `--- /dev/null` for
   new files and `+++ /dev/null` for deleted ones. Give about 3 unchanged context lines
   around each change; line numbers are hints, the context decides where a hunk goes.

--- a/path/to/file.py
+++ b/path/to/file.py
@@ -10,3 +10,3 @@ def add(a, b):
 def add(a, b):
-    return a + b
+    return a - b
"""

__all__ = [
    "FORMATS",
    "EditError",
    "EditResult",
    "ErrorKind",
    "FileSource",
    "Hunk",
    "apply_edit",
    "parse_edit",
]
