"""The package is layered: every module imports only from its own layer or below, and no import
cycle exists (docs/architecture.md). Imports inside functions count, as in the stop hook's cycle
finder (../shared/hooks/before-stop), whose graph this is."""

from __future__ import annotations

import ast
import sys

from tests.conftest import REPO

LAYER_NAMES: tuple[str, ...] = (
    "foundation",
    "values",
    "corpus",
    "inputs",
    "core",
    "figures",
    "compat",
    "scoring",
    "analysis",
    "report",
    "front ends",
)
"""Layer i's name; docs/architecture.md has one section per layer, in this order."""
FOUNDATION, VALUES, CORPUS, INPUTS, CORE, FIGURES, COMPAT, SCORING, ANALYSIS, REPORT, FRONT = range(len(LAYER_NAMES))

LAYERS: dict[str, int] = {
    "dst_metrics._version": FOUNDATION,
    "dst_metrics._gc": FOUNDATION,
    "dst_metrics.errors": FOUNDATION,
    "dst_metrics.ids": FOUNDATION,
    "dst_metrics.progress": FOUNDATION,
    "dst_metrics.fuzzy": FOUNDATION,
    "dst_metrics.json_problems": FOUNDATION,
    "dst_metrics.citations": FOUNDATION,
    "dst_metrics.modules": FOUNDATION,
    "dst_metrics.pool": FOUNDATION,  # the one process pool (score --jobs, dstc2 --jobs)
    "dst_metrics.numpy_sums": FOUNDATION,  # numpy's pairwise summation without numpy (sgdx, slt2024)
    "dst_metrics.states": VALUES,
    "dst_metrics._alternatives": VALUES,  # states.Alternatives, kept out of the compiled modules
    "dst_metrics.options": VALUES,
    "dst_metrics.confidences": VALUES,
    "dst_metrics.reading": VALUES,  # Reading: the reading settings, each declared once (never compiled)
    "dst_metrics.corpus": CORPUS,
    "dst_metrics.readers": INPUTS,
    "dst_metrics.readers.slt2024": INPUTS,  # SLT 2024 confidence results CSV (predictions only)
    "dst_metrics.generation": INPUTS,  # generated text read into states (parsing), turn updates accumulated (updates)
    "dst_metrics.core": CORE,  # the tally (core.tally)
    "dst_metrics.figures": FIGURES,  # the formulas (metrics), the registry, the calibration figures' registry
    "dst_metrics.dstc2": FIGURES,
    "dst_metrics.compat": COMPAT,
    "dst_metrics.scoring": SCORING,  # scores, and the engines that score inputs
    "dst_metrics.analysis": ANALYSIS,  # breakdown, explain, selfcheck (dst-metrics check), zeroshot (score --domain)
    "dst_metrics.stats": ANALYSIS,
    "dst_metrics.stats.table": ANALYSIS,  # the table of N systems, one correction over its tests
    "dst_metrics.calibration": ANALYSIS,
    "dst_metrics.calibration.slt2024": ANALYSIS,  # the slt2024 profile: ECE with bin centres, sklearn's AUROC
    "dst_metrics.protocols": ANALYSIS,  # papers' protocols: SGD-X (sgdx), CheckDST (checkdst)
    "dst_metrics.protocols.extras": ANALYSIS,  # what the report adds to a file: CheckDST, SGD-X, calibration
    "dst_metrics.report": REPORT,
    "dst_metrics.report.systems": REPORT,  # the table of N systems as Markdown, LaTeX, HTML
    "dst_metrics.report.protocols": REPORT,  # the protocols' tables of the report (HTML, LaTeX, Markdown)
    "dst_metrics.report.draw": REPORT,  # the HTML pieces of the report and the Space (space imports down)
    "dst_metrics.report.palette": REPORT,  # the colours of every chart and swatch, defined once
    "dst_metrics.report.plots": REPORT,  # every chart, report's and Space's (matplotlib)
    "dst_metrics.model_card": REPORT,  # a model card's model-index of a report (huggingface_hub)
    "dst_metrics": FRONT,  # the package's __init__ only: its names are imported on first use
    "dst_metrics.__main__": FRONT,
    "dst_metrics.cli": FRONT,
    "dst_metrics.trainer": FRONT,  # compute_metrics of a Seq2SeqTrainer, generation loops
    "dst_metrics.torchmetrics": FRONT,  # torchmetrics Metrics for Lightning and DDP (torch, torchmetrics)
    "dst_metrics.hub": FRONT,  # the evaluate module folders as the wheel ships them (no code)
    "dst_metrics.release": FRONT,  # the Hub folders a release pushes
    "dst_metrics.hf_evaluate": FRONT,
    "dst_metrics.space": FRONT,  # the Space's page (app.py is its entry point)
    "dst_metrics.space.systems": FRONT,  # the Space's table of N systems and its exports (no gradio)
    "dst_metrics.space.systems_section": FRONT,  # its section of the page and the /table endpoint
    "dst_metrics.space.protocols": FRONT,  # the Space's CheckDST and SGD-X figures and exports (no gradio)
    "dst_metrics.space.protocols_section": FRONT,  # their section (page.py registers the /checkdst, /sgdx endpoints)
}
"""Module or package -> its layer; a module takes the entry of its longest listed prefix (the bare
``dst_metrics`` covers the package's ``__init__`` alone). A new module must be covered."""


def import_graph() -> dict[str, set[str]]:
    """{module: modules it imports} of dst_metrics, as the stop hook builds it: imports anywhere in
    a file (in functions too), relative ones resolved, ``from pkg import name`` taken as pkg.name
    when that is a module, a package's own ancestors left out."""
    files = (REPO / "dst_metrics").rglob("*.py")
    paths = {".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__"): p for p in files}
    graph: dict[str, set[str]] = {m: set() for m in paths}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(max(0, node.level - 1)):
                    base = base.rsplit(".", 1)[0]
                target = (base + "." + node.module if node.module else base) if node.level else (node.module or "")
                names = [target] + [f"{target}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                while name and name not in paths:
                    name = name.rsplit(".", 1)[0] if "." in name else ""
                ancestor = module.startswith(name + ".") and paths[name].name == "__init__.py"
                if name and name != module and not ancestor:
                    graph[module].add(name)
    return graph


def layer_of(module: str) -> int | None:
    """The layer of a module: its longest prefix in `LAYERS`; None when no entry covers it."""
    name = module
    while name:
        if name in LAYERS and (name != "dst_metrics" or module == "dst_metrics"):
            return LAYERS[name]
        name = name.rpartition(".")[0]
    return None


def upward_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(importer, imported) of every import from a lower layer to a higher one."""
    return {(m, t) for m, targets in graph.items() for t in targets if layer_of(t) > layer_of(m)}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while component[-1:] != [v]:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_is_in_a_layer_and_every_entry_names_a_module():
    graph = import_graph()
    assert not [m for m in sorted(graph) if layer_of(m) is None], "add these modules to LAYERS"
    stale = [key for key in LAYERS if not any(m == key or m.startswith(key + ".") for m in graph)]
    assert not stale, f"LAYERS lists modules that no longer exist: {stale}"


def test_the_package_has_no_import_cycle():
    found = cycles(import_graph())
    assert not found, "import cycles (imports inside functions count): " + "; ".join(" <-> ".join(c) for c in found)


def test_layers_import_only_downwards():
    graph = import_graph()
    upward = upward_imports(graph)
    shown = [f"{m} ({LAYER_NAMES[layer_of(m)]}) imports {t} ({LAYER_NAMES[layer_of(t)]})" for m, t in sorted(upward)]
    assert not shown, "imports from a lower layer to a higher one:\n" + "\n".join(shown)


def test_the_checks_catch_a_cycle_and_an_upward_import():
    graph = {
        "dst_metrics.core.tally": {"dst_metrics.scoring.scores"},
        "dst_metrics.scoring.scores": {"dst_metrics.core.tally"},
    }
    assert cycles(graph) == [["dst_metrics.core.tally", "dst_metrics.scoring.scores"]]
    assert upward_imports(graph) == {("dst_metrics.core.tally", "dst_metrics.scoring.scores")}
    assert layer_of("dst_metrics.stats.new_module") == ANALYSIS and layer_of("dst_metrics.cli.score") == FRONT
    assert layer_of("dst_metrics.confidences") == VALUES and layer_of("dst_metrics") == FRONT


FOLDERS_OF_TWO_LAYERS: dict[str, set[str]] = {}
"""The folders that hold modules of another layer than their own: none (issue 58, item 5)."""


def test_a_folder_is_one_layer_but_the_known_exceptions():
    """Each module is in its folder's layer (the folder list reads as the architecture): a module of another
    layer lives in a folder of that layer. The exceptions left are listed, and each is still one."""
    graph = import_graph()
    found: dict[str, set[str]] = {}
    for module in graph:
        folder = module.rpartition(".")[0]
        if folder.startswith("dst_metrics.") and layer_of(module) != layer_of(folder):
            found.setdefault(folder, set()).add(module)
    assert found == FOLDERS_OF_TWO_LAYERS, found


def test_the_architecture_document_lists_the_layers_in_order():
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    headings = [line.split(". ", 1)[1] for line in text.splitlines() if line.startswith("### ") and ". " in line]
    assert headings == list(LAYER_NAMES)
