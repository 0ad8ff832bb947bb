from mdlite import to_html

DOC = """# Title

Some *text*
over two lines.

- one
- **two**

1. first
2. second

> quoted

```python
if a < b:
    print("*x*")
```
"""


def test_document():
    assert to_html(DOC).split("\n") == [
        "<h1>Title</h1>",
        "<p>Some <em>text</em> over two lines.</p>",
        "<ul><li>one</li><li><strong>two</strong></li></ul>",
        "<ol><li>first</li><li>second</li></ol>",
        "<blockquote><p>quoted</p></blockquote>",
        '<pre><code class="language-python">if a &lt; b:',
        "    print(&quot;*x*&quot;)",
        "</code></pre>",
    ]


def test_heading_levels_and_closing_hashes():
    assert to_html("### Three ###") == "<h3>Three</h3>"


def test_unclosed_fence_runs_to_end():
    assert to_html("```\ncode") == "<pre><code>code\n</code></pre>"
