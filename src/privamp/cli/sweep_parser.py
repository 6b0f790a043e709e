"""The command-line declaration of ``sweep``: a grid of DP-SGD runs, one row per configuration (CSV or JSON).

Every grid option takes a comma-separated list (:func:`privamp.cli.values.list_of`); the answer is computed in
:mod:`privamp.cli.sweep_commands` by :mod:`privamp.sweep`.
"""

from __future__ import annotations

from privamp.cli import values
from privamp.cli.curve_parser import add_list
from privamp.cli.options import FORMAT, SAMPLINGS, SIGMA_HELP, Parser, Subparsers
from privamp.sampling import Neighboring

SWEEP_EPILOG = """\
the grid:
  every combination of the values given, one row each; --sampling poisson reads --batch-size/--dataset-size as the
  rate batch-size / dataset-size. Every configuration is checked before any is computed; one that does not fit (a
  batch size for --sampling none, a rate with without-replacement) is an error (exit status 2), naming the value.
  Each row is what privamp epsilon prints for the same configuration (shuffle and balls-in-bins, which epsilon does
  not take, are accounted per epoch as privamp statement does): the certified interval [lower_epsilon, epsilon]
  (lower_epsilon a rigorous lower bound, never a guarantee; empty where none holds for the run) and the route and
  bound that certify epsilon.
output formats:
  CSV (default): a header naming the columns, one row per configuration; numbers exact (repr), infinities as inf,
  an empty cell where an input was not given, the warnings and skipped routes of a row joined by "; ".
  --format json: one JSON object; "rows" holds one object per configuration, infinities as "inf".
  --out FILE writes the table to FILE and prints one line saying so.
example:
  privamp sweep --sigma 0.8,1,1.2 --batch-size 256,512 --dataset-size 60000 --epochs 10,20 --delta 1e-5 \\
    --sampling poisson,without-replacement
"""


def add_sweep_command(sub: Subparsers[Parser]) -> None:
    what = (
        "a grid of DP-SGD runs (sigma x sampling x relation x group size x rate or batch size x epochs or steps x "
        "delta): one row per configuration, its certified interval and route, as CSV or JSON, computed on every core"
    )
    cmd = sub.add_parser("sweep", help=what, description=what, epilog=SWEEP_EPILOG, formatter_class=FORMAT)
    grid = cmd.add_argument_group("the grid (comma-separated values; one row per combination)")
    add_list(grid, "--sigma", values.positive, "S", SIGMA_HELP + "; required", required=True)
    add_list(grid, "--sampling", str, "NAME", f"sampling schemes: {', '.join(SAMPLINGS)}. Default: poisson if "
              "--sample-rate is given, none if no batch option is given; --batch-size needs an explicit --sampling")
    add_list(grid, "--neighboring", str, "REL", f"relations: {', '.join(n.value for n in Neighboring)} "
              "(default add-remove)")
    add_list(grid, "--group-size", values.group_size, "K", "records one user contributes at most, each an integer "
              "in [1, 256] (default 1: record level)")
    add_list(grid, "--sample-rate", values.real, "Q", "Poisson sampling probabilities, each in (0, 1]")
    add_list(grid, "--batch-size", values.count, "M", "batch sizes, each an integer in [1, dataset size]")
    add_list(grid, "--dataset-size", values.count, "N", "dataset sizes, each an integer >= 1")
    length = grid.add_mutually_exclusive_group(required=True)
    add_list(length, "--epochs", values.positive, "E", "epochs, each a finite number > 0, converted to steps by each "
             "scheme's rule (poisson: ceil(E / q); fixed-size: ceil(E * floor(N / M)), drop_last; none: ceil(E))")
    add_list(length, "--steps", values.count, "T", "step counts, each an integer in [1, 2**53]")
    add_list(grid, "--delta", values.open_unit, "D", "deltas, each in (0, 1); required", required=True)
    run = cmd.add_argument_group("running and output")
    run.add_argument("--workers", type=values.count, metavar="N",
                     help="processes computing rows at once; default every core (os.cpu_count())")
    run.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    run.add_argument("--format", choices=("csv", "json"), default="csv", help="csv (default) or json (one object)")
    run.add_argument("--json", action="store_true", help="the same as --format json")
    run.add_argument("--out", metavar="FILE", help="write the table to FILE (and print one line saying so)")
