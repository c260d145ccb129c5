"""The type stubs (oware_zero/_oware_zero.pyi) against the compiled module: mypy's
stubtest compares every name, class, signature and default, so the stubs cannot drift
from python/src. Then mypy type-checks the package's own Python and a user's code
through the stubs."""

import subprocess
import sys

import pytest

pytest.importorskip("mypy")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One mypy cache for the module's runs: numpy's stubs are analysed once."""
    return str(tmp_path_factory.mktemp("mypy-cache"))


def _mypy(args, cwd, cache):
    if args[0] == "mypy":
        args = [*args, "--cache-dir", cache]
    r = subprocess.run([sys.executable, "-m", *args], cwd=cwd,
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def test_stubtest_finds_the_stubs_and_the_module_agree(tmp_path, cache):
    # From an empty directory, so that the installed package is the one checked.
    rc, out = _mypy(["mypy.stubtest", "oware_zero._oware_zero"], tmp_path, cache)
    assert rc == 0, out


def test_mypy_checks_the_package_and_catches_a_wrong_call(tmp_path, cache):
    good = tmp_path / "good.py"
    good.write_text(
        "import numpy as np\n"
        "import oware_zero as oz\n"
        "from oware_zero.gym_env import OwareEnv\n"
        "from oware_zero.pettingzoo_env import OwareAECEnv\n"
        "env = oz.BatchEnv(8, seed=1)\n"
        "obs, mask, to_play = env.reset()\n"
        "obs, rewards, terminated, truncated, info = env.step(np.argmax(mask, axis=1))\n"
        "r: oz.SearchResult = oz.Network.load().search(oz.Game(), level='novice')\n"
        "m: int | None = r.move\n"
        "OwareEnv(opponent='network:amateur'); OwareAECEnv()\n"
    )
    # pettingzoo ships no type information.
    rc, out = _mypy(["mypy", "--ignore-missing-imports", "-p", "oware_zero"], tmp_path, cache)
    assert rc == 0, out
    rc, out = _mypy(["mypy", str(good)], tmp_path, cache)
    assert rc == 0, out
    # The check can fail: a wrong argument type and a misspelt keyword are errors.
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import oware_zero as oz\n"
        "oz.BatchEnv('eight')\n"
        "oz.Network.load().search(oz.Game(), simulation=8)\n"
    )
    rc, out = _mypy(["mypy", str(bad)], tmp_path, cache)
    assert rc == 1 and "bad.py:2" in out and "bad.py:3" in out, out
