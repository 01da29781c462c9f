import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DOC = os.path.join(ROOT, "docs", "python.md")


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


def test_readme_python_snippet():
    # README.md's Python block: the DCOL query in NumPy, and its JAX gradient equal to the NumPy
    # twist Jacobian converted to raw pose components
    pytest.importorskip("jax")
    import numpy as np

    import osculate as osc

    readme = os.path.join(ROOT, "README.md")
    blocks = re.findall(r"```python\n(.*?)```", open(readme).read(), re.S)
    assert len(blocks) == 1
    scope = {}
    exec(compile(blocks[0], readme, "exec"), scope)  # noqa: S102 - the README's own code
    r = scope["r"]
    assert r.distance < 0 and r.distance_jacobian.shape == (12,)
    raw = osc.pair_jacobian_to_pq(r.distance_jacobian[None, :], scope["pose_a"], scope["pose_b"])[0]
    np.testing.assert_allclose(np.asarray(scope["grad"]), raw[7:], rtol=0, atol=1e-12)


def test_package_readme_example(capsys):
    # python/README.md (the package index's page): its example runs and prints what its comments
    # say
    import numpy as np

    readme = os.path.join(ROOT, "python", "README.md")
    if not os.path.exists(readme):
        pytest.skip("not run from a checkout of the repository")
    blocks = re.findall(r"```python\n(.*?)```", open(readme).read(), re.S)
    assert len(blocks) == 1
    scope = {}
    exec(compile(blocks[0], readme, "exec"), scope)  # noqa: S102 - the README's own code
    r, m = scope["r"], scope["m"]
    assert abs(r.alpha - 0.818) < 5e-4 and abs(r.distance + 0.205) < 5e-4
    np.testing.assert_allclose(r.normal, [1, 0, 0], atol=1e-9)
    assert r.distance_jacobian.shape == (12,)
    assert len(m) == 29 and abs(m.distance.min() + 0.028) < 5e-4 and m.distance_jacobian.shape == (29, 12)


def test_every_link_in_the_documents_resolves():
    # tools/check_links.py: every relative link of the tracked Markdown files names a file of the
    # repository, and every #fragment a heading of its target
    checker = os.path.join(ROOT, "tools", "check_links.py")
    if not os.path.exists(checker):
        pytest.skip("not run from a checkout of the repository")
    done = subprocess.run([sys.executable, checker], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
