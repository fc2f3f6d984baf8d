"""`benchlab qreg`: quantile regression of a factorial experiment over a grid of quantiles."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from benchlab import limits
from benchlab.cli import factor_options, option_types, output_options
from benchlab.errors import InputError, UsageError
from benchlab.warnings_capture import noting

if TYPE_CHECKING:  # numpy loads when the command runs: `benchlab --help` stays quick
    import numpy as np

EXAMPLE = """examples:
  benchlab qreg latency.csv --response latency --factors sched,machine,vmstat,load
  benchlab qreg latency.csv --response latency --factors sched,machine --taus 0.5,0.9,0.99 \\
      --se nid --plot coefficients.png
  benchlab qreg latency.csv --response latency --factors sched,machine --cluster run --seed 1
"""

# Level columns from the top down: `case` names an alternative x factor combination in a
# store, and a lower level's labels restart within each unit above it (run 1 of build 1 is
# not run 1 of build 2), so a cluster is identified by its column and every one above it.
LEVEL_COLUMNS = ("case", "build", "run", "execution")
CLUSTER_COLUMNS = ("build", "run", "execution")  # the default cluster: the highest present


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "qreg", help="quantile regression: each factor's effect at every quantile",
        description="Quantile regression of a response on factors coded -1/+1 and their "
                    "interactions, at a grid of quantiles (STATS.md §9): a table per quantile "
                    "and, with --plot, each coefficient against tau with its interval.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    factor_options.add_factor_table_input(p)
    p.add_argument("--taus", default="0.1:0.9:0.1,0.99", metavar="LIST",
                   help="quantiles: values and FROM:TO:STEP ranges, comma-separated "
                        "(default 0.1:0.9:0.1,0.99)")
    p.add_argument("--se", choices=("iid", "nid", "ker", "rank", "rank-nid", "boot", "cluster"),
                   default=None, help="inference (default: cluster with a run column, else "
                                      "rank below 1001 observations, else nid)")
    p.add_argument("--cluster", default=None, metavar="COL",
                   help="the run column for the cluster bootstrap (default: the highest of "
                        "the columns build, run, execution; 'none' turns it off)")
    p.add_argument("--covariates", default=None, metavar="X,...",
                   help="numeric columns added to the model as covariates")
    p.add_argument("-R", "--replicates", type=int, default=200, metavar="B",
                   help="bootstrap replicates for --se boot|cluster (default 200)")
    p.add_argument("--seed", type=option_types.seed, default=None,
                   help="seed of the bootstrap (0 or more)")
    p.add_argument("-c", dest="confidence", default=None, metavar="LEVEL",
                   help="confidence level (default 95)")
    p.add_argument("--plot", default=None, metavar="FILE",
                   help="write the coefficients-against-tau figure (.png, .svg or .pdf)")
    output_options.add(p, plot=False)
    p.set_defaults(run=noting(run))


def parse_taus(text: str) -> list[float]:
    """'0.1:0.9:0.1,0.99' → [0.1, 0.2, ..., 0.9, 0.99]; every tau strictly inside (0, 1)."""
    import numpy as np

    taus: list[float] = []
    for item in text.split(","):
        item = item.strip()
        try:
            if ":" in item:
                start, stop, step = (float(v) for v in item.split(":"))
                if step <= 0 or stop < start:
                    raise ValueError
                steps = (stop - start) / step + 1e-9
                count = int(np.floor(steps)) + 1 if np.isfinite(steps) else 2**63
                limits.check(len(taus) + count, limits.MAX_TAUS, f"--taus {item}: the number "
                             "of quantiles", "use a coarser STEP ")  # before the grid exists
                taus.extend(np.round(start + step * np.arange(count), 12).tolist())
            else:
                taus.append(float(item))
        except ValueError:
            raise UsageError(f"--taus: {item!r} is not a quantile or a FROM:TO:STEP range") \
                from None
    limits.check(len(taus), limits.MAX_TAUS, "the number of quantiles in --taus",
                 "give fewer ")
    bad = [t for t in taus if not 0.0 < t < 1.0]
    if bad:
        raise UsageError(f"--taus: tau = {bad[0]:g} is outside (0, 1)")
    return taus


def _cluster(args: argparse.Namespace, table) -> tuple[np.ndarray | None, str | None]:
    """The cluster label of every row (nested in the levels above it) and the column's name."""
    import numpy as np

    if args.cluster == "none":
        if args.se == "cluster":
            raise UsageError("--se cluster needs a run column; drop --cluster none")
        return None, None
    name = args.cluster
    if name is None:
        name = next((c for c in CLUSTER_COLUMNS
                     if c in table.columns and c not in table.factors), None)
    if name is None:
        if args.se == "cluster":
            raise UsageError("--se cluster needs a run column: name it with --cluster COL")
        return None, None
    labels = table.column(name).astype(str)
    if name in LEVEL_COLUMNS:
        above = [c for c in LEVEL_COLUMNS[:LEVEL_COLUMNS.index(name)]
                 if c in table.columns and c not in table.factors]
        for parent in above:  # "1" of build 2 is not "1" of build 1
            labels = np.char.add(np.char.add(table.columns[parent].astype(str), "\x1f"), labels)
    return labels, name


def _covariates(args: argparse.Namespace, table) -> tuple[np.ndarray | None, list[str]]:
    import numpy as np

    from benchlab.data.readers.numbers import is_number

    if not args.covariates:
        return None, []
    names = factor_options.factor_names(args.covariates)
    columns = []
    for name in names:
        if name in table.factors or name == table.response_name:
            raise UsageError(f"column {name!r} cannot be both a covariate and a factor or "
                             "the response")
        raw = table.column(name)
        try:
            columns.append(raw.astype(np.float64))
        except ValueError:
            bad = next(i for i, v in enumerate(raw) if not is_number(v))
            line = int(table.lines[bad]) if table.lines is not None else bad + 1
            raise InputError(f"{raw[bad]!r} in covariate column {name!r} is not a number",
                             f"{table.source}:{line}") from None
    return np.column_stack(columns), names


def _check_coefficients(table, order: int) -> None:
    """Refuse, before any fit, a model with more coefficients than BENCHLAB_MAX_COEFFICIENTS:
    each factor of L levels brings L − 1 (a 10,000-level factor would take minutes and
    p × p matrices of gigabytes)."""
    import math
    from itertools import combinations

    counts = table.level_counts
    p = sum(math.prod(counts[f] - 1 for f in term) for size in range(order + 1)
            for term in combinations(range(len(counts)), size))
    widest = max(range(len(counts)), key=lambda f: counts[f])
    limits.check(p, limits.MAX_COEFFICIENTS,
                 f"the number of the model's coefficients (factor {table.factors[widest]!r} "
                 f"has {counts[widest]:,} levels)", "merge levels, use fewer factors or lower "
                 "--interactions ")


def run(args: argparse.Namespace) -> int:
    from benchlab import progress

    with progress.showing(args.format != "json"):  # a bar on stderr for long work, not in JSON
        return _run(args)


def _run(args: argparse.Namespace) -> int:

    from benchlab.cli.common import confidence
    from benchlab.stats.qreg import quantile_regression

    taus = parse_taus(args.taus)
    level = confidence(args.confidence)
    if args.replicates < 2:
        raise UsageError("-R: the bootstrap needs at least 2 replicates")
    limits.check_replicates(args.replicates, "-R")
    if args.plot:
        from benchlab.output_file import check_target
        from benchlab.report.qreg import check_plot_path

        check_plot_path(args.plot)
        check_target(args.plot, [args.file])  # before the work, not after it
    output_options.check(args, [args.file])
    table = factor_options.load(args)
    order = factor_options.interactions(args.interactions, len(table.factors))
    _check_coefficients(table, order)
    cluster, cluster_name = _cluster(args, table)
    covariates, covariate_names = _covariates(args, table)
    try:
        result = quantile_regression(
            table.response, table.codes, table.level_counts, table.factors, table.levels,
            taus=taus, interactions=order, se=args.se, cluster=cluster,
            cluster_name=cluster_name, replicates=args.replicates, seed=args.seed,
            confidence=level, covariates=covariates, covariate_names=covariate_names,
            response=table.response_name, unit=table.unit.name)
    except ValueError as exc:
        raise InputError(str(exc), table.source) from None
    except InputError as exc:  # the library's checks of the design: name the file
        exc.where = exc.where or table.source
        raise
    if args.plot:
        from benchlab.report.qreg import write_qreg_plot

        write_qreg_plot(result, args.plot)
    ctx = output_options.context(args, "qreg", [args.file], factors=list(table.factors))
    output_options.emit(args, result, ctx, [args.file])
    return 0
