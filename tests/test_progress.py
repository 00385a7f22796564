"""Progress bars: only on a terminal, only after a delay, never with --quiet."""

from __future__ import annotations

import io
import time

from dst_metrics import progress as progress_module
from dst_metrics.cli import main
from dst_metrics.progress import enabled, progress, set_quiet

from .conftest import REPO


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_no_bar_unless_stderr_is_a_terminal_and_not_quiet():
    items = [1, 2, 3]
    assert progress(items, stream=io.StringIO()) is items  # a pipe or a log file: the iterable itself
    assert progress(items, stream=Terminal(), quiet=True) is items
    set_quiet(True)
    try:
        assert not enabled(stream=Terminal()) and progress(items, stream=Terminal()) is items
    finally:
        set_quiet(False)
    assert enabled(stream=Terminal())


def test_a_bar_appears_on_a_terminal_once_the_delay_has_passed(monkeypatch):
    stream = Terminal()
    monkeypatch.setattr(progress_module, "DELAY_SECONDS", 0.05)
    seen = []
    for item in progress(range(3), total=3, unit="files", desc="reading", stream=stream):
        time.sleep(0.06)
        seen.append(item)
    assert seen == [0, 1, 2]
    text = stream.getvalue()
    assert "reading" in text and "files" in text and "/3" in text  # count of a known total, unit, description


def test_a_short_run_on_a_terminal_prints_nothing():
    stream = Terminal()
    assert list(progress(range(5), unit="files", stream=stream)) == [0, 1, 2, 3, 4]
    assert stream.getvalue() == ""  # under DELAY_SECONDS: no bar at all


def test_quiet_is_an_option_of_every_reading_command(capsys):
    example = str(REPO / "examples" / "first_example_p1.json")
    assert main(["score", example, "--quiet", "--json"]) == 0
    assert capsys.readouterr().err == ""
    assert not enabled(stream=Terminal())  # --quiet holds for the rest of the process's command
    set_quiet(False)
