"""Issue 47 without a browser: API errors name the API's parameters, not the page's sets; an emptied λ or K
says what it takes; the interval box under a compatibility profile says why it is empty."""

from __future__ import annotations

import pytest

from dst_metrics.space.explore import api_compare, api_score, explore, set_intervals
from dst_metrics.space.inputs import SetInput, empty_option, endpoint, example_input, page_profiles

gr = pytest.importorskip("gradio")


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
