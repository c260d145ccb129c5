"""With OWARE_PYTHON_NO_SKIP=1 (.ci/run sets it) a skipped test fails the run: CI
installs gymnasium, pettingzoo, open_spiel and mypy, so every test must run there."""

import os

import pytest


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("OWARE_PYTHON_NO_SKIP") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped:
        reporter.ensure_newline()
        reporter.write_line(
            f"OWARE_PYTHON_NO_SKIP=1: {len(skipped)} test(s) skipped, which CI does not allow: "
            + "; ".join(str(r.longrepr[-1]) if isinstance(r.longrepr, tuple) else r.nodeid for r in skipped)
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
