"""`Alternatives`, in a module never compiled: mypyc would compile a `frozenset` subclass only as a
plain Python class, so it stays one while `states` and `corpus` may be compiled.
"""

from __future__ import annotations


class Alternatives(frozenset):
    """A gold slot's acceptable values: a frozenset that keeps the order given in `order`."""

    __slots__ = ("order",)
    __module__ = "dst_metrics.states"  # its public home, where pickles name it
    order: tuple[str, ...]

    def __new__(cls, values):
        order = tuple(dict.fromkeys(values))
        self = super().__new__(cls, order)
        self.order = order
        return self

    @property
    def first(self) -> str:
        """The value given first."""
        return self.order[0]

    def __repr__(self) -> str:
        return f"Alternatives({list(self.order)!r})"
