"""What a model generates, read into states: `parsing` reads generated text (JSON, Python literals, SQL,
``slot=value`` lists, ...) into a state and says what went wrong; `updates` accumulates turn updates (a turn's
new and changed slots) into the states after each turn, and recognises predictions that look like updates.
"""
