import os
import re

import pytest

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "python.md")


def test_quick_start_runs_top_to_bottom(capsys):
    pytest.importorskip("jax")
    pytest.importorskip("torch")
    text = open(DOC).read()
    start = text.index("## Quick start")
    blocks = re.findall(r"```python\n(.*?)```", text[start:text.index("## The API")], re.S)
    assert len(blocks) == 3
    scope = {}
    for block in blocks:
        exec(compile(block, DOC, "exec"), scope)  # noqa: S102 - the guide's own code
    out = capsys.readouterr().out
    assert "radius must be positive" in out
    assert abs(scope["r"].alpha - 0.832) < 1e-3 and len(scope["m"]) == 29
