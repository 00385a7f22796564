"""Issue 60: the Space as a state machine. Seeded random sequences of a visitor's actions (an example, an upload
into A-D of a valid (plain or gzip-compressed), invalid or empty file, Empty, a paste, the mode, λ, K, α, value
matching, a dialogue of the per-turn view, Score, a width of 1400 or 390 px);
after each one settles, one oracle: the figures shown are `dst_metrics.score` of the boxes' contents with the
page's options, or no figures are shown and the status says why; the status never claims figures that are not
shown. CI runs `SEEDS` with `ACTIONS` each; a longer run (CONTRIBUTING.md, "The Space's random sequences"):
DST_METRICS_RANDOM_SEEDS=1-40 DST_METRICS_RANDOM_ACTIONS=25 pytest tests/test_app_random_browser.py -n 2."""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path

import pytest

from dst_metrics import VALUE_MATCHINGS, score
from dst_metrics.readers import read
from dst_metrics.space.examples import EXAMPLES
from dst_metrics.space.inputs import EXAMPLE_CHOICES, name_from_file

from .space_browser import QUIET_JS, shot

pytestmark = pytest.mark.slow


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


SEEDS = _seeds(os.environ.get("DST_METRICS_RANDOM_SEEDS", "1-2"))
ACTIONS = int(os.environ.get("DST_METRICS_RANDOM_ACTIONS", "10"))
BOXES = "abcd"
EXAMPLE_LABELS = [label for label, _ in EXAMPLE_CHOICES]


def _jsonl(key: str, prediction: str) -> str:
    example = EXAMPLES[key]
    turns = zip(example.gold, example.predictions[prediction], strict=True)
    return "".join(
        json.dumps({"dialogue_id": example.dialogue_id, "turn_id": i, "gt": g, "pr": p}) + "\n"
        for i, (g, p) in enumerate(turns)
    )


def _inputs(folder: Path) -> dict[str, str]:
    """{file name: text}: every example prediction as JSON Lines, two of them gzip-compressed (issue 57), an
    invalid file, an empty one and a cut gzip file (its text: one that does not read, as the page must say)."""
    texts = {
        f"{key}_{name}.jsonl": _jsonl(key, name) for key, example in EXAMPLES.items() for name in example.predictions
    }
    compressed = {f"{name}.gz": texts[name] for name in ("mul1110_prediction.jsonl", "first_example_P2.jsonl")}
    texts |= compressed | {"not_json.json": '{"dialogue": [', "empty.jsonl": "", "cut.jsonl.gz": '{"dialogue": ['}
    for name, text in texts.items():
        data = text.encode("utf-8")
        if name == "cut.jsonl.gz":
            data = gzip.compress(texts["mul1110_prediction.jsonl"].encode("utf-8"))[:40]  # of about 400 bytes
        elif name in compressed:
            data = gzip.compress(data)
        (folder / name).write_bytes(data)
    return texts


class Visitor:
    """One tab, its actions (each a method) and what it remembers of the files it gave the page."""

    def __init__(self, page, folder: Path, texts: dict[str, str], rng: random.Random) -> None:
        self.page, self.folder, self.texts, self.rng = page, folder, texts, rng
        self.log: list[str] = []

    def open_more_sets(self) -> None:
        if not self.page.locator("#upload-c").is_visible():
            self.page.locator("#more-sets .label-wrap").click()

    def box(self) -> str:
        return self.rng.choice(BOXES)

    def example(self) -> str:
        label = self.rng.choice(EXAMPLE_LABELS)
        self.page.click("#example input")
        self.page.locator("#example").get_by_role("option", name=label, exact=True).click()
        return f"example {label!r}"

    def upload(self, box: str = "", name: str = "") -> str:
        box, name = box or self.box(), name or self.rng.choice(sorted(self.texts))
        files = self.page.locator(f"#upload-{box}").locator("xpath=..").locator("input[type=file]")
        files.set_input_files(str(self.folder / name))
        return f"upload {name} into {box.upper()}"

    def empty(self, box: str = "") -> str:
        box = box or self.box()
        self.page.click(f"#empty-{box}")
        return f"Empty {box.upper()}"

    def paste(self) -> str:
        box, name = self.box(), self.rng.choice(sorted(self.texts))
        if not self.texts[name]:
            name = "not_json.json"
        self.page.locator(f"#data-{box} textarea").fill(self.texts[name])
        return f"paste {name} into {box.upper()}"

    def mode(self) -> str:
        mode = self.rng.choice(["official", "corrected"])
        self.page.locator("#mode").get_by_text(mode, exact=True).click()
        return f"mode {mode}"

    def _entered(self, field: str, label: str, values: list[str]) -> str:
        """One of `values` typed into the option box `field`, then Enter."""
        value = self.rng.choice(values)
        self.page.locator(f"#{field} input").fill(value)
        self.page.locator(f"#{field} input").press("Enter")
        return f"{label} {value}"

    def lam(self) -> str:
        return self._entered("lambda", "λ", ["0.25", "0.5", "1"])

    def k(self) -> str:
        return self._entered("k", "K", ["2", "30"])  # 2: fewer than some turn's slots, an options error

    def alpha(self) -> str:
        return self._entered("alpha", "α", ["10/11", "0.5", "1"])

    def matching(self) -> str:
        value = self.rng.choice(VALUE_MATCHINGS)
        self.page.locator("#matching").get_by_text(value, exact=True).click()
        return f"value matching {value}"

    def dialogue(self) -> str:
        if not self.page.locator("#dialogue").is_visible():
            return "no dialogue to pick"
        self.page.click("#dialogue input")
        options = self.page.locator("#dialogue").get_by_role("option")
        choice = options.nth(self.rng.randrange(options.count()))
        picked = choice.inner_text()
        choice.click()
        return f"dialogue {picked}"

    def score(self) -> str:
        self.page.click("#score")
        return "Score"

    def width(self) -> str:
        width = self.rng.choice([1400, 390])
        self.page.set_viewport_size({"width": width, "height": 900})
        return f"width {width}"

    ACTIONS = (
        "example", "upload", "upload", "empty", "paste", "mode", "lam", "k", "alpha", "matching", "dialogue", "score",
        "score", "width",
    )  # fmt: skip

    def act(self) -> None:
        self.log.append(getattr(self, self.rng.choice(self.ACTIONS))())
        self.page.evaluate(QUIET_JS, 1.0)

    # ---- the oracle ------------------------------------------------------------------------

    def contents(self) -> dict[str, str]:
        """{set name: its text} of every box holding something: its text, else the file its note names."""
        held = {}
        for box in BOXES:
            name = self.page.locator(f"#name-{box} input").input_value().strip()
            text = self.page.locator(f"#data-{box} textarea").input_value()
            note = self.page.locator(f"#note-{box}").inner_text()
            files = [file for file in self.texts if f"file: {file}" in note]
            if not text.strip() and files:
                text = self.texts[files[0]]
                name = name or name_from_file(files[0])
            if text.strip():
                held[name or box.upper()] = text  # an unnamed set is named after its file, else its letter
        return held

    def expected(self, text: str) -> dict[str, str] | None:
        """GCA and JGA of `text` as the page shows them, with the page's options; None when it does not read."""
        path = self.folder / "scored.jsonl"
        path.write_text(text, encoding="utf-8")
        mode = self.page.locator("#mode input:checked").input_value()
        lam = float(self.page.locator("#lambda input").input_value())
        alpha = self.page.locator("#alpha input").input_value()
        matching = self.page.locator("#matching input:checked").input_value()
        try:
            corpus = read(str(path), value_matching=matching)
            scores = score(corpus, mode=mode, alpha=alpha, fga_lambda=lam, value_matching=matching).scores
        except Exception:  # noqa: BLE001 (the library refuses it: the page must say why)
            return None
        return {key: f"{100 * scores[key]:.2f}" for key in ("gca", "jga", "fga")}

    def check(self) -> None:
        page, steps = self.page, "; ".join(self.log)
        status = page.locator("#status").inner_text()
        shown = page.locator("#scores-col").is_visible()
        if not shown:
            assert not status.startswith("Scored"), f"the status claims figures none shows, after: {steps}"
            assert status.strip(), f"no figures and no word why, after: {steps}"
            return
        columns = [th.inner_text().strip() for th in page.locator("#metrics-main thead th").all()[1:]]
        assert columns, f"the Scores section shows no set, after: {steps}"
        if "still those of the last options" in status or page.locator("#status-error").count():
            return  # an options error says the figures are the last options'
        assert status.startswith("Scored"), f"figures shown under {status[:80]!r}, after: {steps}"
        held = self.contents()
        for name in columns:
            assert name in held, f"column {name!r} but no box holds it ({sorted(held)}), after: {steps}"
            expected = self.expected(held[name])
            assert expected is not None, f"figures of {name!r}, which the library does not read, after: {steps}"
            for metric, value in expected.items():
                cell = page.locator(f'#metrics td[data-metric="{metric}"][data-set="{name}"]').first.inner_text()
                assert cell.strip() == value, f"{metric} of {name!r}: {cell} shown, {value} computed, after: {steps}"


@pytest.mark.parametrize("seed", SEEDS)
def test_issue60_random_sequences_end_showing_the_boxes_figures_or_saying_why(visit, tmp_path, seed):
    texts = _inputs(tmp_path)
    page = visit(width=1400)
    visitor = Visitor(page, tmp_path, texts, random.Random(seed))
    visitor.open_more_sets()  # sets C and D are laid out once their box is open
    for _ in range(ACTIONS):
        visitor.act()
        visitor.check()
    shot(page, f"issue60-random-{seed}")


def test_issue60_upload_then_empty_as_the_figures_show_then_upload_shows_the_new_file_s_figures(visit, tmp_path):
    """The issue's stuck page: a file in A, "Empty set A" as soon as its figures show, a file in A again: its
    figures, equal to the library's, then Score, the same."""
    visitor = Visitor(visit(width=1400), tmp_path, _inputs(tmp_path), random.Random(0))
    page = visitor.page
    visitor.open_more_sets()
    visitor.log.append(visitor.upload("a", "first_example_P2.jsonl"))
    page.wait_for_selector('#metrics td[data-set="first_example_P2"]')
    visitor.log.append(visitor.empty("a"))  # at once, while the chain after the figures is still pending
    page.evaluate(QUIET_JS, 1.0)
    visitor.check()
    assert not page.locator("#scores-col").is_visible()
    for action in (lambda: visitor.upload("a", "mul1110_prediction.jsonl"), visitor.score):
        visitor.log.append(action())
        page.evaluate(QUIET_JS, 1.0)
        visitor.check()
        assert (
            page.locator('#metrics td[data-metric="gca"][data-set="mul1110_prediction"]').first.inner_text() == "31.43"
        )
    shot(page, "issue60-upload-empty-upload")


@pytest.mark.parametrize("width", [1400, 390])
def test_issue57_a_gzip_upload_shows_the_figures_of_the_file_inside_and_a_cut_one_says_why(visit, tmp_path, width):
    visitor = Visitor(visit(width=width), tmp_path, _inputs(tmp_path), random.Random(0))
    page = visitor.page
    visitor.open_more_sets()  # the oracle reads every box
    visitor.log.append(visitor.upload("a", "mul1110_prediction.jsonl.gz"))
    page.wait_for_selector('#metrics td[data-set="mul1110_prediction"]')
    page.evaluate(QUIET_JS, 1.0)
    visitor.check()  # the figures of the file inside, equal to the library's
    assert page.locator('#metrics td[data-metric="gca"][data-set="mul1110_prediction"]').first.inner_text() == "31.43"
    assert "gzip-compressed" in page.locator("#status").inner_text()
    visitor.log.append(visitor.upload("b", "cut.jsonl.gz"))
    page.evaluate(QUIET_JS, 1.0)
    visitor.check()
    status = page.locator("#status").inner_text()
    assert "the gzip data is damaged or cut short" in status, status  # the page says why
    shot(page, f"issue57-gzip-upload-{width}")
