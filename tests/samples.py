"""Small corpora several test files share: two dialogues with nested and flat states, an
acceptable-value list in gold, a wrong value and an overshot slot."""

GOLD = [
    [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}, {"hotel": {"stars": "4"}}],
    [{}, {"taxi-leave at": ["17:00", "5 pm"]}, {"taxi-leave at": ["17:00", "5 pm"], "taxi-dest": "museum"}],
]
PRED = [
    [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "5"}}, {"hotel": {"stars": "5"}}],
    [{"taxi": {"dest": "museum"}}, {"taxi-leave at": "5 pm"}, {"taxi-leave at": "5 pm", "taxi-dest": "museum"}],
]
