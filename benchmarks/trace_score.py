"""The module-to-module path of one ``dst-metrics score`` run, traced as it runs (``sys.setprofile``).

    python benchmarks/trace_score.py [SCORE ARGUMENTS ...]     # default: examples/mul1110.json --quiet

Runs ``dst-metrics score`` in this process with a profile hook and prints, in the order they happen, the
moves from one module of dst_metrics to another (the function entered, or ``back to`` on a return), each
move printed once: a loop over dialogues repeats the same moves and adds nothing. Then one line of counts:
modules entered, moves, returns to a module already left, and climbs (a move from a module to one that
imports it, directly or not: a return, or a call, back up the layers). Worker processes (``--jobs``) are
not traced. The output of the command itself goes to stderr.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.test_architecture import import_graph  # noqa: E402 - the graph the layer test checks


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    """Whether `start` imports `goal`, directly or through other modules."""
    seen, todo = {start}, [start]
    while todo:
        for found in graph.get(todo.pop(), ()):
            if found == goal:
                return True
            if found not in seen:
                seen.add(found)
                todo.append(found)
    return False


def trace(argv: list[str]) -> list[tuple[tuple[str, ...], str]]:
    """(the stack of modules, the function entered) of each call from one dst_metrics module into another
    during `argv`'s run, each stack once, in the order they first happen; imports are left out."""
    from dst_metrics.cli import main

    calls: list[tuple[tuple[str, ...], str]] = []
    seen: set[tuple[str, ...]] = set()
    stack: list[str] = []
    frames: list[bool] = []  # per traced frame: whether it entered another module

    def hook(frame, event: str, arg: object) -> None:
        if event not in ("call", "return"):  # c_call and c_return: code of C, not of a module here
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("dst_metrics") or frame.f_code.co_name == "<module>":
            return
        if not stack:  # tracing starts at the command's entry
            if event == "call" and module == "dst_metrics.cli.score" and frame.f_code.co_name == "run":
                stack.append(module)
                frames.append(False)
                calls.append(((module,), "run"))
            return
        if event == "return":
            if frames and frames.pop():
                stack.pop()
            return
        entered = module != stack[-1]
        frames.append(entered)
        if entered:
            stack.append(module)
            path = tuple(stack)
            if path not in seen:
                seen.add(path)
                calls.append((path, frame.f_code.co_name))

    with contextlib.redirect_stdout(sys.stderr):
        sys.setprofile(hook)
        try:
            main(["score", *argv])
        finally:
            sys.setprofile(None)
    return calls


def short(module: str) -> str:
    return module.removeprefix("dst_metrics.")


def main() -> None:
    argv = sys.argv[1:] or [str(REPO / "examples" / "mul1110.json"), "--quiet"]
    calls = trace(argv)
    graph = import_graph()
    entered: set[str] = set()
    climbs = 0
    for path, function in calls:
        if len(path) == 1:
            print(f"{short(path[0])}.{function}")
            entered.add(path[0])
            continue
        caller, callee = path[-2], path[-1]
        climb = reaches(graph, callee, caller)  # a call into a module that imports the caller: back up
        climbs += climb
        entered.add(callee)
        mark = "  <- UP: called back from below" if climb else ""
        print(f"{'  ' * (len(path) - 1)}{short(callee)}.{function}{mark}")
    print(f"{len(entered)} modules entered; {len(calls)} calls between modules; {climbs} calls back up the layers")


if __name__ == "__main__":
    main()
