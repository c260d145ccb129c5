"""Every Python example of docs/python.md runs, in order, in one namespace."""

import os
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_python_example_of_the_page_runs():
    text = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) >= 6
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(ROOT)  # the examples name repository paths (tablebases/abapa)
    try:
        for i, code in enumerate(blocks):
            exec(compile(code, f"docs/python.md, python block {i + 1}", "exec"), namespace)
    finally:
        os.chdir(cwd)
