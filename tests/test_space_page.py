"""Issue 47 without a browser: API errors name the API's parameters, not the page's sets; an emptied λ or K
says what it takes; the interval box under a compatibility profile says why it is empty. And the page's
computation is not run again for the inputs it already shows."""

from __future__ import annotations

import pytest

from dst_metrics.space.explore import api_compare, api_score, explore, set_intervals
from dst_metrics.space.inputs import SetInput, empty_option, endpoint, example_input, page_profiles

gr = pytest.importorskip("gradio")

from dst_metrics.space.page import Page, explore_example  # noqa: E402  (gradio first: the page is built of its widgets)


def _error(api, *args) -> str:
    with pytest.raises(gr.Error) as caught:
        endpoint(api)(*args)
    return caught.value.message


def test_api_errors_name_the_api_parameter():
    score_error = _error(api_score, "{not json")
    assert score_error.startswith("parameter 'predictions'") and "Prediction set" not in score_error, score_error
    first = example_input("first_example").sets[0][1]
    compare_error = _error(api_compare, first, "{not json")
    assert compare_error.startswith("parameter 'b'") and "Prediction set" not in compare_error, compare_error


def test_an_empty_lambda_or_k_says_what_it_takes():
    entry = SetInput(*example_input("first_example").sets[0])
    for fga_lambda, num_slots, words in (
        (None, 30, "λ (FGA decay) is empty"),
        (0.5, None, "K (slots, for SA) is empty"),
    ):
        assert "got None" in explore([entry], fga_lambda=fga_lambda, num_slots=num_slots).status  # the library's words
        message = empty_option(fga_lambda, num_slots)
        assert message.startswith(words) and "None" not in message
    assert empty_option(0.5, 30) is None


def test_the_interval_box_says_why_it_is_empty_under_a_profile():
    sets = [SetInput(*s) for s in example_input("all").sets[:1]]
    profile = page_profiles()[0][1]
    result = explore(sets, compat=profile, analyse=False)
    assert result.ok, result.status
    note = set_intervals(result)
    assert 'id="intervals-compat"' in note and profile in note
    assert "intervals-compat" not in set_intervals(explore(sets, analyse=False))


def _session(example: str = "all"):
    """A page built without a server, showing `example`; its ticket; and its computation as the browser asks for
    it: `compute(number, **changed)`, with the widgets changed since, by name (`Page.compute_inputs`; `text_a`:
    set A's text)."""
    page = Page()
    with gr.Blocks():
        page.inputs_section()
        page.options_section()
        page.results_section()
    widgets = page.compute_inputs
    chosen = {**page.choose_example(example), page.example: example}
    values = [chosen.get(widget, widget.value) for widget in widgets]
    ticket = {"latest": 0}

    def compute(number: int, **changed) -> dict:
        for name, value in changed.items():
            widget = page.sets[0].text if name == "text_a" else getattr(page, name)
            values[widgets.index(widget)] = value
        return page.compute(*values[:-2], ticket, number)

    return page, ticket, compute


def test_the_inputs_shown_asked_again_are_not_computed_again():
    """Leaving the λ box after Enter asks again for the figures shown. Computed again, they would also reset the
    dialogue a click on the scatter had opened meanwhile (the browser sent the old one): seen in CI. Other inputs,
    an error, or figures hidden by typing into a box compute again. A column already shown is not shown again."""
    page, ticket, compute = _session()
    first = compute(1)
    assert page.state in first and ticket["latest"] == 1 and first[page.scores_col] == gr.update(visible=True)
    assert page.state not in compute(2) and ticket["latest"] == 1  # nothing drawn again; the first's chain goes on
    third = compute(3, lam=0.75)
    assert third[page.state].options.fga_lambda == 0.75
    assert page.scores_col not in third and page.compare_col not in third  # shown already: not shown again
    assert "this turn has" in compute(4, k=2)[page.status]  # an option error ...
    assert "this turn has" in compute(5)[page.status]  # ... asked again says so again
    assert page.state in compute(6, k=30)
    hidden = page.edited(0)("all", "P1", '{"changed": {}}', ticket)  # the figures hidden: "Not yet scored"
    assert hidden[page.scores_col] == gr.update(visible=False)
    assert compute(7)[page.scores_col] == gr.update(visible=True)  # Score shows them again


def test_a_preloaded_example_is_computed_once_per_options_and_each_visitor_gets_a_copy():
    explore_example.cache_clear()
    page_a, _, visit_a = _session()
    page_b, _, visit_b = _session()
    a, b = visit_a(1)[page_a.state], visit_b(5)[page_b.state]
    assert (explore_example.cache_info().misses, explore_example.cache_info().hits) == (1, 1)
    assert a is not b and (a.ticket, b.ticket) == (1, 5)  # each session's own copy
    assert (a.metrics, a.slots, a.scatter) == (b.metrics, b.slots, b.scatter) and "Dialogue" in a.slots
    assert visit_a(2, lam=0.75)[page_a.state].options.fga_lambda == 0.75  # other options: computed
    assert explore_example.cache_info().misses == 2
    own = visit_b(6, text_a=example_input("first_example").sets[0][1])  # another text in A: own data
    assert own[page_b.state].ok and explore_example.cache_info().currsize == 2  # never kept
